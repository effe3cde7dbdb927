package stt

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"timbre/internal/access"
	"timbre/internal/errs"
	"timbre/internal/httpx"
)

// OpenAI's transcription protocol (POST /v1/audio/transcriptions), so that OpenAI clients
// transcribe with Timbre by changing their base URL. The work, the charge and the stored
// transcript are those of POST /v1/speech-to-text.

// openAIResponseFormats are the protocol's response formats.
var openAIResponseFormats = []string{"json", "text", "srt", "verbose_json", "vtt"}

// openAIVerbose is the verbose_json answer.
type openAIVerbose struct {
	Task     string           `json:"task"`
	Language string           `json:"language"`
	Duration float64          `json:"duration"`
	Text     string           `json:"text"`
	Words    []openAIWord     `json:"words,omitempty"`
	Segments []openAISegment  `json:"segments,omitempty"`
	Usage    *openAIUsageSecs `json:"usage,omitempty"`
}

type openAIWord struct {
	Word  string  `json:"word"`
	Start float64 `json:"start"`
	End   float64 `json:"end"`
}

type openAISegment struct {
	ID               int     `json:"id"`
	Seek             int     `json:"seek"`
	Start            float64 `json:"start"`
	End              float64 `json:"end"`
	Text             string  `json:"text"`
	Tokens           []int   `json:"tokens"`
	Temperature      float64 `json:"temperature"`
	AvgLogprob       float64 `json:"avg_logprob"`
	CompressionRatio float64 `json:"compression_ratio"`
	NoSpeechProb     float64 `json:"no_speech_prob"`
}

type openAIUsageSecs struct {
	Type    string  `json:"type"`
	Seconds float64 `json:"seconds"`
}

// languageNames are the English names verbose_json reports for a language.
var languageNames = map[string]string{"en": "english", "es": "spanish", "fr": "french", "de": "german", "it": "italian",
	"pt": "portuguese", "nl": "dutch", "ru": "russian", "zh": "chinese", "ja": "japanese", "ko": "korean", "ar": "arabic",
	"hi": "hindi", "pl": "polish", "tr": "turkish", "sv": "swedish", "uk": "ukrainian"}

func (h *Handlers) openAITranscribe(w http.ResponseWriter, r *http.Request) error {
	limit := h.MaxUpload
	if limit <= 0 {
		limit = DefaultMaxUpload
	}
	form, err := httpx.ReadForm(r, limit, "file", "audio")
	if err != nil {
		return err
	}
	var v errs.Validator
	if form.File == nil {
		v.Add("body", "file", "missing", "Field required.")
	}
	if strings.TrimSpace(form.Value("model")) == "" {
		v.Add("body", "model", "missing", "Field required.")
	}
	rf := strings.TrimSpace(form.Value("response_format"))
	if rf == "" {
		rf = "json"
	}
	if !slices.Contains(openAIResponseFormats, rf) {
		v.Add("body", "response_format", "enum", fmt.Sprintf("Unsupported response_format '%s': use json, text, srt, verbose_json or vtt.", rf))
	}
	req := &Request{ModelID: "timbre_stt_v1", Audio: form.File, FileName: form.FileName, Granularity: "word", Logging: true,
		LanguageCode: strings.TrimSpace(form.Value("language"))}
	if s := strings.TrimSpace(form.Value("temperature")); s != "" {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || x < 0 || x > 1 {
			v.Add("body", "temperature", "value_error", "Input should be a number from 0 to 1.")
		}
		req.Temperature = &x
	}
	granularities := append(form.Values("timestamp_granularities[]"), form.Values("timestamp_granularities")...)
	for _, g := range granularities {
		if g != "word" && g != "segment" {
			v.Add("body", "timestamp_granularities", "enum", "Use word and/or segment.")
			break
		}
	}
	// prompt: OpenAI's hint text; its words bias recognition as keyterms do.
	if p := strings.TrimSpace(form.Value("prompt")); p != "" {
		for _, word := range strings.Fields(p) {
			if word = strings.Trim(word, ".,;:!?\"'()"); word != "" && len(req.Keyterms) < 100 {
				req.Keyterms = append(req.Keyterms, word)
			}
		}
	}
	if err := v.Err(); err != nil {
		return err
	}
	res, err := h.Svc.Transcribe(r.Context(), access.CallerFrom(r.Context()), req)
	if err != nil {
		return err
	}
	t := res.Single() // OpenAI's protocol has no channels: always one transcript
	switch rf {
	case "text":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, err = w.Write([]byte(t.Text + "\n"))
		return err
	case "srt", "vtt":
		segs := segments(t, ExportOptions{Format: "srt"}.spec())
		out := exportSRT(segs, exportSpec{lineChars: 42})
		if rf == "vtt" {
			out = toVTT(segs)
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, err = w.Write([]byte(out))
		return err
	case "verbose_json":
		vj := openAIVerbose{Task: "transcribe", Language: languageNames[baseOf(t.LanguageCode)], Duration: t.AudioDurationSecs, Text: t.Text}
		if vj.Language == "" {
			vj.Language = t.LanguageCode
		}
		wantWords := slices.Contains(granularities, "word")
		wantSegments := len(granularities) == 0 || slices.Contains(granularities, "segment")
		for _, wd := range t.Words {
			if wd.Type == "word" && wantWords {
				vj.Words = append(vj.Words, openAIWord{Word: wd.Text, Start: deref(wd.Start), End: deref(wd.End)})
			}
		}
		if wantSegments {
			for i, sg := range segments(t, exportSpec{silence: 0.8, maxDuration: 30}) {
				var lp float64
				for _, wd := range sg.Words {
					lp += wd.Logprob
				}
				vj.Segments = append(vj.Segments, openAISegment{ID: i, Start: sg.Start, End: sg.End, Text: " " + sg.Text,
					Tokens: []int{}, AvgLogprob: lp / float64(max(1, len(sg.Words)))})
			}
		}
		vj.Usage = &openAIUsageSecs{Type: "duration", Seconds: t.AudioDurationSecs}
		httpx.WriteJSON(w, http.StatusOK, vj)
	default:
		httpx.WriteJSON(w, http.StatusOK, struct {
			Text  string           `json:"text"`
			Usage *openAIUsageSecs `json:"usage"`
		}{t.Text, &openAIUsageSecs{Type: "duration", Seconds: t.AudioDurationSecs}})
	}
	return nil
}

// baseOf maps the API's ISO 639-3 code back to ISO 639-1 where it knows it.
func baseOf(code string) string {
	for k, v := range iso6393Codes {
		if v == code {
			return k
		}
	}
	return code
}

// toVTT renders segments as WebVTT.
func toVTT(segs []segment) string {
	var b strings.Builder
	b.WriteString("WEBVTT\n\n")
	for _, sg := range segs {
		fmt.Fprintf(&b, "%s --> %s\n%s\n\n", clockDot(sg.Start), clockDot(sg.End), sg.Text)
	}
	return b.String()
}
