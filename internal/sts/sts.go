// Package sts is speech to speech: a recording's words and timing said in another voice. It
// decodes the upload, charges its seconds through the metering ledger, measures the recording's
// voice, converts it towards the target voice's measured pitch and formants (internal/convert),
// watermarks and encodes the result like text to speech, and keeps it as a history item with
// source STS.
package sts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"timbre/internal/access"
	"timbre/internal/account"
	"timbre/internal/audio"
	"timbre/internal/blob"
	"timbre/internal/convert"
	"timbre/internal/engine"
	"timbre/internal/errs"
	"timbre/internal/isolate"
	"timbre/internal/metering"
	"timbre/internal/plan"
	"timbre/internal/store"
	"timbre/internal/voice"
	"timbre/internal/voiceprint"
	"timbre/internal/watermark"
)

// Store is what speech to speech needs of the database.
type Store interface {
	Workspace(ctx context.Context, id string, now time.Time) (*store.Workspace, error)
	InTx(ctx context.Context, fn func(tx *store.Tx) error) error
	account.ChecklistWriter
	metering.ProgressWriter
}

// Service converts recordings for workspaces.
type Service struct {
	DB        Store
	Blob      *blob.Store
	Voices    *voice.Service
	Engines   map[string]engine.Synthesizer
	Isolator  engine.Isolator // remove_background_noise
	Converter convert.Converter
	// Analyse measures a speaker (voiceprint.Analyse).
	Analyse   func(engine.PCM) (*voiceprint.Print, error)
	Watermark *watermark.Watermark
	Now       func() time.Time

	// Premade voices' prints and reference audio, by voice id + prosody.
	prints, refs sync.Map
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Models are the speech-to-speech model ids accepted (GET /v1/models lists them).
var Models = []string{"eleven_multilingual_sts_v2", "eleven_english_sts_v2"}

// DefaultModel is the API's default model_id.
const DefaultModel = "eleven_multilingual_sts_v2"

// Request is one conversion, as parsed from the multipart form and query.
type Request struct {
	VoiceID     string
	Audio       []byte
	FileName    string
	RawPCM      bool // file_format=pcm_s16le_16
	ModelID     string
	Settings    *voice.Settings
	Seed        *int64
	RemoveNoise bool
	Format      audio.Format
	Logging     bool
}

// Result is a finished conversion.
type Result struct {
	RequestID   string
	HistoryID   string // "" when not logged
	ContentType string
	Credits     int64
	Seconds     float64
	PCM         engine.PCM // the converted, watermarked audio
	Audio       []byte     // PCM encoded in the request's format
	Source      *voiceprint.Print
	Target      *voiceprint.Print
}

// job is a recording decoded, measured and charged, ready to convert.
type job struct {
	vc       *store.Voice
	settings voice.Resolved
	pcm      engine.PCM
	src      *voiceprint.Print
	units    int64
	rsv      *metering.Reservation
	res      *Result
}

// begin decodes and measures r's recording and reserves its seconds in the ledger. Bad input is
// a 4xx that charges nothing.
func (s *Service) begin(ctx context.Context, c *access.Caller, r *Request) (*job, error) {
	if s.Analyse == nil || s.Converter == nil {
		return nil, errs.New(errs.Unavailable, "speech_to_speech_unavailable", "Speech to speech is not available on this server.")
	}
	pcm, err := isolate.Decode(ctx, r.Audio, r.RawPCM)
	if err != nil {
		return nil, err
	}
	vc, err := s.Voices.Get(ctx, c.WorkspaceID, r.VoiceID)
	if err != nil {
		return nil, err
	}
	ws, err := s.DB.Workspace(ctx, c.WorkspaceID, s.now())
	if err != nil {
		return nil, err
	}
	tier := plan.Get(ws.Tier)
	if need := audio.RequiresTier(r.Format); need != "" && !plan.AtLeast(tier.ID, need) {
		return nil, errs.Errorf(errs.Forbidden, "only_for_"+need+"+", "The output format %s needs the %s plan or above.", r.Format.Name, plan.Get(need).Name)
	}
	pcm, src, err := s.measure(ctx, r, pcm)
	if err != nil {
		return nil, err
	}
	stored, err := s.Voices.Settings(ctx, c.WorkspaceID, vc.ID)
	if err != nil {
		return nil, err
	}
	j := &job{vc: vc, settings: r.Settings.Over(stored), pcm: pcm, src: src,
		res: &Result{RequestID: store.NewID(), ContentType: r.Format.ContentType(), Seconds: pcm.Seconds()}}
	j.res.Credits = plan.STSCredits(j.res.Seconds)
	j.units = int64(math.Ceil(j.res.Seconds))
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		var err error
		j.rsv, err = metering.Reserve(ctx, tx, metering.Charge{
			WorkspaceID: c.WorkspaceID, UserID: c.UserID, APIKeyID: c.APIKeyID, VoiceID: vc.ID, ModelID: r.ModelID,
			Product: metering.STS, Kind: metering.Seconds, Units: j.units, Credits: j.res.Credits, Allowance: tier.CharacterLimit,
		}, s.now())
		return metering.QuotaAPIError(err)
	})
	if err != nil {
		return nil, err
	}
	account.CompleteItem(ctx, s.DB, c.UserID, account.ItemGenerateSpeech) // "start of … speech-to-speech generation"
	return j, nil
}

