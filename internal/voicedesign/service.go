package voicedesign

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"
	"unicode/utf8"

	"timbre/internal/access"
	"timbre/internal/account"
	"timbre/internal/audio"
	"timbre/internal/engine"
	"timbre/internal/errs"
	"timbre/internal/metering"
	"timbre/internal/plan"
	"timbre/internal/store"
	"timbre/internal/textnorm"
	"timbre/internal/voice"
	"timbre/internal/voiceprint"
	"timbre/internal/watermark"
)

// Store is what voice design needs of the database (*store.DB has it all).
type Store interface {
	account.ChecklistWriter
	InTx(ctx context.Context, fn func(tx *store.Tx) error) error
	Workspace(ctx context.Context, id string, now time.Time) (*store.Workspace, error)
	VoicePreview(ctx context.Context, workspaceID, id string, nowUnix int64) (*store.VoicePreview, error)
}

var _ Store = (*store.DB)(nil)

// Service designs and remixes voices.
type Service struct {
	DB      Store
	Voices  *voice.Service
	Engines map[string]engine.Synthesizer
	// Watermark marks preview audio like all speech this server makes; nil leaves it unmarked.
	Watermark *watermark.Watermark
	Now       func() time.Time
}

// PreviewTTL is how long a preview can be streamed or saved.
const PreviewTTL = 24 * time.Hour

// PreviewCount is how many previews a design or remix returns.
const PreviewCount = 3

// Description lengths (the reference's bounds; a remix may be as short as "older").
const (
	MaxDescription       = 1000
	MinDescription       = 20
	MinRemixDescription  = 5
	MinText, MaxText     = 100, 1000
	DefaultGuidance      = 5.0
	DefaultRemixGuidance = 2.0
	DefaultLoudness      = 0.5
	// DefaultPromptStrength weighs a reference recording and the description equally.
	DefaultPromptStrength = 0.5
)

// Request is a validated design or remix.
type Request struct {
	Description    string
	Text           string // empty: generate one for the description
	Loudness       float64
	Seed           *int64
	Guidance       float64
	StreamPreviews bool // previews without audio: the client streams each one
	Format         audio.Format
	// Reference is a recording (any audio format) the voice should sound like, weighed against
	// the description by PromptStrength (0: the recording, 1: the description).
	Reference      []byte
	PromptStrength float64
}

// Preview is one generated voice (the API's VoicePreviewResponseModel).
type Preview struct {
	AudioBase64      string  `json:"audio_base_64"`
	GeneratedVoiceID string  `json:"generated_voice_id"`
	MediaType        string  `json:"media_type"`
	DurationSecs     float64 `json:"duration_secs"`
	Language         *string `json:"language"`
}

