package engine

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"timbre/internal/audio"
)

// fakeTranscriptionServer speaks OpenAI's POST /v1/audio/transcriptions: it checks the
// multipart form the way OpenAI does and answers verbose_json in one of two dialects: OpenAI's
// (language names, words at the top level) or whisper.cpp's server's (words inside segments,
// with probabilities).
type fakeTranscriptionServer struct {
	whisperCpp bool
	form       map[string][]string // the last request's fields
	fileRate   int                 // the uploaded WAV's sample rate
	fileLen    int                 // and its length in samples
}

func (f *fakeTranscriptionServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	fail := func(status int, msg string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error"}})
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/audio/transcriptions" {
		fail(http.StatusNotFound, "not found")
		return
	}
	if r.Header.Get("Authorization") != "Bearer sk-test" {
		fail(http.StatusUnauthorized, "Incorrect API key provided")
		return
	}
	if err := r.ParseMultipartForm(32 << 20); err != nil {
		fail(http.StatusBadRequest, "expected multipart/form-data")
		return
	}
	f.form = r.MultipartForm.Value
	file, _, err := r.FormFile("file")
	if err != nil {
		fail(http.StatusBadRequest, "file is required")
		return
	}
	data, _ := io.ReadAll(file)
	samples, rate, err := audio.DecodeAs(r.Context(), data, audio.Format{Codec: audio.CodecWAV})
	if err != nil {
		fail(http.StatusBadRequest, "could not decode the audio")
		return
	}
	f.fileRate, f.fileLen = rate, len(samples)
	if r.FormValue("model") == "" {
		fail(http.StatusBadRequest, "model is required")
		return
	}
	if l := r.FormValue("language"); l != "" && l != "en" && l != "de" {
		fail(http.StatusBadRequest, "Unsupported language: "+l)
		return
	}
	if r.FormValue("response_format") != "verbose_json" {
		fail(http.StatusBadRequest, "this fake only answers verbose_json")
		return
	}
	if r.FormValue("model") == "broken" {
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, "CUDA out of memory")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if f.whisperCpp {
		io.WriteString(w, `{"task":"transcribe","language":"german","duration":2.5,"text":" Guten Tag, Welt.",
			"segments":[{"id":0,"start":0.1,"end":2.4,"text":" Guten Tag, Welt.","avg_logprob":-0.2,
			  "words":[{"word":" Guten","start":0.1,"end":0.5,"probability":0.9},
			           {"word":" Tag,","start":0.5,"end":1.0,"probability":0.5},
			           {"word":" Welt.","start":1.2,"end":2.4}]}]}`)
		return
	}
	io.WriteString(w, `{"task":"transcribe","language":"english","duration":3.0,"text":"The birch canoe slid.",
		"words":[{"word":"The","start":0.0,"end":0.2},{"word":"birch","start":0.2,"end":0.6},
		         {"word":"canoe","start":0.6,"end":1.1},{"word":"slid","start":1.4,"end":1.9}],
		"segments":[{"id":0,"start":0.0,"end":1.2,"text":"The birch canoe","avg_logprob":-0.25},
		            {"id":1,"start":1.2,"end":3.0,"text":" slid.","avg_logprob":-0.5}]}`)
}