// Convert decodes, charges, converts and encodes r's recording, and keeps the result in the
// caller's history (when logging). Bad input is a 4xx that charges and stores nothing; a failure
// after the charge refunds it.
func (s *Service) Convert(ctx context.Context, c *access.Caller, r *Request) (*Result, error) {
	j, err := s.begin(ctx, c, r)
	if err != nil {
		return nil, err
	}
	vc, settings, pcm, src, res, rsv, units := j.vc, j.settings, j.pcm, j.src, j.res, j.rsv, j.units
	key := ""
	err = s.run(ctx, r, vc, settings, pcm, src, res)
	if err == nil && r.Logging {
		res.HistoryID = store.NewID()
		key = "history/" + c.WorkspaceID + "/" + res.HistoryID + "." + r.Format.Ext()
		err = s.Blob.Put(ctx, key, res.Audio, res.ContentType)
	}
	if err != nil {
		s.refund(rsv)
		return nil, failed(ctx, err)
	}
	// The work is done: from here on it is paid for and in the history.
	ctx = context.WithoutCancel(ctx)
	if err := s.settle(ctx, c, r, j, units, res.Credits, key); err != nil {
		if key != "" {
			_ = s.Blob.Delete(ctx, key)
		}
		s.refund(rsv)
		return nil, err
	}
	return res, nil
}

// failed is the API error of a conversion that failed after the charge.
func failed(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var e *errs.Error
	if errors.As(err, &e) {
		return err
	}
	return errs.Errorf(errs.Upstream, "speech_to_speech_failed", "The voice conversion failed: %v", err)
}

// settle commits j's reservation for units seconds (credits) and, when logging, adds its history
// item with the audio stored at key, in one transaction.
func (s *Service) settle(ctx context.Context, c *access.Caller, r *Request, j *job, units, credits int64, key string) error {
	return s.DB.InTx(ctx, func(tx *store.Tx) error {
		_, err := metering.Commit(ctx, tx, j.rsv, units, credits, s.now())
		if err != nil || !r.Logging || credits == 0 {
			return err
		}
		raw, _ := json.Marshal(j.settings)
		return tx.InsertHistory(ctx, &store.HistoryItem{
			ID: j.res.HistoryID, WorkspaceID: c.WorkspaceID, UserID: c.UserID, RequestID: j.res.RequestID,
			VoiceID: j.vc.ID, VoiceName: j.vc.Name, VoiceCategory: j.vc.Category, ModelID: r.ModelID,
			Text: title(r.FileName), Settings: string(raw), DateUnix: s.now().Unix(), CharFrom: j.rsv.From, CharTo: j.rsv.To,
			ContentType: j.res.ContentType, OutputFormat: r.Format.Name, Source: "STS", State: store.StateCreated, BlobKey: key,
		})
	})
}

// measure removes the background noise when asked and measures the recording's voice; a recording
// without enough voiced speech is a 422 naming the audio field.
func (s *Service) measure(ctx context.Context, r *Request, pcm engine.PCM) (engine.PCM, *voiceprint.Print, error) {
	if r.RemoveNoise && s.Isolator != nil {
		clean := make([]int16, 0, len(pcm.Samples))
		if err := s.Isolator.IsolateStream(ctx, pcm, func(p []int16) error { clean = append(clean, p...); return nil }); err != nil {
			return pcm, nil, err
		}
		pcm.Samples = clean
	}
	src, err := s.Analyse(pcm)
	var e *errs.Error
	if errors.As(err, &e) && e.Kind == errs.Invalid || err == nil && src.F0Median <= 0 {
		var v errs.Validator
		v.Add("body", "audio", "value_error", fmt.Sprintf("The recording needs at least %g s of voiced speech to take another voice.", voiceprint.MinSpeechSeconds))
		return pcm, nil, v.Err()
	}
	return pcm, src, err
}

