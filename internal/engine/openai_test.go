package engine

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"
)

// fakeSpeechServer speaks OpenAI's POST /v1/audio/speech: every word of the input becomes a
// tone 70 ms per character long (divided by speed), followed by a pause that is longer after
// punctuation. It records the true word times for the test to compare against.
type fakeSpeechServer struct {
	wavRate int // sample rate of "wav" answers; "pcm" is always 24 kHz as in OpenAI's API
	stereo  bool
	last    openAISpeechRequest
	truth   [][2]float64 // start and end of each word in the last answer
}

func (f *fakeSpeechServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/audio/speech" {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	if r.Header.Get("Authorization") != "Bearer sk-test" {
		http.Error(w, `{"error":{"message":"bad key"}}`, http.StatusUnauthorized)
		return
	}
	var req openAISpeechRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model == "" || req.Input == "" || req.Voice == "" {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	if req.Voice == "nope" {
		http.Error(w, `{"error":{"message":"voice not found"}}`, http.StatusBadRequest)
		return
	}
	f.last = req
	rate := 24000
	if req.ResponseFormat == "wav" {
		rate = f.wavRate
	}
	speed := req.Speed
	if speed == 0 {
		speed = 1
	}
	var samples []int16
	f.truth = nil
	silence := func(secs float64) { samples = append(samples, make([]int16, int(secs/speed*float64(rate)))...) }
	silence(0.2)
	for _, s := range splitWords(req.Input) {
		word := req.Input[s.Start:s.End]
		start := float64(len(samples)) / float64(rate)
		n := int(0.07 * float64(utf8.RuneCountInString(word)) / speed * float64(rate))
		for i := range n {
			samples = append(samples, int16(8000*math.Sin(2*math.Pi*220*float64(i)/float64(rate))))
		}
		f.truth = append(f.truth, [2]float64{start, float64(len(samples)) / float64(rate)})
		silence(0.06 + 0.1*pauseAfter(req.Input, s.End))
	}
	silence(0.3)

	var body []byte
	channels := 1
	if f.stereo && req.ResponseFormat == "wav" {
		channels = 2
	}
	for _, s := range samples {
		for range channels {
			body = binary.LittleEndian.AppendUint16(body, uint16(s))
		}
	}
	switch req.ResponseFormat {
	case "pcm":
		w.Header().Set("Content-Type", "audio/pcm")
	case "wav":
		w.Header().Set("Content-Type", "audio/wav")
		// Streaming servers do not know the length up front: sizes 0xFFFFFFFF.
		h := []byte("RIFF\xff\xff\xff\xffWAVEfmt ")
		h = binary.LittleEndian.AppendUint32(h, 16)
		h = binary.LittleEndian.AppendUint16(h, 1)
		h = binary.LittleEndian.AppendUint16(h, uint16(channels))
		h = binary.LittleEndian.AppendUint32(h, uint32(rate))
		h = binary.LittleEndian.AppendUint32(h, uint32(rate*2*channels))
		h = binary.LittleEndian.AppendUint16(h, uint16(2*channels))
		h = binary.LittleEndian.AppendUint16(h, 16)
		h = append(h, "data\xff\xff\xff\xff"...)
		body = append(h, body...)
	default:
		http.Error(w, `{"error":{"message":"unsupported format"}}`, http.StatusBadRequest)
		return
	}
	w.Write(body)
}

