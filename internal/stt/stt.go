// Package stt is speech to text: request validation, charging audio seconds through the
// metering ledger, running a recognizer (the embedded pocketsphinx, or a whisper server through
// the OpenAI adapter), shaping the transcript as the API returns it (words, spacing, characters,
// exports) and keeping it for GET /v1/speech-to-text/transcripts/{id}.
package stt

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"timbre/internal/access"
	"timbre/internal/blob"
	"timbre/internal/engine"
	"timbre/internal/errs"
	"timbre/internal/listen"
	"timbre/internal/metering"
	"timbre/internal/plan"
	"timbre/internal/store"
)

// Store is what speech to text needs of the database.
type Store interface {
	Workspace(ctx context.Context, id string, now time.Time) (*store.Workspace, error)
	InTx(ctx context.Context, fn func(tx *store.Tx) error) error
	Transcript(ctx context.Context, workspaceID, id string) (*store.Transcript, error)
	DeleteTranscript(ctx context.Context, workspaceID, id string) error
	ListTranscripts(ctx context.Context, workspaceID string, after *store.TranscriptCursor, limit int) ([]store.Transcript, bool, error)
	EditTranscript(ctx context.Context, workspaceID, id, editedResult, speakerNames, preview string, at int64) error
	LedgerProgress(ctx context.Context, workspaceID, id string, units, credits int64, now time.Time) error
	ActiveWebhooksFor(ctx context.Context, workspaceID, event string) ([]store.Webhook, error)
	Webhook(ctx context.Context, workspaceID, id string) (*store.Webhook, error)
	VoicePrints(ctx context.Context, workspaceID string) ([]store.Voice, error)
}