// run converts, watermarks and encodes.
func (s *Service) run(ctx context.Context, r *Request, vc *store.Voice, settings voice.Resolved, pcm engine.PCM, src *voiceprint.Print, res *Result) error {
	target, err := s.target(ctx, vc, settings)
	if err != nil {
		return err
	}
	out, err := s.Converter.Convert(ctx, pcm, src, target)
	if err != nil {
		return err
	}
	if s.Watermark != nil {
		if e, err := s.Watermark.NewEmbedderTo(out.SampleRate, r.Format.SampleRate); err == nil {
			e.Mark(out.Samples)
		}
	}
	enc, err := audio.Encode(ctx, out.Samples, out.SampleRate, r.Format)
	if err != nil {
		return err
	}
	res.PCM, res.Audio, res.Source, res.Target = out, enc, src, target.Print
	return nil
}

// Passage is what a premade voice says to be measured (Harvard sentences: every English phoneme).
const Passage = "The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background. " +
	"It's easy to tell the depth of a well. These days a chicken leg is a rare dish. " +
	"Rice is often served in round bowls. The juice of lemons makes fine punch."

// target is the voice to convert to. Its print is the stored voiceprint of a cloned or designed
// voice, or, for a premade voice, the print of the voice saying Passage with the request's prosody
// (measured once per voice and prosody). Its reference audio is that passage.
func (s *Service) target(ctx context.Context, vc *store.Voice, settings voice.Resolved) (convert.Target, error) {
	prosody := settings.Prosody(voice.Base(vc))
	prosody.Rate = 1 // the speaking rate does not move pitch or formants
	key := fmt.Sprintf("%s|%+v", vc.ID, prosody)
	t := convert.Target{VoiceID: vc.ID, Reference: func(ctx context.Context) (engine.PCM, error) { return s.reference(ctx, vc, prosody, key) }}
	if vc.Voiceprint != "" {
		var p voiceprint.Print
		if err := json.Unmarshal([]byte(vc.Voiceprint), &p); err == nil && p.F0Median > 0 {
			t.Print = &p
			return t, nil
		}
	}
	if p, ok := s.prints.Load(key); ok {
		t.Print = p.(*voiceprint.Print)
		return t, nil
	}
	ref, err := s.reference(ctx, vc, prosody, key)
	if err != nil {
		return t, err
	}
	if t.Print, err = s.Analyse(ref); err != nil {
		return t, err
	}
	s.prints.Store(key, t.Print)
	return t, nil
}

// reference is vc saying Passage (or its language's preview text) with prosody, made once per key.
func (s *Service) reference(ctx context.Context, vc *store.Voice, prosody engine.Prosody, key string) (engine.PCM, error) {
	if r, ok := s.refs.Load(key); ok {
		return r.(engine.PCM), nil
	}
	eng, ok := s.Engines[vc.Engine]
	if !ok {
		return engine.PCM{}, errs.Errorf(errs.Unavailable, "engine_unavailable", "The engine of voice %s is not available on this server.", vc.Name)
	}
	text := Passage
	if vc.Language != "en" && vc.Language != "" {
		text = voice.PreviewText(vc.Language)
	}
	syn, err := eng.Synthesize(ctx, engine.Request{Text: text, Voice: vc.EngineVoice, Language: vc.Language, Prosody: prosody})
	if err != nil {
		return engine.PCM{}, fmt.Errorf("synthesize the target voice: %w", err)
	}
	s.refs.Store(key, syn.Audio)
	return syn.Audio, nil
}

func (s *Service) refund(res *metering.Reservation) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = s.DB.InTx(ctx, func(tx *store.Tx) error {
		_, err := metering.Refund(ctx, tx, res, s.now())
		return err
	})
}

// title is what the history shows for a conversion: the uploaded file's name without extension.
func title(fileName string) string {
	name := fileName[strings.LastIndexAny(fileName, `/\`)+1:]
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		name = name[:i]
	}
	if name == "" {
		return "Speech to speech"
	}
	return name
}
