// Package speech is text to speech: request validation, charging, the sentence-by-sentence
// synthesis pipeline, encoding, history rows and audio, and the /v1/text-to-speech routes.
package tts

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"timbre/internal/access"
	"timbre/internal/audio"
	"timbre/internal/blob"
	"timbre/internal/engine"
	"timbre/internal/errs"
	"timbre/internal/metering"
	"timbre/internal/plan"
	"timbre/internal/pronunciation"
	"timbre/internal/store"
	"timbre/internal/textnorm"
	"timbre/internal/voice"
	"timbre/internal/watermark"
)

// Service synthesizes speech for workspaces.
type Service struct {
	DB      Store
	Blob    *blob.Store
	Voices  *voice.Service
	Engines map[string]engine.Synthesizer
	Slots   Slots
	Now     func() time.Time
	// OnSynth observes seconds of audio synthesized (metrics); may be nil.
	OnSynth func(engine string, audioSeconds float64)
	// Dictionaries resolves pronunciation dictionary locators; nil refuses them.
	Dictionaries interface {
		Resolve(ctx context.Context, c *access.Caller, locators []pronunciation.Locator) (*pronunciation.Applier, error)
	}
	// Watermark marks every sentence's audio at the engine's rate, before any resampling or
	// encoding, so that POST /v1/speech-classifier recognises this server's speech; nil leaves
	// the audio unmarked.
	Watermark *watermark.Watermark
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Body is the JSON body of the text-to-speech routes (every field of the API's schema).
type Body struct {
	Text                            string            `json:"text"`
	ModelID                         *string           `json:"model_id"`
	LanguageCode                    *string           `json:"language_code"`
	VoiceSettings                   *voice.Settings   `json:"voice_settings"`
	PronunciationDictionaryLocators []json.RawMessage `json:"pronunciation_dictionary_locators"`
	Seed                            *int64            `json:"seed"`
	PreviousText                    *string           `json:"previous_text"`
	NextText                        *string           `json:"next_text"`
	PreviousRequestIDs              []string          `json:"previous_request_ids"`
	NextRequestIDs                  []string          `json:"next_request_ids"`
	UsePVCAsIVC                     *bool             `json:"use_pvc_as_ivc"`
	ApplyTextNormalization          *string           `json:"apply_text_normalization"`
	ApplyLanguageTextNormalization  *bool             `json:"apply_language_text_normalization"`
}

// Job is a validated request, ready to charge and run.
type Job struct {
	WorkspaceID, UserID string
	APIKeyID            string // the key the request came with ("" for web sessions); charged too
	Voice               *store.Voice
	Model               Model
	Settings            voice.Resolved
	Prosody             engine.Prosody
	Language            string
	Seed                uint32 // the request's seed (0 when none): the engine's random choices
	Text                string // as sent
	Normalized          string // what the engine reads
	Mapping             []int  // byte of Normalized → byte of Text
	// Pronunciations are the phoneme rules' spans of Normalized.
	Pronunciations   []engine.Pronunciation
	Spans            []textnorm.Span
	Cost             int64
	Format           audio.Format
	Logging          bool
	Source           string
	RequestID        string
	HistoryID        string // set by Begin when logging
	CharFrom, CharTo int64
	tier             plan.Tier
	reservation      *metering.Reservation // held by Begin until Finish, Fail or settlePartial
}

// Prepare validates a request and resolves everything needed to run it; nothing is charged or stored.
func (s *Service) Prepare(ctx context.Context, c *access.Caller, voiceID string, b *Body, format audio.Format, logging bool) (*Job, error) {
	var v errs.Validator
	text := b.Text
	if strings.TrimSpace(text) == "" {
		v.Add("body", "text", "missing", "Field required: text must not be empty.")
	}
	if !utf8.ValidString(text) {
		v.Add("body", "text", "value_error", "Text must be valid UTF-8.")
	}
	modelID := DefaultModel
	if b.ModelID != nil && *b.ModelID != "" {
		modelID = *b.ModelID
	}
	model, ok := FindModel(modelID)
	if !ok {
		v.Add("body", "model_id", "value_error", fmt.Sprintf("Unknown model_id '%s'. GET /v1/models lists the models.", modelID))
	}
	b.VoiceSettings.Validate(&v, "voice_settings.")
	norm := "auto"
	if b.ApplyTextNormalization != nil {
		norm = *b.ApplyTextNormalization
		if norm != "auto" && norm != "on" && norm != "off" {
			v.Add("body", "apply_text_normalization", "enum", "Input should be 'auto', 'on' or 'off'.")
		}
	}
	if b.Seed != nil && (*b.Seed < 0 || *b.Seed > math.MaxUint32) {
		v.Add("body", "seed", "value_error", "Input should be between 0 and 4294967295.")
	}
	if len(b.PronunciationDictionaryLocators) > 3 {
		v.Add("body", "pronunciation_dictionary_locators", "too_long", "At most 3 pronunciation dictionaries per request.")
	}
	if len(b.PreviousRequestIDs) > 3 {
		v.Add("body", "previous_request_ids", "too_long", "At most 3 request ids.")
	}
	if len(b.NextRequestIDs) > 3 {
		v.Add("body", "next_request_ids", "too_long", "At most 3 request ids.")
	}
	lang := ""
	if b.LanguageCode != nil && *b.LanguageCode != "" {
		lang = strings.ToLower(*b.LanguageCode)
		if !knownLanguage(lang) {
			v.Add("body", "language_code", "value_error", fmt.Sprintf("Unsupported language_code '%s'.", *b.LanguageCode))
		}
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	var applier *pronunciation.Applier
	if len(b.PronunciationDictionaryLocators) > 0 {
		locs := make([]pronunciation.Locator, len(b.PronunciationDictionaryLocators))
		for i, raw := range b.PronunciationDictionaryLocators {
			if err := json.Unmarshal(raw, &locs[i]); err != nil {
				return nil, errs.Field("body", fmt.Sprintf("pronunciation_dictionary_locators.%d", i), "model_type",
					"A locator is an object with pronunciation_dictionary_id and, optionally, version_id.")
			}
		}
		if s.Dictionaries == nil {
			return nil, errs.Field("body", "pronunciation_dictionary_locators", "value_error", "This server has no pronunciation dictionaries.")
		}
		var err error
		if applier, err = s.Dictionaries.Resolve(ctx, c, locs); err != nil {
			return nil, err
		}
	}
	ws, err := s.DB.Workspace(ctx, c.WorkspaceID, s.now())
	if err != nil {
		return nil, err
	}
	tier := plan.Get(ws.Tier)
	chars := int64(utf8.RuneCountInString(text))
	if maxChars := int64(MaxCharsFor(tier, model)); chars > maxChars {
		return nil, errs.Errorf(errs.Invalid, "max_character_limit_exceeded",
			"The text is %d characters long; the limit for a request on the %s plan with %s is %d characters.", chars, tier.Name, model.Name, maxChars)
	}
	if need := audio.RequiresTier(format); need != "" && !plan.AtLeast(tier.ID, need) {
		return nil, errs.Errorf(errs.Forbidden, "only_for_"+need+"+",
			"The output format %s needs the %s plan or above.", format.Name, plan.Get(need).Name)
	}
	vc, err := s.Voices.Get(ctx, c.WorkspaceID, voiceID)
	if err != nil {
		return nil, err
	}
	if lang == "" {
		lang = vc.Language
	}
	if model.EnglishOnly && lang != "en" {
		return nil, errs.Errorf(errs.Invalid, "unsupported_language", "%s speaks English only; pick Eleven Multilingual v2 or Eleven Flash v2.5 for '%s'.", model.Name, lang)
	}
	if vc.Engine == "flite" && lang != "en" {
		return nil, errs.Errorf(errs.Invalid, "unsupported_language", "The voice %s speaks English only; pick a voice for '%s'.", vc.Name, lang)
	}
	stored, err := s.Voices.Settings(ctx, c.WorkspaceID, vc.ID)
	if err != nil {
		return nil, err
	}
	settings := b.VoiceSettings.Over(stored)
	j := &Job{
		WorkspaceID: c.WorkspaceID, UserID: c.UserID, APIKeyID: c.APIKeyID, Voice: vc, Model: model, Settings: settings,
		Prosody: settings.Prosody(voice.Base(vc)), Language: lang, Text: text, Format: format, Logging: logging,
		Source: "TTS", RequestID: store.NewID(), tier: tier,
		Cost: int64(math.Ceil(float64(chars) * model.CostFactor)),
	}
	if b.Seed != nil {
		j.Seed = uint32(*b.Seed)
	}
	// Pronunciation dictionaries first (their strings are what the user wrote), then
	// normalisation: "on" always; "auto" unless the fast profile is asked for; "off" never.
	applied := applier.Apply(text)
	var nmap []int
	if norm == "on" || (norm == "auto" && !model.Fast) {
		j.Normalized, nmap = textnorm.Normalize(applied.Text, lang)
	} else {
		j.Normalized, nmap = applied.Text, identity(len(applied.Text))
	}
	j.Mapping, j.Pronunciations = applied.Compose(nmap, len(text))
	j.Spans = textnorm.SplitSentences(j.Normalized)
	if model.Fast {
		j.Spans = splitFirstClause(j.Normalized, j.Spans)
	}
	return j, nil
}

// historyKey is where a logged job's audio is stored.
func historyKey(j *Job) string {
	return "history/" + j.WorkspaceID + "/" + j.HistoryID + "." + j.Format.Ext()
}

// historyAudio receives a logged job's audio as it is sent and streams it into the blob store,
// rather than keeping a copy of the whole audio in memory to store after the response. Nothing
// is stored under the key before Finish commits it; a failed job's audio is discarded (abort).
// A failing blob write does not fail the response, which the client is already receiving;
// Finish reports it.
type historyAudio struct {
	s   *Service
	ctx context.Context
	key string
	j   *Job
	w   *blob.Writer // opened by the first write
	err error        // the first blob error; later writes are dropped
}

// newHistoryAudio returns the history sink of a job, or nil when the job is not logged.
func (s *Service) newHistoryAudio(ctx context.Context, j *Job) *historyAudio {
	if !j.Logging {
		return nil
	}
	// A client that goes away after the last byte must not cost the item its audio.
	return &historyAudio{s: s, ctx: context.WithoutCancel(ctx), key: historyKey(j), j: j}
}

// Write implements io.Writer; it always reports success (see historyAudio).
func (h *historyAudio) Write(p []byte) (int, error) {
	if h.w == nil && h.err == nil {
		h.w, h.err = h.s.Blob.NewWriter(h.ctx, h.key, h.j.Format.ContentType())
	}
	if h.err == nil {
		_, h.err = h.w.Write(p)
	}
	return len(p), nil
}

// commit stores what was written (an empty object if nothing was).
func (h *historyAudio) commit() error {
	if h.w == nil && h.err == nil {
		h.w, h.err = h.s.Blob.NewWriter(h.ctx, h.key, h.j.Format.ContentType())
	}
	if h.err != nil {
		h.abort()
		return h.err
	}
	return h.w.Close()
}

// abort discards what was written; nil-safe.
func (h *historyAudio) abort() {
	if h != nil && h.w != nil {
		h.w.Abort()
		h.w = nil
	}
}

// Chunk is the audio of one sentence and its place in the texts.
type Chunk struct {
	PCM        []int16
	Rate       int
	Start      float64 // seconds from the start of the whole audio
	Duration   float64
	Normalized Alignment // the normalised text's characters covered by this chunk
	Original   Alignment // the original text's characters covered by this chunk

	normEnd, origEnd int // bytes of the normalised and original text covered up to the end of this chunk
}

// synthesis is a job's sentences being synthesized in order, in a goroutine that runs one
// sentence ahead of the consumer: while sentence n is boosted, aligned and emitted (encoded,
// sent, stored), the engine already makes sentence n+1 instead of waiting for the audio to go
// out. A job still has at most one synthesis at a time.
//
// It can start before the job is charged, so that the charge's transaction and the first
// sentence's synthesis overlap: until follow, ending the request does not interrupt the
// sentence in progress (interrupting an espeak-ng worker kills it, and a new one must start);
// stop drops it unread.
type synthesis struct {
	s       *Service
	j       *Job
	eng     engine.Synthesizer
	results chan synthResult // unbuffered: the engine is at most one sentence ahead
	done    chan struct{}    // closed by stop
	cancel  context.CancelFunc
	unlink  func() bool // undoes follow

	second        chan struct{} // closed when the engine may start on the second sentence
	releaseSecond func()        // closes second (once)

	mark     *watermark.Embedder // the job's one embedder: the mark runs on across sentences
	markRate int                 // the rate mark was made for
}

// secondHoldMax bounds how long an encoder's first bytes may hold back the second sentence
// (see startSynthesis): an encoder that needs more audio before it writes anything must not
// stall the stream.
const secondHoldMax = 20 * time.Millisecond

type synthResult struct {
	res *engine.Result
	err error
}

// startSynthesis starts synthesizing j's first sentence. With holdSecond, the second waits
// until releaseSecond is called: a stream encoded by ffmpeg calls it when its first bytes are
// out (or secondHoldMax after its first sentence went to the encoder). On two cores, the
// engine's work on the second sentence otherwise competes with ffmpeg setting up its encoder
// and coding the first frames, which delayed the first mp3 byte by ~1 ms. Formats encoded in Go
// write their first bytes at once and have nothing to wait for.
func (s *Service) startSynthesis(ctx context.Context, j *Job, holdSecond bool) (*synthesis, error) {
	eng, ok := s.Engines[j.Voice.Engine]
	if !ok {
		return nil, errs.Errorf(errs.Unavailable, "engine_unavailable", "The engine of voice %s is not available on this server.", j.Voice.Name)
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx)) // ended by follow's ctx, or stop
	sy := &synthesis{s: s, j: j, eng: eng, results: make(chan synthResult), done: make(chan struct{}),
		cancel: cancel, unlink: func() bool { return false }, second: make(chan struct{})}
	sy.releaseSecond = sync.OnceFunc(func() { close(sy.second) })
	if !holdSecond {
		sy.releaseSecond()
	}
	go func() {
		defer cancel()
		defer close(sy.results)
		for i, sp := range j.Spans {
			if i == 1 {
				select {
				case <-sy.second:
				case <-sy.done:
					return
				}
			}
			select {
			case <-sy.done:
				return
			default:
			}
			var r synthResult
			if r.err = ctx.Err(); r.err == nil {
				r.res, r.err = eng.Synthesize(ctx, engine.Request{Text: j.Normalized[sp.Start:sp.End], Voice: j.Voice.EngineVoice, Language: j.Language, Prosody: j.Prosody,
					Pronunciations: pronunciationsIn(j.Pronunciations, sp), Seed: j.Seed})
				if r.err != nil {
					r.err = fmt.Errorf("synthesize with %s: %w", eng.Name(), r.err)
				}
			}
			select {
			case sy.results <- r:
			case <-sy.done:
				return
			}
			if r.err != nil {
				return
			}
		}
	}()
	return sy, nil
}

// follow makes the synthesis end when ctx ends (the client went away): from now on the
// sentences are wanted.
func (sy *synthesis) follow(ctx context.Context) {
	sy.unlink = context.AfterFunc(ctx, sy.cancel)
}

// stop ends the synthesis without waiting: a sentence in progress finishes and is dropped
// (unless follow's context ended, which interrupts it).
func (sy *synthesis) stop() {
	sy.unlink()
	close(sy.done)
}

// each calls emit with every sentence in order; it returns the first error of the engine or emit.
func (sy *synthesis) each(emit func(Chunk) error) error {
	var t float64
	normDone, origDone := 0, 0
	i := 0
	for r := range sy.results {
		if r.err != nil {
			return r.err
		}
		c := sy.s.chunk(sy.eng.Name(), sy.j, i, r.res, t, normDone, origDone)
		sy.watermark(c)
		err := emit(c)
		r.res.Release() // emit keeps no reference to the samples
		if err != nil {
			return err
		}
		i++
		t += c.Duration
		normDone, origDone = c.normEnd, max(origDone, c.origEnd)
	}
	return nil
}

// watermark marks a chunk's audio in place (after the speaker boost, before resampling and
// encoding to the job's format, whose rate decides the mark's band). A rate the embedder does not support (not a multiple of 25 Hz in 8–48 kHz: no engine
// here makes one) leaves the audio unmarked rather than failing the request.
func (sy *synthesis) watermark(c Chunk) {
	if sy.s.Watermark == nil {
		return
	}
	if sy.mark == nil || sy.markRate != c.Rate {
		out := sy.j.Format.SampleRate // the rate the audio is delivered at: it decides the mark's band
		if out == 0 {
			out = c.Rate
		}
		e, err := sy.s.Watermark.NewEmbedderTo(c.Rate, out)
		if err != nil {
			return
		}
		sy.mark, sy.markRate = e, c.Rate
	}
	sy.mark.Mark(c.PCM)
}

// chunk turns the engine's result for sentence i of the job, which starts t seconds into the
// audio, into a Chunk: the speaker boost, and the alignment of the texts' characters from
// normDone and origDone (bytes of the normalised and original text covered by the chunks before
// it) to its end.
func (s *Service) chunk(engineName string, j *Job, i int, res *engine.Result, t float64, normDone, origDone int) Chunk {
	sp := j.Spans[i]
	if j.Settings.UseSpeakerBoost {
		boost(res.Audio.Samples)
	}
	dur := res.Audio.Seconds()
	if s.OnSynth != nil {
		s.OnSynth(engineName, dur)
	}
	// This chunk covers the normalised text up to the end of the sentence (the last one to the
	// end of the text), so the chunks' characters add up to the whole text.
	normEnd := sp.End
	if i == len(j.Spans)-1 {
		normEnd = len(j.Normalized)
	}
	words := make([]textnorm.Word, 0, len(res.Words))
	for _, w := range res.Words {
		words = append(words, textnorm.Word{Offset: sp.Start - normDone + w.Offset, Length: w.Length, Start: t + w.Start, End: t + w.End})
	}
	normAl := charAlignment(j.Normalized[normDone:normEnd], words, t, t+dur)
	origEnd := len(j.Text)
	if i < len(j.Spans)-1 {
		origEnd = origOffset(j.Mapping, normEnd, len(j.Text))
	}
	origAl := mapAlignment(j.Text, origDone, origEnd, j.Mapping, normDone, normAl, t)
	return Chunk{PCM: res.Audio.Samples, Rate: res.Audio.SampleRate, Start: t, Duration: dur,
		Normalized: normAl, Original: origAl, normEnd: normEnd, origEnd: origEnd}
}

func identity(n int) []int {
	m := make([]int, n)
	for i := range m {
		m[i] = i
	}
	return m
}

func knownLanguage(code string) bool {
	for _, l := range Languages {
		if l.ID == code {
			return true
		}
	}
	return false
}

// splitFirstClause cuts the first sentence at its first clause boundary (, ; :) when that leaves
// a short piece, so a fast model's first audio is ready sooner.
func splitFirstClause(text string, spans []textnorm.Span) []textnorm.Span {
	if len(spans) == 0 {
		return spans
	}
	first := spans[0]
	for i := first.Start + 12; i < first.End-12 && i < first.Start+120; i++ {
		if c := text[i]; c == ',' || c == ';' || c == ':' {
			out := []textnorm.Span{{Start: first.Start, End: i + 1}, {Start: i + 1, End: first.End}}
			return append(out, spans[1:]...)
		}
	}
	return spans
}

// pronunciationsIn are the pronunciations inside a sentence, relative to its start.
func pronunciationsIn(all []engine.Pronunciation, sp textnorm.Span) []engine.Pronunciation {
	var out []engine.Pronunciation
	for _, p := range all {
		if p.Start >= sp.Start && p.End <= sp.End {
			out = append(out, engine.Pronunciation{Start: p.Start - sp.Start, End: p.End - sp.Start, Phones: p.Phones})
		}
	}
	return out
}