// Service transcribes audio for workspaces.
type Service struct {
	DB          Store
	Recognizers []engine.Recognizer // the first that covers a language transcribes it
	// Blob keeps the audio of logged transcripts (for the web app's player) and that of
	// asynchronous requests until their job has run; nil keeps none.
	Blob Blobs
	// Webhooks delivers asynchronous transcripts.
	Webhooks Webhooks
	Now      func() time.Time
	jobs     atomic.Pointer[Queue]
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Models are the speech-to-text model ids Timbre accepts: ElevenLabs' Scribe ids map to the
// configured recognizers, as does Timbre's own id.
var Models = []string{"scribe_v1", "scribe_v2", "timbre_stt_v1"}

// Request is one transcription, validated (see Parse).
type Request struct {
	ModelID      string
	LanguageCode string // as the caller gave it; "" = detect
	Audio        []byte `json:"-"`
	FileName     string
	RawPCM       bool // file_format=pcm_s16le_16: Audio is 16-bit little-endian mono PCM at 16 kHz

	Granularity    string // none, word or character
	TagAudioEvents bool
	Diarize        bool
	NumSpeakers    int     // 0 = unknown
	Threshold      float64 // diarization_threshold; 0 = default
	Keyterms       []string
	Temperature    *float64
	Seed           *int64
	MultiChannel   bool   // use_multi_channel: one transcript per channel (see Multichannel)
	ChannelStyle   string // multichannel_output_style: StyleSeparate (default) or StyleCombined
	Exports        []ExportOptions
	// SpeakerRoles (detect_speaker_roles, with Diarize) names the speakers 'agent' and
	// 'customer' instead of speaker_0, speaker_1, … (see SpeakerRoles).
	SpeakerRoles bool
	// SpeakerLibrary (use_speaker_library, with Diarize) names speakers found in the workspace's
	// speaker library by their voice id (see matchSpeakers); library is loaded when the job runs.
	SpeakerLibrary bool
	library        []librarySpeaker
	// EntityDetection and EntityRedaction are the entity types to find and to redact (see
	// package entities); RedactionMode is entity_redaction_mode.
	EntityDetection []string
	EntityRedaction []string
	RedactionMode   string
	Logging         bool   // keep the transcript (enable_logging)
	WebhookMeta     string // webhook_metadata, JSON
	Webhook         bool   // deliver through the workspace's speech-to-text webhooks, not in the response
	WebhookID       string // … only to this webhook
}

// errAudio is the 422 for audio that cannot be transcribed, naming the field it came from.
func errAudio(field, msg string) error {
	var v errs.Validator
	v.Add("body", field, "value_error", msg)
	return v.Err()
}

// Transcribe decodes r's audio, charges its seconds, recognizes it and returns the transcript
// (stored when r.Logging); with r.MultiChannel, audio of several channels gives one transcript
// per channel. Nothing is charged or stored when the audio cannot be decoded; a recognizer
// failure refunds the charge and leaves no transcript. (Start is the asynchronous form.)
func (s *Service) Transcribe(ctx context.Context, c *access.Caller, r *Request) (*Result, error) {
	j, err := s.begin(ctx, c, r)
	if err != nil {
		return nil, err
	}
	return s.run(ctx, j)
}

// job is a charged transcription: what run needs to make and settle it.
type job struct {
	WorkspaceID  string
	TranscriptID string
	Reservation  metering.Reservation
	Seconds      float64 // the audio's duration (of each channel)
	Channels     int     // transcribed apart (use_multi_channel); 0 or 1 = one
	Cost         int64
	AudioKey     string       // the kept upload of a logged transcript ("" = none)
	Request      Request      // without its audio (see Request.Audio)
	audio        []engine.PCM // one per channel, at engine.RecognitionRate
}

// begin validates and decodes r and charges for it: the reservation, the transcript row (when
// logged or asynchronous) and, for r.Webhook, the stored audio and the queued job, all or nothing.
func (s *Service) begin(ctx context.Context, c *access.Caller, r *Request) (*job, error) {
	if _, err := s.recognizer(r.LanguageCode); err != nil {
		return nil, err
	}
	if r.Webhook {
		if err := s.checkWebhooks(ctx, c.WorkspaceID, r.WebhookID); err != nil {
			return nil, err
		}
	}
	chans, err := s.decode(ctx, r)
	if err != nil {
		return nil, err
	}
	ws, err := s.DB.Workspace(ctx, c.WorkspaceID, s.now())
	if err != nil {
		return nil, err
	}
	tier := plan.Get(ws.Tier)
	j := &job{WorkspaceID: c.WorkspaceID, TranscriptID: store.NewID(), Seconds: chans[0].Seconds(), Channels: len(chans), Request: *r, audio: chans}
	j.Request.Audio = nil
	// Each channel is billed at the audio's full duration, as ElevenLabs bills use_multi_channel
	// ("cost scales linearly with the number of channels"); one channel costs what it always did.
	base := plan.STTCredits(tier, j.Seconds) * int64(j.channels())
	j.Cost = base + entitySurcharge(base, r) + roleSurcharge(base, r)
	var audioType string
	if r.Logging && s.Blob != nil {
		if j.AudioKey, audioType, err = s.keepAudio(ctx, c.WorkspaceID, j.TranscriptID, r); err != nil {
			return nil, err
		}
	}
	if r.Webhook {
		if err := s.storePCM(ctx, j); err != nil {
			s.dropAudio(j.AudioKey)
			return nil, err
		}
	}
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		res, err := metering.ReserveAudio(ctx, tx, metering.Charge{
			WorkspaceID: c.WorkspaceID, UserID: c.UserID, APIKeyID: c.APIKeyID, ModelID: r.ModelID,
			Product: metering.STT, Credits: j.Cost, Allowance: tier.CharacterLimit,
		}, j.Seconds, j.channels(), s.now())
		if err != nil {
			return err
		}
		j.Reservation = *res
		if !r.Logging && !r.Webhook {
			return nil
		}
		err = tx.InsertTranscript(ctx, &store.Transcript{
			ID: j.TranscriptID, WorkspaceID: c.WorkspaceID, UserID: c.UserID, APIKeyID: c.APIKeyID, ModelID: r.ModelID,
			LanguageCode: r.LanguageCode, FileName: r.FileName, State: store.TranscriptProcessing, DurationSecs: j.Seconds,
			WebhookMetadata: r.WebhookMeta, CreatedAt: s.now().Unix(), AudioKey: j.AudioKey, AudioContentType: audioType,
		})
		if err != nil || !r.Webhook {
			return err
		}
		return s.enqueue(ctx, tx, j)
	})
	if err != nil {
		s.dropAudio(j.AudioKey)
		if r.Webhook {
			s.dropPCM(j)
		}
		return nil, err
	}
	return j, nil
}