func TestOpenAI(t *testing.T) {
	for _, tc := range []struct {
		format  string
		base    string
		wavRate int
		stereo  bool
		rate    float64
	}{
		{"pcm", "", 0, false, 1},
		{"wav", "/v1/", 22050, true, 1},
		{"", "/v1", 16000, false, 1.5},
	} {
		t.Run(tc.format+tc.base, func(t *testing.T) {
			fake := &fakeSpeechServer{wavRate: tc.wavRate, stereo: tc.stereo}
			srv := httptest.NewServer(fake)
			defer srv.Close()
			o, err := NewOpenAI(OpenAIConfig{BaseURL: srv.URL + tc.base, APIKey: "sk-test", Model: "tts-1",
				Voices: []string{"alloy", "nova"}, Languages: []string{"en"}, Format: tc.format})
			if err != nil {
				t.Fatal(err)
			}
			c := speechCase{
				req:     Request{Text: "Hello world, this is a longer test. Then another sentence follows!", Voice: "nova", Prosody: Prosody{Rate: tc.rate, Pitch: 50, PitchRange: 50}},
				words:   []string{"Hello", "world", "this", "is", "a", "longer", "test", "Then", "another", "sentence", "follows"},
				minSecs: 1.5, maxSecs: 6,
			}
			res := checkSpeech(t, o, c)
			if fake.last.Voice != "nova" || fake.last.Model != "tts-1" || fake.last.Speed != tc.rate || fake.last.Input != c.req.Text {
				t.Errorf("server got %+v", fake.last)
			}
			wantRate := map[string]int{"pcm": 24000}[tc.format]
			if wantRate == 0 {
				wantRate = tc.wavRate
			}
			if res.Audio.SampleRate != wantRate {
				t.Errorf("sample rate %d, want %d", res.Audio.SampleRate, wantRate)
			}
			// The estimated middle of every word lies in (or very near) the true word.
			for i, w := range res.Words {
				mid, truth := (w.Start+w.End)/2, fake.truth[i]
				if mid < truth[0]-0.1 || mid > truth[1]+0.1 {
					t.Errorf("word %d estimated at %.2f–%.2f s, really %.2f–%.2f s", i, w.Start, w.End, truth[0], truth[1])
				}
			}
		})
	}
}

func TestOpenAIErrors(t *testing.T) {
	srv := httptest.NewServer(&fakeSpeechServer{wavRate: 24000})
	defer srv.Close()
	o, _ := NewOpenAI(OpenAIConfig{BaseURL: srv.URL, APIKey: "sk-test", Model: "tts-1", Voices: []string{"alloy"}})
	checkUnknownVoice(t, o, Request{Voice: "nova"})

	// Without a voice list any name goes to the server, which may refuse it.
	o, _ = NewOpenAI(OpenAIConfig{BaseURL: srv.URL, APIKey: "sk-test", Model: "tts-1"})
	if _, err := o.Synthesize(context.Background(), Request{Text: "Hi.", Voice: "nope"}); err == nil || !strings.Contains(err.Error(), "voice not found") {
		t.Errorf("server refusal: err = %v", err)
	}
	o, _ = NewOpenAI(OpenAIConfig{BaseURL: srv.URL, APIKey: "wrong", Model: "tts-1"})
	if _, err := o.Synthesize(context.Background(), Request{Text: "Hi."}); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("bad key: err = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := o.Synthesize(ctx, Request{Text: "Hi."}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
	if _, err := NewOpenAI(OpenAIConfig{BaseURL: srv.URL, Format: "mp3"}); err == nil {
		t.Error("mp3 format accepted")
	}
}

func TestParseWAVFloat(t *testing.T) {
	h := []byte("RIFF\x00\x00\x00\x00WAVEfmt ")
	h = binary.LittleEndian.AppendUint32(h, 16)
	h = binary.LittleEndian.AppendUint16(h, 3) // IEEE float
	h = binary.LittleEndian.AppendUint16(h, 1)
	h = binary.LittleEndian.AppendUint32(h, 8000)
	h = binary.LittleEndian.AppendUint32(h, 32000)
	h = binary.LittleEndian.AppendUint16(h, 4)
	h = binary.LittleEndian.AppendUint16(h, 32)
	h = append(h, "LIST\x03\x00\x00\x00abc\x00data"...) // an odd-sized chunk to skip
	h = binary.LittleEndian.AppendUint32(h, 8)
	h = binary.LittleEndian.AppendUint32(h, math.Float32bits(0.5))
	h = binary.LittleEndian.AppendUint32(h, math.Float32bits(-1))
	p, err := parseWAV(h)
	if err != nil || p.SampleRate != 8000 || len(p.Samples) != 2 || p.Samples[0] != 16384 || p.Samples[1] != -32767 {
		t.Errorf("parseWAV = %+v, %v", p, err)
	}
}