func newFakeTranscriber(t *testing.T, f *fakeTranscriptionServer, cfg OpenAITranscriberConfig) *OpenAITranscriber {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	cfg.BaseURL = srv.URL + "/v1/"
	if cfg.APIKey == "" {
		cfg.APIKey = "sk-test"
	}
	o, err := NewOpenAITranscriber(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func tone(seconds float64, rate int) PCM {
	s := make([]int16, int(seconds*float64(rate)))
	for i := range s {
		s[i] = int16(6000 * math.Sin(2*math.Pi*300*float64(i)/float64(rate)))
	}
	return PCM{Samples: s, SampleRate: rate}
}

func TestOpenAITranscriberOpenAIDialect(t *testing.T) {
	f := &fakeTranscriptionServer{}
	o := newFakeTranscriber(t, f, OpenAITranscriberConfig{Model: "whisper-1"})
	temp := 0.2
	tr, err := o.Transcribe(context.Background(), tone(3, 24000), TranscribeOptions{
		Language: "en-US", Keyterms: []string{"birch", "canoe"}, Temperature: &temp,
	})
	if err != nil {
		t.Fatal(err)
	}
	// The form: the model, the language's code, verbose_json with word and segment times,
	// keyterms as the prompt, and the audio resampled to 16 kHz.
	want := map[string]string{"model": "whisper-1", "language": "en", "response_format": "verbose_json",
		"prompt": "birch, canoe", "temperature": "0.2"}
	for k, v := range want {
		if got := f.form[k]; len(got) != 1 || got[0] != v {
			t.Errorf("form %s = %q, want %q", k, got, v)
		}
	}
	if g := strings.Join(f.form["timestamp_granularities[]"], ","); g != "word,segment" {
		t.Errorf("timestamp_granularities[] = %q", g)
	}
	if f.fileRate != RecognitionRate || f.fileLen != 3*RecognitionRate {
		t.Errorf("uploaded %d samples at %d Hz, want 3 s at %d", f.fileLen, f.fileRate, RecognitionRate)
	}
	if tr.Text != "The birch canoe slid." || tr.Language != "en" || tr.LanguageProbability != 1 || tr.Duration != 3 {
		t.Errorf("transcript = %+v", tr)
	}
	if len(tr.Words) != 4 || tr.Words[3].Text != "slid" || tr.Words[3].Start != 1.4 || tr.Words[3].End != 1.9 {
		t.Fatalf("words = %+v", tr.Words)
	}
	// No per-word probability in OpenAI's answer: the word takes its segment's average.
	if tr.Words[0].Logprob != -0.25 || tr.Words[3].Logprob != -0.5 {
		t.Errorf("logprobs = %v, %v; want the segments' -0.25 and -0.5", tr.Words[0].Logprob, tr.Words[3].Logprob)
	}
}

func TestOpenAITranscriberWhisperCppDialect(t *testing.T) {
	o := newFakeTranscriber(t, &fakeTranscriptionServer{whisperCpp: true}, OpenAITranscriberConfig{})
	tr, err := o.Transcribe(context.Background(), tone(2.5, 16000), TranscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Language != "de" || tr.Text != "Guten Tag, Welt." || len(tr.Words) != 3 {
		t.Fatalf("transcript = %+v", tr)
	}
	if w := tr.Words[1]; w.Text != "Tag," || math.Abs(w.Confidence()-0.5) > 1e-9 || w.Start != 0.5 || w.End != 1.0 {
		t.Errorf("word 1 = %+v (confidence %v)", w, w.Confidence())
	}
	if w := tr.Words[2]; w.Logprob != -0.2 { // no probability: the segment's average
		t.Errorf("word 2 logprob = %v, want -0.2", w.Logprob)
	}
}

func TestOpenAITranscriberErrors(t *testing.T) {
	ctx := context.Background()
	f := &fakeTranscriptionServer{}

	bad := newFakeTranscriber(t, f, OpenAITranscriberConfig{APIKey: "sk-wrong"})
	_, err := bad.Transcribe(ctx, tone(1, 16000), TranscribeOptions{})
	var serr *TranscriptionServerError
	if !errors.As(err, &serr) || serr.StatusCode != http.StatusUnauthorized || !strings.Contains(err.Error(), "Incorrect API key") {
		t.Errorf("wrong key: %v", err)
	}

	broken := newFakeTranscriber(t, f, OpenAITranscriberConfig{Model: "broken"})
	if _, err := broken.Transcribe(ctx, tone(1, 16000), TranscribeOptions{}); !errors.As(err, &serr) ||
		serr.StatusCode != 500 || serr.Message != "CUDA out of memory" {
		t.Errorf("server failure: %v", err)
	}

	// A language the server refuses, and one outside the configured list (refused before any
	// request), are both unsupported languages.
	o := newFakeTranscriber(t, f, OpenAITranscriberConfig{})
	if _, err := o.Transcribe(ctx, tone(1, 16000), TranscribeOptions{Language: "xx"}); !errors.Is(err, ErrUnsupportedLanguage) {
		t.Errorf("refused language: %v", err)
	}
	limited := newFakeTranscriber(t, f, OpenAITranscriberConfig{Languages: []string{"en", "DE-de"}})
	f.form = nil
	_, err = limited.Transcribe(ctx, tone(1, 16000), TranscribeOptions{Language: "fr"})
	var lerr *UnsupportedLanguageError
	if !errors.As(err, &lerr) || lerr.Language != "fr" || strings.Join(lerr.Supported, ",") != "en,de" || f.form != nil {
		t.Errorf("unlisted language: %v (sent: %v)", err, f.form != nil)
	}

	// Cancellation is the context's error.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := o.Transcribe(cctx, tone(1, 16000), TranscribeOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// fixedRecognizer is a Recognizer for ChooseRecognizer's test.
type fixedRecognizer struct {
	name  string
	langs []string
}

func (f fixedRecognizer) Name() string        { return f.name }
func (f fixedRecognizer) Languages() []string { return f.langs }
func (f fixedRecognizer) Transcribe(context.Context, PCM, TranscribeOptions) (*Transcript, error) {
	return &Transcript{}, nil
}

func TestChooseRecognizer(t *testing.T) {
	embedded := fixedRecognizer{"pocketsphinx", []string{"en"}}
	german := fixedRecognizer{"whisper-de", []string{"de"}}
	anything := fixedRecognizer{"whisper", nil}
	for _, c := range []struct {
		rs   []Recognizer
		lang string
		want string // "" = unsupported
	}{
		{[]Recognizer{embedded}, "", "pocketsphinx"},
		{[]Recognizer{embedded}, "en-GB", "pocketsphinx"},
		{[]Recognizer{embedded}, "fr", ""},
		{[]Recognizer{embedded, german}, "de", "whisper-de"},
		{[]Recognizer{embedded, german}, "fr", ""},
		{[]Recognizer{embedded, anything}, "en", "pocketsphinx"}, // a listed language wins
		{[]Recognizer{embedded, anything}, "fr", "whisper"},
	} {
		r, err := ChooseRecognizer(c.rs, c.lang)
		switch {
		case c.want == "" && !errors.Is(err, ErrUnsupportedLanguage):
			t.Errorf("%q: got %v, %v; want unsupported", c.lang, r, err)
		case c.want != "" && (err != nil || r.Name() != c.want):
			t.Errorf("%q: got %v, %v; want %s", c.lang, r, err, c.want)
		}
	}
	_, err := ChooseRecognizer([]Recognizer{embedded, german}, "fr")
	if err == nil || err.Error() != `speech recognition is not available for language "fr" (available: de, en)` {
		t.Errorf("message: %v", err)
	}
}
