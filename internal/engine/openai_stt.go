package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"mime/multipart"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"timbre/internal/audio"
)

// OpenAITranscriberConfig configures a recognizer backed by any server that speaks OpenAI's
// POST /v1/audio/transcriptions with verbose_json (OpenAI itself, faster-whisper servers such as
// speaches, whisper.cpp's server, LocalAI, …).
type OpenAITranscriberConfig struct {
	// BaseURL is the server's address, with or without the "/v1" suffix: "http://whisper:8000"
	// and "http://whisper:8000/v1" both post to .../v1/audio/transcriptions.
	BaseURL string
	APIKey  string // sent as a bearer token when set
	Model   string // "whisper-1", "Systran/faster-whisper-small", …; default "whisper-1"
	// Languages are the ISO 639-1 codes the server transcribes; empty means any language (the
	// server refuses what it lacks).
	Languages  []string
	Name       string // the Recognizer's name; default "openai"
	HTTPClient *http.Client
}

// OpenAITranscriber is a Recognizer that calls an OpenAI-compatible transcription server.
type OpenAITranscriber struct {
	cfg    OpenAITranscriberConfig
	server openAIServer
}

// NewOpenAITranscriber checks cfg and fills in its defaults.
func NewOpenAITranscriber(cfg OpenAITranscriberConfig) (*OpenAITranscriber, error) {
	if cfg.BaseURL == "" {
		return nil, errors.New("openai transcriber: BaseURL is required")
	}
	if cfg.Model == "" {
		cfg.Model = "whisper-1"
	}
	if cfg.Name == "" {
		cfg.Name = "openai"
	}
	var langs []string
	for _, l := range cfg.Languages {
		if l = BaseLanguage(l); l != "" && !slices.Contains(langs, l) {
			langs = append(langs, l)
		}
	}
	cfg.Languages = langs
	return &OpenAITranscriber{cfg: cfg, server: newOpenAIServer(cfg.Name, cfg.BaseURL, cfg.APIKey, "/audio/transcriptions", cfg.HTTPClient)}, nil
}

var _ Recognizer = (*OpenAITranscriber)(nil)

// Name implements Recognizer.
func (o *OpenAITranscriber) Name() string { return o.cfg.Name }

// Languages implements Recognizer: the configured languages, nil when any is accepted.
func (o *OpenAITranscriber) Languages() []string {
	if len(o.cfg.Languages) == 0 {
		return nil
	}
	return slices.Clone(o.cfg.Languages)
}

// TranscriptionServerError is a failure answered by the transcription server.
type TranscriptionServerError struct {
	Server     string // the recognizer's name
	StatusCode int
	Message    string // the server's own message (OpenAI's error.message, or the body's start)
}

func (e *TranscriptionServerError) Error() string {
	return fmt.Sprintf("%s: the transcription server answered %d %s: %s",
		e.Server, e.StatusCode, http.StatusText(e.StatusCode), e.Message)
}

// openAIVerbose is the verbose_json answer. OpenAI puts words at the top level; whisper.cpp's
// server puts them in each segment. Fields OpenAI lacks (probability, language_probability)
// are read when a server sends them (faster-whisper servers do).
type openAIVerbose struct {
	Text                string                 `json:"text"`
	Language            string                 `json:"language"`
	LanguageProbability *float64               `json:"language_probability"`
	Duration            float64                `json:"duration"`
	Words               []openAIWord           `json:"words"`
	Segments            []openAIVerboseSegment `json:"segments"`
}

type openAIWord struct {
	Word        string   `json:"word"`
	Start       float64  `json:"start"`
	End         float64  `json:"end"`
	Probability *float64 `json:"probability"`
}

type openAIVerboseSegment struct {
	Start      float64      `json:"start"`
	End        float64      `json:"end"`
	Text       string       `json:"text"`
	AvgLogprob *float64     `json:"avg_logprob"`
	Words      []openAIWord `json:"words"`
}