// Previews is the answer of design, create-previews and remix (VoicePreviewsResponseModel).
type Previews struct {
	Previews []Preview `json:"previews"`
	Text     string    `json:"text"`
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Design makes previews of a described voice.
func (s *Service) Design(ctx context.Context, c *access.Caller, req Request) (*Previews, error) {
	_, hasFlite := s.Engines["flite"]
	centre := Design(Parse(req.Description), hasFlite)
	if len(req.Reference) > 0 {
		fit, err := s.fitReference(ctx, req.Reference)
		if err != nil {
			return nil, err
		}
		centre = WithReference(centre, fit, req.PromptStrength)
	}
	return s.previews(ctx, c, req, "", centre)
}

// fitReference measures a reference recording's speaker and fits a parametric voice to it, as
// instant cloning does.
func (s *Service) fitReference(ctx context.Context, data []byte) (voiceprint.Fit, error) {
	bad := func(why string) error {
		var v errs.Validator
		v.Add("body", "reference_audio_base64", "value_error", "The reference audio "+why)
		return v.Err()
	}
	cl := s.Voices.Cloner
	if cl == nil {
		return voiceprint.Fit{}, voice.ErrCloningUnavailable
	}
	samples, rate, err := audio.Decode(ctx, data)
	if err != nil {
		if ctx.Err() != nil {
			return voiceprint.Fit{}, ctx.Err()
		}
		return voiceprint.Fit{}, bad("is not audio that can be decoded (or it is corrupt).")
	}
	pcm := engine.PCM{Samples: samples, SampleRate: rate}
	if pcm.SampleRate > 48000 {
		pcm = engine.PCM{Samples: audio.Resample(pcm.Samples, pcm.SampleRate, 48000), SampleRate: 48000}
	}
	pr, err := cl.Analyse(pcm)
	if err != nil || pr == nil || pr.SpeechSeconds < voice.MinSpeechSeconds || pr.F0Median <= 0 {
		return voiceprint.Fit{}, bad("holds no speech that can be measured; send a recording of someone speaking.")
	}
	return cl.Fit(ctx, pr)
}

// Remix makes previews of a voice of the workspace (or a premade one) moved by a description.
func (s *Service) Remix(ctx context.Context, c *access.Caller, voiceID string, req Request) (*Previews, error) {
	v, err := s.Voices.Get(ctx, c.WorkspaceID, voiceID)
	if err != nil {
		return nil, err
	}
	if v.Language != "en" {
		return nil, errs.Errorf(errs.Invalid, "unsupported_language", "Voice '%s' speaks '%s'; voice remixing shapes English voices only.", v.ID, v.Language)
	}
	labels := map[string]string{}
	_ = json.Unmarshal([]byte(v.Labels), &labels)
	_, hasFlite := s.Engines["flite"]
	cur := FromVoice(v.Engine, v.EngineVoice, v.Language, voice.Base(v), labels)
	return s.previews(ctx, c, req, v.ID, Remix(cur, Parse(req.Description), hasFlite))
}

// previews synthesises the variations of centre, then charges for the text and stores the
// previews in one transaction: nothing is charged or stored when synthesis fails.
func (s *Service) previews(ctx context.Context, c *access.Caller, req Request, sourceVoiceID string, centre Params) (*Previews, error) {
	ws, err := s.DB.Workspace(ctx, c.WorkspaceID, s.now())
	if err != nil {
		return nil, err
	}
	text := req.Text
	if text == "" {
		text = SampleText(centre)
	}
	seed := uint64(rand.Uint32())
	if req.Seed != nil {
		seed = uint64(*req.Seed)
	}
	out := &Previews{Text: text, Previews: make([]Preview, 0, PreviewCount)}
	rows := make([]store.VoicePreview, 0, PreviewCount)
	now := s.now()
	for _, p := range Variations(centre, seed, req.Guidance, PreviewCount) {
		p.Loudness = req.Loudness
		data, secs, err := s.Render(ctx, p, text, req.Loudness, req.Format)
		if err != nil {
			return nil, err
		}
		params, _ := json.Marshal(p)
		id := store.NewID()
		rows = append(rows, store.VoicePreview{ID: id, WorkspaceID: c.WorkspaceID, UserID: c.UserID, SourceVoiceID: sourceVoiceID,
			Description: req.Description, Params: string(params), Text: text, Language: p.Language,
			CreatedAt: now.Unix(), ExpiresAt: now.Add(PreviewTTL).Unix()})
		lang := p.Language
		pv := Preview{GeneratedVoiceID: id, MediaType: req.Format.ContentType(), DurationSecs: math.Round(secs*1000) / 1000, Language: &lang}
		if !req.StreamPreviews {
			pv.AudioBase64 = base64.StdEncoding.EncodeToString(data)
		}
		out.Previews = append(out.Previews, pv)
	}
	// Previews are charged as text to speech of their text (once per request, as ElevenLabs does).
	chars := int64(utf8.RuneCountInString(text))
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		r, err := metering.Reserve(ctx, tx, metering.Charge{
			WorkspaceID: c.WorkspaceID, UserID: c.UserID, APIKeyID: c.APIKeyID, VoiceID: sourceVoiceID, ModelID: "eleven_multilingual_ttv_v2",
			Product: metering.VoiceDesign, Kind: metering.Characters, Units: chars, Credits: chars, Allowance: plan.Get(ws.Tier).CharacterLimit,
		}, now)
		if err != nil {
			return metering.QuotaAPIError(err)
		}
		if _, err := metering.Commit(ctx, tx, r, chars, chars, now); err != nil {
			return err
		}
		for i := range rows {
			if err := tx.InsertVoicePreview(ctx, &rows[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Render speaks text with a designed voice: sentence by sentence, at the described loudness,
// watermarked, encoded in format. It returns the audio and its length in seconds.
func (s *Service) Render(ctx context.Context, p Params, text string, loudness float64, format audio.Format) ([]byte, float64, error) {
	pcm, err := s.speak(ctx, p, text, loudness)
	if err != nil {
		return nil, 0, err
	}
	if s.Watermark != nil {
		if e, err := s.Watermark.NewEmbedderTo(pcm.SampleRate, format.SampleRate); err == nil {
			e.Mark(pcm.Samples)
		}
	}
	data, err := audio.Encode(ctx, pcm.Samples, pcm.SampleRate, format)
	if err != nil {
		return nil, 0, err
	}
	return data, pcm.Seconds(), nil
}

// speak is Render before marking and encoding.
func (s *Service) speak(ctx context.Context, p Params, text string, loudness float64) (engine.PCM, error) {
	var pcm engine.PCM
	eng, ok := s.Engines[p.Engine]
	if !ok {
		return pcm, errs.Errorf(errs.Unavailable, "engine_unavailable", "The %s engine is not available on this server.", p.Engine)
	}
	norm, _ := textnorm.Normalize(text, p.Language)
	prosody := voice.Defaults.Prosody(p.Base()) // what text to speech will do with the saved voice
	for _, sp := range textnorm.SplitSentences(norm) {
		res, err := eng.Synthesize(ctx, engine.Request{Text: norm[sp.Start:sp.End], Voice: p.EngineVoice, Language: p.Language, Prosody: prosody})
		if err != nil {
			return pcm, fmt.Errorf("synthesize with %s: %w", eng.Name(), err)
		}
		if pcm.SampleRate == 0 {
			pcm.SampleRate = res.Audio.SampleRate
		}
		if res.Audio.SampleRate != pcm.SampleRate {
			return pcm, errors.New("voicedesign: the engine changed sample rate between sentences")
		}
		pcm.Samples = append(pcm.Samples, res.Audio.Samples...)
	}
	Loudness(pcm.Samples, loudness)
	return pcm, nil
}

// Loudness sets the peak level by the API's loudness (−1…1): 1 is −1 dBFS, the default 0.5 is
// −6 dBFS, −1 is −21 dBFS (10 dB for each half step), with at most 18 dB of gain.
func Loudness(samples []int16, loudness float64) {
	peak := 0
	for _, v := range samples {
		peak = max(peak, int(v), -int(v))
	}
	if peak < 64 {
		return // silence stays silence
	}
	target := math.Pow(10, (-1+(loudness-1)*10)/20) * 32767
	gain := math.Min(target/float64(peak), 8)
	for i, v := range samples {
		samples[i] = int16(math.Round(float64(v) * gain))
	}
}

// Stream is a stored preview's audio (mp3), made again from its parameters: the same audio the
// design returned, without keeping audio for previews nobody plays.
func (s *Service) Stream(ctx context.Context, c *access.Caller, id string, format audio.Format) ([]byte, error) {
	pv, p, err := s.preview(ctx, c, id)
	if err != nil {
		return nil, err
	}
	data, _, err := s.Render(ctx, p, pv.Text, p.Loudness, format)
	return data, err
}

func (s *Service) preview(ctx context.Context, c *access.Caller, id string) (*store.VoicePreview, Params, error) {
	var p Params
	pv, err := s.DB.VoicePreview(ctx, c.WorkspaceID, id, s.now().Unix())
	if errors.Is(err, store.ErrNotFound) {
		return nil, p, errs.Errorf(errs.NotFound, "generated_voice_not_found",
			"No voice preview with generated_voice_id '%s' (previews can be used for a day after they are made).", id)
	}
	if err != nil {
		return nil, p, err
	}
	if err := json.Unmarshal([]byte(pv.Params), &p); err != nil {
		return nil, p, fmt.Errorf("voice preview %s: %w", id, err)
	}
	return pv, p, nil
}

// SaveRequest saves a preview as a voice (POST /v1/text-to-voice).
type SaveRequest struct {
	Name, Description, GeneratedVoiceID string
	Labels                              map[string]string
}

// Save adds a preview as a workspace voice (category "generated"); the plan's voice limit is
// counted in the same transaction, so concurrent saves cannot pass it.
func (s *Service) Save(ctx context.Context, c *access.Caller, req SaveRequest) (*store.Voice, error) {
	pv, p, err := s.preview(ctx, c, req.GeneratedVoiceID)
	if err != nil {
		return nil, err
	}
	// The saved voice carries the voiceprint of its preview's speech, as cloned voices carry
	// their samples', so similar-voice search can rank it. A preview with no voiced speech to
	// measure (a whispering variant) is saved without one.
	printJSON := ""
	if pcm, err := s.speak(ctx, p, pv.Text, p.Loudness); err != nil {
		return nil, err
	} else if vp, err := voiceprint.Analyse(pcm); err == nil {
		b, _ := json.Marshal(vp)
		printJSON = string(b)
	}
	ws, err := s.DB.Workspace(ctx, c.WorkspaceID, s.now())
	if err != nil {
		return nil, err
	}
	tier := plan.Get(ws.Tier)
	labels := map[string]string{"gender": p.Gender, "age": p.Age, "accent": p.Accent, "language": p.Language}
	if t := Parse(req.Description); len(t.Textures)+len(t.Moods) > 0 {
		labels["descriptive"] = strings.Join(append(t.Textures, t.Moods...), ", ")
	}
	for k, v := range req.Labels {
		labels[k] = v
	}
	for k, v := range labels {
		if v == "" {
			delete(labels, k)
		}
	}
	labelsJSON, _ := json.Marshal(labels)
	prosody, _ := json.Marshal(p.Base())
	v := store.Voice{ID: voice.NewVoiceID(), WorkspaceID: c.WorkspaceID, Name: req.Name, Category: "generated", Description: req.Description,
		Labels: string(labelsJSON), Engine: p.Engine, EngineVoice: p.EngineVoice, Language: p.Language, Prosody: string(prosody),
		CreatedAt: s.now().Unix(), CreatedBy: c.UserID, Voiceprint: printJSON}
	err = s.DB.InTx(ctx, func(tx *store.Tx) error {
		if err := voice.TakeSlot(ctx, tx, c.WorkspaceID, tier, s.now()); err != nil {
			return err
		}
		return tx.CreateVoice(ctx, v)
	})
	if err != nil {
		return nil, err
	}
	account.CompleteItem(ctx, s.DB, c.UserID, account.ItemDesignVoice) // onboarding checklist
	return &v, nil
}

// SampleText is the text a preview reads when none is given: it says what the voice was
// described as, at least MinText characters long.
func SampleText(p Params) string {
	var who []string
	if p.Age != "" {
		who = append(who, strings.ReplaceAll(p.Age, "_", "-"))
	}
	if p.Accent != "" {
		who = append(who, upperFirst(p.Accent))
	}
	noun := "voice"
	switch p.Gender {
	case "male":
		noun = "man's voice"
	case "female":
		noun = "woman's voice"
	}
	if p.Age == "child" {
		noun = "voice"
	}
	desc := strings.Join(append(who, noun), " ")
	article := "a "
	if strings.ContainsRune("aeiou", rune(desc[0])) {
		article = "an "
	}
	return "Hello! This is " + article + desc + ", designed from a short description. " +
		"I can read your stories, lessons and messages aloud, at my own pace and pitch. How do I sound to you?"
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
