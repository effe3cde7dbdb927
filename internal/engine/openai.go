package engine

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"
)

// OpenAIConfig configures a synthesizer backed by any server that speaks OpenAI's
// POST /v1/audio/speech (OpenAI itself, Kokoro-FastAPI, speaches, LocalAI, …).
type OpenAIConfig struct {
	// BaseURL is the server's address, with or without the "/v1" suffix OpenAI clients use:
	// "http://kokoro:8880" and "http://kokoro:8880/v1" both post to .../v1/audio/speech.
	BaseURL string
	APIKey  string   // sent as a bearer token when set
	Model   string   // "tts-1", "kokoro", …
	Voices  []string // the server's voice names; empty accepts any name and lists none
	// Languages are reported for every voice in Voices (the protocol has no way to ask).
	Languages []string
	// Format is the response_format requested: "wav" (default; the header carries the sample
	// rate) or "pcm" (raw s16le mono, PCMSampleRate Hz).
	Format        string
	PCMSampleRate int    // default 24000, OpenAI's rate for "pcm"
	Name          string // the Synthesizer's name; default "openai"
	// VoiceIDs: voice names are the server's custom-voice ids, sent as {"id": …} (OpenAI's
	// custom voices; see OpenAICloner) instead of a plain name.
	VoiceIDs   bool
	HTTPClient *http.Client
}

// OpenAI is a Synthesizer that calls an OpenAI-compatible speech server. The protocol returns no
// timings, so word marks are estimates (see estimateWordMarks).
type OpenAI struct {
	cfg    OpenAIConfig
	server openAIServer
}

// NewOpenAI checks cfg and fills in its defaults.
func NewOpenAI(cfg OpenAIConfig) (*OpenAI, error) {
	if cfg.BaseURL == "" {
		return nil, errors.New("openai: BaseURL is required")
	}
	switch cfg.Format {
	case "":
		cfg.Format = "wav"
	case "wav", "pcm":
	default:
		return nil, fmt.Errorf("openai: unsupported response format %q (want wav or pcm)", cfg.Format)
	}
	if cfg.PCMSampleRate == 0 {
		cfg.PCMSampleRate = 24000
	}
	if cfg.Name == "" {
		cfg.Name = "openai"
	}
	return &OpenAI{cfg: cfg, server: newOpenAIServer(cfg.Name, cfg.BaseURL, cfg.APIKey, "/audio/speech", cfg.HTTPClient)}, nil
}

var _ Synthesizer = (*OpenAI)(nil)

// Name implements Synthesizer.
func (o *OpenAI) Name() string { return o.cfg.Name }

// Voices implements Synthesizer: the configured voices.
func (o *OpenAI) Voices(context.Context) ([]VoiceInfo, error) {
	out := make([]VoiceInfo, len(o.cfg.Voices))
	for i, v := range o.cfg.Voices {
		out[i] = VoiceInfo{Name: v, Languages: slices.Clone(o.cfg.Languages)}
	}
	return out, nil
}

// openAISpeechRequest is the body of POST /v1/audio/speech.
type openAISpeechRequest struct {
	Model          string  `json:"model"`
	Input          string  `json:"input"`
	Voice          any     `json:"voice"` // a name, or {"id": …} for a custom voice
	ResponseFormat string  `json:"response_format"`
	Speed          float64 `json:"speed"`
}

// Synthesize implements Synthesizer. Prosody.Rate becomes the request's speed; the protocol has
// no pitch controls, so Pitch and PitchRange are ignored.
func (o *OpenAI) Synthesize(ctx context.Context, req Request) (*Result, error) {
	voice := req.Voice
	switch {
	case voice == "" && o.cfg.VoiceIDs:
		return nil, fmt.Errorf("%w: %s needs a custom voice id", ErrUnknownVoice, o.cfg.Name)
	case voice == "" && len(o.cfg.Voices) > 0:
		voice = o.cfg.Voices[0]
	case voice == "":
		voice = "alloy"
	case len(o.cfg.Voices) > 0 && !slices.Contains(o.cfg.Voices, voice):
		return nil, fmt.Errorf("%w: %s voice %q", ErrUnknownVoice, o.cfg.Name, voice)
	}
	var voiceField any = voice
	if o.cfg.VoiceIDs {
		voiceField = map[string]string{"id": voice}
	}
	body, err := json.Marshal(openAISpeechRequest{
		Model: o.cfg.Model, Input: req.Text, Voice: voiceField, ResponseFormat: o.cfg.Format,
		Speed: math.Round(min(max(req.Prosody.normalized().Rate, 0.25), 4)*100) / 100, // OpenAI's range
	})
	if err != nil {
		return nil, err
	}
	resp, data, err := o.server.post(ctx, "application/json", "", bytes.NewReader(body), 0, "audio")
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		msg := strings.TrimSpace(string(data[:min(len(data), 512)]))
		return nil, fmt.Errorf("%s: server answered %s: %s", o.cfg.Name, resp.Status, msg)
	}

	var pcm PCM
	if o.cfg.Format == "pcm" {
		pcm = PCM{Samples: s16le(data), SampleRate: o.cfg.PCMSampleRate}
	} else if pcm, err = parseWAV(data); err != nil {
		return nil, fmt.Errorf("%s: %w", o.cfg.Name, err)
	}
	return &Result{Audio: pcm, Words: estimateWordMarks(req.Text, pcm)}, nil
}