// Transcribe implements Recognizer. The audio is sent as a 16 kHz WAV file with
// response_format=verbose_json and word and segment timestamps. Keyterms become the prompt,
// which whisper models take as preceding context and so favour its words and spellings.
// A word's Logprob is the log of its probability when the server sends one, else its
// segment's average token log probability, else 0. Language is the ISO code of what the server
// reports (whisper answers names such as "english"); LanguageProbability is 1 when the caller
// named the language or the server does not say.
func (o *OpenAITranscriber) Transcribe(ctx context.Context, pcm PCM, opts TranscribeOptions) (*Transcript, error) {
	lang := BaseLanguage(opts.Language)
	if langs := o.Languages(); lang != "" && langs != nil && !slices.Contains(langs, lang) {
		return nil, &UnsupportedLanguageError{Language: opts.Language, Supported: langs}
	}
	pcm = toRecognitionRate(pcm)

	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, err := mw.CreateFormFile("file", "audio.wav")
	if err != nil {
		return nil, err
	}
	if _, err := fw.Write(audio.WAV(pcm.Samples, pcm.SampleRate)); err != nil {
		return nil, err
	}
	fields := [][2]string{
		{"model", o.cfg.Model},
		{"response_format", "verbose_json"},
		{"timestamp_granularities[]", "word"},
		{"timestamp_granularities[]", "segment"},
	}
	if lang != "" {
		fields = append(fields, [2]string{"language", lang})
	}
	if len(opts.Keyterms) > 0 {
		fields = append(fields, [2]string{"prompt", strings.Join(opts.Keyterms, ", ")})
	}
	if opts.Temperature != nil {
		fields = append(fields, [2]string{"temperature", strconv.FormatFloat(*opts.Temperature, 'f', -1, 64)})
	}
	for _, f := range fields {
		if err := mw.WriteField(f[0], f[1]); err != nil {
			return nil, err
		}
	}
	if err := mw.Close(); err != nil {
		return nil, err
	}

	resp, data, err := o.server.post(ctx, mw.FormDataContentType(), "application/json", &body, 64<<20, "the transcript")
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		serr := &TranscriptionServerError{Server: o.cfg.Name, StatusCode: resp.StatusCode, Message: serverMessage(data)}
		// Whisper servers refuse an unknown language with a 400 or 422 that names it.
		if lang != "" && (resp.StatusCode == http.StatusBadRequest || resp.StatusCode == http.StatusUnprocessableEntity) &&
			strings.Contains(strings.ToLower(serr.Message), "language") {
			return nil, &UnsupportedLanguageError{Language: opts.Language, Supported: o.Languages()}
		}
		return nil, serr
	}
	var v openAIVerbose
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("%s: the answer is not verbose_json: %w", o.cfg.Name, err)
	}
	return v.transcript(lang, pcm.Seconds()), nil
}

// transcript turns the server's answer into a Transcript; requested is the language the
// caller asked for ("" = detected) and seconds the audio's length.
func (v *openAIVerbose) transcript(requested string, seconds float64) *Transcript {
	t := &Transcript{
		Text:                strings.TrimSpace(v.Text),
		Language:            whisperLanguageCode(v.Language),
		LanguageProbability: 1,
		Duration:            v.Duration,
	}
	if t.Language == "" {
		t.Language = requested
	}
	if requested == "" && v.LanguageProbability != nil {
		t.LanguageProbability = *v.LanguageProbability
	}
	if t.Duration <= 0 {
		t.Duration = seconds
	}
	// A word's fallback confidence is that of the segment it falls in.
	segLogprob := func(start float64) float64 {
		for _, s := range v.Segments {
			if start >= s.Start && start < s.End && s.AvgLogprob != nil {
				return min(*s.AvgLogprob, 0)
			}
		}
		return 0
	}
	add := func(w openAIWord, fallback float64) {
		text := strings.TrimSpace(w.Word)
		if text == "" {
			return
		}
		lp := fallback
		if w.Probability != nil && *w.Probability > 0 {
			lp = min(math.Log(*w.Probability), 0)
		}
		t.Words = append(t.Words, TranscriptWord{Text: text, Start: w.Start, End: max(w.End, w.Start), Logprob: lp})
	}
	if len(v.Words) > 0 {
		for _, w := range v.Words {
			add(w, segLogprob(w.Start))
		}
	} else {
		for _, s := range v.Segments {
			fallback := 0.0
			if s.AvgLogprob != nil {
				fallback = min(*s.AvgLogprob, 0)
			}
			for _, w := range s.Words {
				add(w, fallback)
			}
		}
	}
	if t.Text == "" {
		t.Text = joinWords(t.Words)
	}
	return t
}

