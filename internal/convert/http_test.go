package convert

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"timbre/internal/audio"
	"timbre/internal/engine"
	"timbre/internal/voiceprint"
)

// TestHTTPConverter: the adapter sends the recording, the target's reference clip, voice id and
// prints as the documented multipart form with the bearer key, and returns the audio the server
// answers (here: the recording shifted by the parametric converter, as a stand-in model would
// answer); a failing or non-audio answer is an error quoting the server.
func TestHTTPConverter(t *testing.T) {
	rec := speak(t, "rms", "The birch canoe slid on the smooth planks.")
	ref := speak(t, "slt", "Glue the sheet to the dark blue background.")
	target := &voiceprint.Print{F0Median: 170, Formants: [3]float64{600, 1800, 2900}}
	source := &voiceprint.Print{F0Median: 100, Formants: [3]float64{500, 1500, 2500}}
	var got struct {
		auth, voiceID  string
		audio, refRate int
		target         voiceprint.Print
	}
	answer := "convert"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseMultipartForm(32 << 20); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		got.auth, got.voiceID = r.Header.Get("Authorization"), r.FormValue("target_voice_id")
		_ = json.Unmarshal([]byte(r.FormValue("target_print")), &got.target)
		read := func(name string) engine.PCM {
			f, _, err := r.FormFile(name)
			if err != nil {
				t.Errorf("part %s: %v", name, err)
				return engine.PCM{}
			}
			data, _ := io.ReadAll(f)
			s, rate, err := audio.Decode(r.Context(), data)
			if err != nil {
				t.Errorf("part %s is not audio: %v", name, err)
			}
			return engine.PCM{Samples: s, SampleRate: rate}
		}
		in, rf := read("audio"), read("reference")
		got.audio, got.refRate = len(in.Samples), rf.SampleRate
		switch answer {
		case "convert":
			out, err := Apply(r.Context(), in, Plan(source, target))
			if err != nil {
				http.Error(w, err.Error(), 500)
				return
			}
			w.Header().Set("Content-Type", "audio/wav")
			_, _ = w.Write(audio.WAV(out.Samples, out.SampleRate))
		case "fail":
			http.Error(w, "model not loaded", http.StatusServiceUnavailable)
		default:
			_, _ = w.Write([]byte("not audio at all"))
		}
	}))
	defer srv.Close()

	c := &HTTP{URL: srv.URL, Key: "sekrit"}
	tgt := Target{VoiceID: "voice123", Print: target, Reference: func(context.Context) (engine.PCM, error) { return ref, nil }}
	out, err := c.Convert(context.Background(), rec, source, tgt)
	if err != nil {
		t.Fatal(err)
	}
	if got.auth != "Bearer sekrit" || got.voiceID != "voice123" || got.target.F0Median != 170 || got.audio != len(rec.Samples) || got.refRate != ref.SampleRate {
		t.Fatalf("the server got %+v", got)
	}
	if out.SampleRate != rec.SampleRate || len(out.Samples) != len(rec.Samples) {
		t.Fatalf("converted %d samples at %d Hz, sent %d at %d Hz", len(out.Samples), out.SampleRate, len(rec.Samples), rec.SampleRate)
	}

	answer = "fail"
	if _, err := c.Convert(context.Background(), rec, source, tgt); err == nil || !strings.Contains(err.Error(), "model not loaded") {
		t.Errorf("a 503 gave %v", err)
	}
	answer = "garbage"
	if _, err := c.Convert(context.Background(), rec, source, tgt); err == nil || !strings.Contains(err.Error(), "not audio") {
		t.Errorf("a non-audio answer gave %v", err)
	}
	if _, err := c.Convert(context.Background(), rec, source, Target{Print: target}); err == nil {
		t.Error("no reference audio, yet converted")
	}
}
