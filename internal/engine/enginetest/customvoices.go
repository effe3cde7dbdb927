package enginetest

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"sync"

	"timbre/internal/audio"
)

// CustomVoiceServer speaks OpenAI's custom-voices protocol for tests of neural cloning:
// POST /v1/audio/voices (multipart name, audio_sample, consent) stores the sample and answers
// {"id": "voice_N", …}; POST /v1/audio/speech with {"voice": {"id": …}} of a stored voice answers
// a WAV tone (one per voice, so tests can tell voices apart). Fail makes every call a 500.
type CustomVoiceServer struct {
	Key string // expected bearer token ("" accepts any)

	mu       sync.Mutex
	Fail     bool
	Created  []CreatedVoice // every voice made, in order
	Speeches []string       // the voice id of every speech request
}

// CreatedVoice is one POST /v1/audio/voices as received.
type CreatedVoice struct {
	ID, Name, Consent, FileName, ContentType string
	Audio                                    []byte
}

// CustomVoiceRate is the sample rate of the speech answers.
const CustomVoiceRate = 24000

// CustomVoicePitch is the pitch voice_N speaks around: 180+20N Hz.
func CustomVoicePitch(n int) float64 { return 180 + 20*float64(n) }

func (s *CustomVoiceServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fail := func(code int, msg string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		fmt.Fprintf(w, `{"error":{"message":%q}}`, msg)
	}
	if s.Fail {
		fail(http.StatusInternalServerError, "the server is down")
		return
	}
	if s.Key != "" && r.Header.Get("Authorization") != "Bearer "+s.Key {
		fail(http.StatusUnauthorized, "bad key")
		return
	}
	switch r.URL.Path {
	case "/v1/audio/voices":
		if err := r.ParseMultipartForm(32 << 20); err != nil {
			fail(http.StatusBadRequest, err.Error())
			return
		}
		f, h, err := r.FormFile("audio_sample")
		if err != nil || r.FormValue("name") == "" {
			fail(http.StatusBadRequest, "name and audio_sample are required")
			return
		}
		data, _ := io.ReadAll(f)
		v := CreatedVoice{ID: fmt.Sprintf("voice_%d", len(s.Created)+1), Name: r.FormValue("name"), Consent: r.FormValue("consent"),
			FileName: h.Filename, ContentType: h.Header.Get("Content-Type"), Audio: data}
		s.Created = append(s.Created, v)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"object": "audio.voice", "id": v.ID, "name": v.Name, "created_at": 0})
	case "/v1/audio/speech":
		var req struct {
			Input string `json:"input"`
			Voice struct {
				ID string `json:"id"`
			} `json:"voice"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Input == "" {
			fail(http.StatusBadRequest, "want input and voice {\"id\": …}")
			return
		}
		n := 0
		for i, v := range s.Created {
			if v.ID == req.Voice.ID {
				n = i + 1
			}
		}
		if n == 0 {
			fail(http.StatusBadRequest, "unknown voice")
			return
		}
		s.Speeches = append(s.Speeches, req.Voice.ID)
		// 1.5 s of a voiced tone gliding around the voice's pitch in 4 Hz syllables (a steady
		// tone is not speech to a voiceprint).
		pcm := make([]int16, CustomVoiceRate*3/2)
		phase := 0.0
		for i := range pcm {
			phase += 2 * math.Pi * (CustomVoicePitch(n) + 30*math.Sin(float64(i)/6000)) / CustomVoiceRate
			syllable := 0.5 - 0.5*math.Cos(2*math.Pi*4*float64(i)/CustomVoiceRate)
			pcm[i] = int16(9000 * syllable * math.Sin(phase))
		}
		w.Header().Set("Content-Type", "audio/wav")
		w.Write(audio.WAV(pcm, CustomVoiceRate))
	default:
		fail(http.StatusNotFound, "not found")
	}
}

// Snapshot returns what the server received so far.
func (s *CustomVoiceServer) Snapshot() ([]CreatedVoice, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]CreatedVoice(nil), s.Created...), append([]string(nil), s.Speeches...)
}

// SetFail makes the server fail (or work again).
func (s *CustomVoiceServer) SetFail(f bool) { s.mu.Lock(); s.Fail = f; s.mu.Unlock() }