// serverMessage is OpenAI's {"error":{"message":…}} (or FastAPI's {"detail":…}) from an error
// body, else the body's first 300 bytes.
func serverMessage(data []byte) string {
	var e struct {
		Error  json.RawMessage `json:"error"`
		Detail json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(data, &e) == nil {
		var inner struct {
			Message string `json:"message"`
		}
		var s string
		switch {
		case json.Unmarshal(e.Error, &inner) == nil && inner.Message != "":
			return inner.Message
		case json.Unmarshal(e.Error, &s) == nil && s != "":
			return s
		case json.Unmarshal(e.Detail, &s) == nil && s != "":
			return s
		case len(e.Detail) > 0:
			return string(e.Detail)
		}
	}
	return strings.TrimSpace(string(data[:min(len(data), 300)]))
}

// whisperLanguageCode is the ISO 639-1 code of a language as whisper servers name it: OpenAI
// answers names ("english"), faster-whisper servers codes ("en").
func whisperLanguageCode(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if code, ok := whisperLanguages[s]; ok {
		return code
	}
	return BaseLanguage(s)
}

// whisperLanguages maps whisper's language names (openai/whisper tokenizer.py) to their codes.
var whisperLanguages = map[string]string{
	"english": "en", "chinese": "zh", "german": "de", "spanish": "es", "russian": "ru", "korean": "ko",
	"french": "fr", "japanese": "ja", "portuguese": "pt", "turkish": "tr", "polish": "pl", "catalan": "ca",
	"dutch": "nl", "arabic": "ar", "swedish": "sv", "italian": "it", "indonesian": "id", "hindi": "hi",
	"finnish": "fi", "vietnamese": "vi", "hebrew": "he", "ukrainian": "uk", "greek": "el", "malay": "ms",
	"czech": "cs", "romanian": "ro", "danish": "da", "hungarian": "hu", "tamil": "ta", "norwegian": "no",
	"thai": "th", "urdu": "ur", "croatian": "hr", "bulgarian": "bg", "lithuanian": "lt", "latin": "la",
	"maori": "mi", "malayalam": "ml", "welsh": "cy", "slovak": "sk", "telugu": "te", "persian": "fa",
	"latvian": "lv", "bengali": "bn", "serbian": "sr", "azerbaijani": "az", "slovenian": "sl",
	"kannada": "kn", "estonian": "et", "macedonian": "mk", "breton": "br", "basque": "eu",
	"icelandic": "is", "armenian": "hy", "nepali": "ne", "mongolian": "mn", "bosnian": "bs",
	"kazakh": "kk", "albanian": "sq", "swahili": "sw", "galician": "gl", "marathi": "mr",
	"punjabi": "pa", "sinhala": "si", "khmer": "km", "shona": "sn", "yoruba": "yo", "somali": "so",
	"afrikaans": "af", "occitan": "oc", "georgian": "ka", "belarusian": "be", "tajik": "tg",
	"sindhi": "sd", "gujarati": "gu", "amharic": "am", "yiddish": "yi", "lao": "lo", "uzbek": "uz",
	"faroese": "fo", "haitian creole": "ht", "pashto": "ps", "turkmen": "tk", "nynorsk": "nn",
	"maltese": "mt", "sanskrit": "sa", "luxembourgish": "lb", "myanmar": "my", "tibetan": "bo",
	"tagalog": "tl", "malagasy": "mg", "assamese": "as", "tatar": "tt", "hawaiian": "haw",
	"lingala": "ln", "hausa": "ha", "bashkir": "ba", "javanese": "jw", "sundanese": "su",
	"cantonese": "yue",
}