// units is the job's audio in whole seconds (rounded up) times its channels, as the ledger
// counts it.
func (j *job) units() int64 { return metering.AudioUnits(j.Seconds, j.channels()) }

// channels is how many channels the job transcribes apart (at least one).
func (j *job) channels() int { return max(1, j.Channels) }

// recognizer picks the engine for a language; an unknown language is a 422 naming language_code.
func (s *Service) recognizer(language string) (engine.Recognizer, error) {
	rec, err := engine.ChooseRecognizer(s.Recognizers, language)
	if errors.Is(err, engine.ErrUnsupportedLanguage) {
		return nil, errAudio("language_code", err.Error())
	}
	if err != nil {
		return nil, errs.Errorf(errs.Unavailable, "stt_unavailable", "Speech to text is not available on this server: %v", err)
	}
	return rec, nil
}

// run recognizes a begun job's audio and settles it: committed and stored on success, refunded
// and marked failed otherwise.
func (s *Service) run(ctx context.Context, j *job) (*Result, error) {
	r := &j.Request
	rec, err := s.recognizer(r.LanguageCode)
	if err == nil && r.SpeakerLibrary && r.Diarize {
		r.library, err = s.speakerLibrary(ctx, j.WorkspaceID)
	}
	var t *Result
	if err == nil {
		// Keep the reservation alive meanwhile (a long file takes minutes), so that it is not
		// settled as stale.
		stop := s.keepAlive(ctx, &j.Reservation)
		t, err = recognize(ctx, rec, j.audio, r)
		stop()
	}
	if err != nil {
		s.fail(j, err)
		s.dropAudio(j.AudioKey)
		var unsupported *engine.UnsupportedLanguageError
		if errors.As(err, &unsupported) {
			return nil, errAudio("language_code", err.Error())
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var de *errs.Error
		if errors.As(err, &de) {
			return nil, err
		}
		return nil, errs.Errorf(errs.Upstream, "transcription_failed", "The speech recognizer failed: %v", err)
	}
	t.setID(j.TranscriptID)
	if err := s.finish(ctx, j, t); err != nil {
		return nil, err
	}
	return t, nil
}

// recognize runs the recognizer on each channel (one, unless r.MultiChannel found several; in
// parallel, as many at once as the recognizer's own pool lets through) and shapes the result
// as r asks.
func recognize(ctx context.Context, rec engine.Recognizer, chans []engine.PCM, r *Request) (*Result, error) {
	if len(chans) == 1 {
		t, err := transcribeChannel(ctx, rec, chans[0], r)
		if err != nil {
			return nil, err
		}
		if err := addExports(t, r); err != nil {
			return nil, err
		}
		return &Result{Transcript: t}, nil
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	ts := make([]Transcript, len(chans))
	var wg sync.WaitGroup
	for i, pcm := range chans {
		wg.Go(func() {
			t, err := transcribeChannel(ctx, rec, pcm, r)
			if err != nil {
				cancel(fmt.Errorf("channel %d: %w", i, err))
				return
			}
			markChannel(t, i)
			ts[i] = *t
		})
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	if r.ChannelStyle == StyleCombined {
		t := Combine(ts)
		if err := addExports(t, r); err != nil {
			return nil, err
		}
		return &Result{Transcript: t}, nil
	}
	m := &Multichannel{Transcripts: ts}
	for i := range ts {
		if err := addExports(&ts[i], r); err != nil {
			return nil, err
		}
		m.AudioDurationSecs += ts[i].AudioDurationSecs
	}
	m.AudioDurationSecs = round3(m.AudioDurationSecs)
	return &Result{Multichannel: m}, nil
}

// transcribeChannel recognizes one channel (mono audio) and shapes its transcript.
func transcribeChannel(ctx context.Context, rec engine.Recognizer, pcm engine.PCM, r *Request) (*Transcript, error) {
	tr, err := rec.Transcribe(ctx, pcm, engine.TranscribeOptions{Language: r.LanguageCode, Keyterms: r.Keyterms, Temperature: r.Temperature})
	if err != nil {
		return nil, err
	}
	heard, err := hear(pcm, r)
	if err != nil {
		return nil, err
	}
	t := Build(tr, r, heard)
	applySpeakerRoles(t, r) // on the words as heard, before redaction merges any
	applyEntities(t, r)
	return t, nil
}

// addExports renders the exports r asks for (additional_formats) of t into t.
func addExports(t *Transcript, r *Request) error {
	for _, o := range r.Exports {
		f, err := Export(t, o)
		if err != nil {
			return fmt.Errorf("export %s: %w", o.Format, err)
		}
		t.AdditionalFormats = append(t.AdditionalFormats, f)
	}
	return nil
}

// hear finds what r asks for beside the words: speaker turns (diarize) and audio events
// (tag_audio_events). pcm is at engine.RecognitionRate, the rate package listen works at.
func hear(pcm engine.PCM, r *Request) (Heard, error) {
	var h Heard
	if r.Diarize {
		turns, err := listen.Diarize(pcm.Samples, listen.DiarizeOptions{NumSpeakers: r.NumSpeakers, Threshold: r.Threshold})
		if err != nil {
			return h, err
		}
		h.Turns = turns
		h.Names = matchSpeakers(pcm, turns, r.library)
	}
	if r.TagAudioEvents {
		h.Events = listen.AudioEvents(pcm.Samples)
	}
	return h, nil
}

// keepAlive touches the reservation's ledger entry until stop is called (metering.KeepAlive).
func (s *Service) keepAlive(ctx context.Context, res *metering.Reservation) (stop func()) {
	return metering.KeepAlive(ctx, s.DB, res, s.now)
}

// heartbeatEvery is how often a running transcription touches its ledger entry.
const heartbeatEvery = metering.HeartbeatEvery

// finish commits the charge and stores the finished transcript in one transaction.
func (s *Service) finish(ctx context.Context, j *job, t *Result) error {
	ctx = context.WithoutCancel(ctx) // the work is done: a client that left still pays for it
	r := &j.Request
	var result []byte
	if r.Logging || r.Webhook {
		var err error
		if result, err = json.Marshal(t); err != nil {
			return err
		}
	}
	return s.DB.InTx(ctx, func(tx *store.Tx) error {
		if _, err := metering.Commit(ctx, tx, &j.Reservation, j.units(), j.Cost, s.now()); err != nil {
			return err
		}
		if !r.Logging && !r.Webhook {
			return nil
		}
		one := t.Single()
		err := tx.FinishTranscript(ctx, j.WorkspaceID, j.TranscriptID, store.TranscriptCompleted, one.LanguageCode, string(result), "", s.now().Unix())
		if errors.Is(err, store.ErrNotFound) {
			return nil // deleted while it ran: the caller still gets it
		}
		if err != nil {
			return err
		}
		return tx.SetTranscriptPreview(ctx, j.WorkspaceID, j.TranscriptID, preview(one.Text))
	})
}

// fail refunds a transcription that produced nothing and marks its row failed.
func (s *Service) fail(j *job, cause error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = s.DB.InTx(ctx, func(tx *store.Tx) error {
		if _, err := metering.Refund(ctx, tx, &j.Reservation, s.now()); err != nil {
			return err
		}
		if !j.Request.Logging && !j.Request.Webhook {
			return nil
		}
		err := tx.FinishTranscript(ctx, j.WorkspaceID, j.TranscriptID, store.TranscriptFailed, "", "", cause.Error(), s.now().Unix())
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		return err
	})
}

// decode turns the request's audio into 16 kHz mono PCM: one channel, or with r.MultiChannel
// one per channel of the file (at most MaxChannels); undecodable or too short audio is a 422
// naming the file field.
func (s *Service) decode(ctx context.Context, r *Request) ([]engine.PCM, error) {
	if r.RawPCM { // raw PCM is mono: one transcript even with use_multi_channel
		if len(r.Audio)%2 != 0 {
			return nil, errAudio("file", "With file_format pcm_s16le_16 the file must be 16-bit samples (an even number of bytes).")
		}
		pcm := engine.PCM{Samples: make([]int16, len(r.Audio)/2), SampleRate: engine.RecognitionRate}
		for i := range pcm.Samples {
			pcm.Samples[i] = int16(uint16(r.Audio[2*i]) | uint16(r.Audio[2*i+1])<<8)
		}
		if pcm.Seconds() < engine.MinRecognitionSeconds {
			return nil, errAudio("file", fmt.Sprintf("The audio is %.0f ms long; at least 100 ms is needed.", 1000*pcm.Seconds()))
		}
		return []engine.PCM{pcm}, nil
	}
	var chans []engine.PCM
	var err error
	if r.MultiChannel {
		chans, err = engine.DecodeChannelsForRecognition(ctx, r.Audio)
	} else {
		var pcm engine.PCM
		pcm, err = engine.DecodeForRecognition(ctx, r.Audio)
		chans = []engine.PCM{pcm}
	}
	switch {
	case errors.Is(err, engine.ErrAudioTooShort):
		return nil, errAudio("file", "The audio is shorter than 100 ms.")
	case errors.Is(err, engine.ErrNotAudio):
		return nil, errAudio("file", "The file is not audio or video that can be decoded (or it is corrupt).")
	case err != nil:
		return nil, err
	case len(chans) > MaxChannels:
		return nil, errAudio("use_multi_channel", fmt.Sprintf("The audio has %d channels; use_multi_channel transcribes at most %d. Send it without use_multi_channel to transcribe the channels mixed together.", len(chans), MaxChannels))
	}
	return chans, nil
}

// Get returns a stored transcript of the caller's workspace: the finished transcript, or a 404
// while it is processing (ElevenLabs answers the same until it is ready) or when it failed.
func (s *Service) Get(ctx context.Context, c *access.Caller, id string) (*Result, error) {
	row, err := s.DB.Transcript(ctx, c.WorkspaceID, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errTranscriptNotFound
	}
	if err != nil {
		return nil, err
	}
	switch row.State {
	case store.TranscriptProcessing:
		return nil, errs.New(errs.NotFound, "transcript_processing", "The transcript is still being made; try again shortly.")
	case store.TranscriptFailed:
		return nil, errs.Errorf(errs.NotFound, "transcript_failed", "The transcription failed: %s", row.Error)
	}
	var t Result
	if err := json.Unmarshal([]byte(row.Result), &t); err != nil {
		return nil, err
	}
	return &t, nil
}

// Delete removes a stored transcript of the caller's workspace, and its audio.
func (s *Service) Delete(ctx context.Context, c *access.Caller, id string) error {
	row, err := s.DB.Transcript(ctx, c.WorkspaceID, id)
	if err == nil {
		err = s.DB.DeleteTranscript(ctx, c.WorkspaceID, id)
	}
	if errors.Is(err, store.ErrNotFound) {
		return errTranscriptNotFound
	}
	if err != nil {
		return err
	}
	if row.AudioKey != "" && s.Blob != nil {
		if err := s.Blob.Delete(ctx, row.AudioKey); err != nil && !errors.Is(err, blob.ErrNotFound) {
			return err
		}
	}
	return nil
}

var errTranscriptNotFound = errs.New(errs.NotFound, "not_found_error", "Transcript not found.")