func s16le(b []byte) []int16 {
	s := make([]int16, len(b)/2)
	for i := range s {
		s[i] = int16(binary.LittleEndian.Uint16(b[2*i:]))
	}
	return s
}

// parseWAV decodes a RIFF WAVE file of 16-bit integer or 32-bit float samples, mixing channels
// down to mono. Streaming servers write 0 or 0xFFFFFFFF as the data size; then the data runs to
// the end of the file.
func parseWAV(b []byte) (PCM, error) {
	if len(b) < 12 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		return PCM{}, errors.New("response is not a WAV file")
	}
	var format, channels, bits int
	var rate int
	for off := 12; off+8 <= len(b); {
		id, size := string(b[off:off+4]), int(binary.LittleEndian.Uint32(b[off+4:]))
		body := b[off+8:]
		switch id {
		case "fmt ":
			if len(body) < 16 {
				return PCM{}, errors.New("WAV: short fmt chunk")
			}
			format = int(binary.LittleEndian.Uint16(body))
			channels = int(binary.LittleEndian.Uint16(body[2:]))
			rate = int(binary.LittleEndian.Uint32(body[4:]))
			bits = int(binary.LittleEndian.Uint16(body[14:]))
			if format == 0xFFFE && len(body) >= 26 { // WAVE_FORMAT_EXTENSIBLE: the subformat says
				format = int(binary.LittleEndian.Uint16(body[24:]))
			}
		case "data":
			if size == 0 || size > len(body) {
				size = len(body)
			}
			if channels < 1 || rate <= 0 {
				return PCM{}, errors.New("WAV: data before a valid fmt chunk")
			}
			var mono []float64
			switch {
			case format == 1 && bits == 16:
				for _, s := range s16le(body[:size]) {
					mono = append(mono, float64(s))
				}
			case format == 3 && bits == 32:
				for i := 0; i+4 <= size; i += 4 {
					mono = append(mono, float64(math.Float32frombits(binary.LittleEndian.Uint32(body[i:])))*32767)
				}
			default:
				return PCM{}, fmt.Errorf("WAV: unsupported format %d with %d bits", format, bits)
			}
			out := make([]int16, len(mono)/channels)
			for i := range out {
				var sum float64
				for c := range channels {
					sum += mono[i*channels+c]
				}
				out[i] = int16(max(min(math.Round(sum/float64(channels)), 32767), -32768))
			}
			return PCM{Samples: out, SampleRate: rate}, nil
		}
		off += 8 + size + size%2 // chunks are padded to even sizes
	}
	return PCM{}, errors.New("WAV: no data chunk")
}

// estimateWordMarks places the words of text in audio that came without timings: the audible
// part of the audio is shared among the words in proportion to their length in characters,
// with room for a pause after commas (2 characters' worth) and sentence ends (4).
func estimateWordMarks(text string, pcm PCM) []WordMark {
	words := splitWords(text)
	first, last := speechBounds(pcm.Samples)
	if len(words) == 0 || last <= first {
		return nil
	}
	units := make([]float64, len(words)) // each word's length, then the pause after it
	pauses := make([]float64, len(words))
	var total float64
	for i, w := range words {
		units[i] = float64(utf8.RuneCountInString(text[w.Start:w.End]))
		if i < len(words)-1 {
			pauses[i] = pauseAfter(text, w.End)
		}
		total += units[i] + pauses[i]
	}
	rate := float64(pcm.SampleRate)
	t0, perUnit := float64(first)/rate, float64(last-first)/rate/total
	marks := make([]WordMark, len(words))
	t := t0
	for i, w := range words {
		marks[i] = WordMark{Offset: w.Start, Length: w.End - w.Start, Start: t, End: t + units[i]*perUnit}
		t = marks[i].End + pauses[i]*perUnit
	}
	return marks
}
