package convert

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"time"

	"timbre/internal/audio"
	"timbre/internal/engine"
	"timbre/internal/voiceprint"
)

// HTTP is a neural voice converter behind an HTTP server, configured with
// TIMBRE_STS_CONVERTER_URL (and _KEY). The protocol, one request per conversion:
//
//	POST {URL}
//	Authorization: Bearer {KEY}                (when a key is configured)
//	Content-Type: multipart/form-data with the parts
//	  audio             the recording: WAV, 16-bit mono, at its own rate
//	  reference         the target voice speaking (WAV, 16-bit mono): its reference clip
//	  target_voice_id   the target voice's id
//	  target_print      the target voice's voiceprint (JSON: f0_median_hz, formants_hz, …)
//	  source_print      the recording's voiceprint (JSON)
//
//	200 with the converted speech as the body, in any format ffmpeg decodes (WAV is simplest);
//	its duration should be the recording's. Any other status is an error; its body (up to 1 KB)
//	is quoted in the message.
//
// This fits a small wrapper around an OpenVoice, FreeVC, kNN-VC or seed-vc style model, which all
// take a source recording and a reference clip of the target speaker.
type HTTP struct {
	URL, Key string
	Client   *http.Client // nil: a client with Timeout
	Timeout  time.Duration
	// MaxResponse bounds the converted audio read back (bytes; default 200 MB).
	MaxResponse int64
}

// Name implements Converter.
func (h *HTTP) Name() string { return "http" }

// Convert implements Converter. t.Reference must be set: the server needs to hear the target.
func (h *HTTP) Convert(ctx context.Context, pcm engine.PCM, source *voiceprint.Print, t Target) (engine.PCM, error) {
	if t.Reference == nil {
		return engine.PCM{}, errors.New("convert: the HTTP converter needs the target voice's reference audio")
	}
	ref, err := t.Reference(ctx)
	if err != nil {
		return engine.PCM{}, fmt.Errorf("target reference: %w", err)
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	part := func(name, file string, data []byte) error {
		var w io.Writer
		var err error
		if file != "" {
			w, err = mw.CreateFormFile(name, file)
		} else {
			w, err = mw.CreateFormField(name)
		}
		if err == nil {
			_, err = w.Write(data)
		}
		return err
	}
	src, _ := json.Marshal(source)
	dst, _ := json.Marshal(t.Print)
	err = errors.Join(
		part("audio", "audio.wav", audio.WAV(pcm.Samples, pcm.SampleRate)),
		part("reference", "reference.wav", audio.WAV(ref.Samples, ref.SampleRate)),
		part("target_voice_id", "", []byte(t.VoiceID)),
		part("target_print", "", dst),
		part("source_print", "", src),
		mw.Close(),
	)
	if err != nil {
		return engine.PCM{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.URL, &body)
	if err != nil {
		return engine.PCM{}, err
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	if h.Key != "" {
		req.Header.Set("Authorization", "Bearer "+h.Key)
	}
	client := h.Client
	if client == nil {
		timeout := h.Timeout
		if timeout <= 0 {
			timeout = 5 * time.Minute
		}
		client = &http.Client{Timeout: timeout}
	}
	res, err := client.Do(req)
	if err != nil {
		return engine.PCM{}, fmt.Errorf("voice converter: %w", err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(res.Body, 1024))
		return engine.PCM{}, fmt.Errorf("voice converter answered %s: %s", res.Status, strings.TrimSpace(string(msg)))
	}
	limit := h.MaxResponse
	if limit <= 0 {
		limit = 200 << 20
	}
	data, err := io.ReadAll(io.LimitReader(res.Body, limit+1))
	if err != nil {
		return engine.PCM{}, fmt.Errorf("voice converter: %w", err)
	}
	if int64(len(data)) > limit {
		return engine.PCM{}, fmt.Errorf("voice converter: the answer is larger than %d bytes", limit)
	}
	samples, rate, err := audio.Decode(ctx, data)
	if err != nil {
		return engine.PCM{}, fmt.Errorf("voice converter: the answer is not audio: %w", err)
	}
	return engine.PCM{Samples: samples, SampleRate: rate}, nil
}
