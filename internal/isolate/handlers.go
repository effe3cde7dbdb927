package isolate

import (
	"net/http"
	"strconv"
	"strings"

	"timbre/internal/access"
	"timbre/internal/errs"
	"timbre/internal/httpx"
)

// Handlers serves the voice isolator's routes.
type Handlers struct {
	Svc *Service
	// MaxUpload bounds the uploaded audio file (bytes).
	MaxUpload int64
}

// DefaultMaxUpload is the largest audio file accepted by default (500 MB, as ElevenLabs).
const DefaultMaxUpload = 500 << 20

// Routes registers the handlers.
func (h *Handlers) Routes(rt *httpx.Router) {
	feature := httpx.Feature("voice_isolator")
	rt.Authed("POST /v1/audio-isolation", h.isolate(false), httpx.Perm("audio_isolation"), feature)
	rt.Authed("POST /v1/audio-isolation/stream", h.isolate(true), httpx.Perm("audio_isolation"), feature)
	httpx.KeptRoutes(rt, "/v1/audio-isolation", "history_item_id", h.Svc, httpx.Perm("audio_isolation"), feature)
}

func (h *Handlers) isolate(stream bool) httpx.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		req, err := h.parse(r, stream)
		if err != nil {
			return err
		}
		c := access.CallerFrom(r.Context())
		if !stream {
			j, data, err := h.Svc.Isolate(r.Context(), c, req)
			if err != nil {
				return err
			}
			setHeaders(w, j)
			w.Header().Set("Content-Length", strconv.Itoa(len(data)))
			_, _ = w.Write(data)
			return nil
		}
		// The stream sends each piece of mp3 as it is made (chunked, flushed by the encoder).
		j, err := h.Svc.Begin(r.Context(), c, req)
		if err != nil {
			return err
		}
		setHeaders(w, j)
		rw := &responseStart{w: w}
		if err := j.Run(r.Context(), rw); err != nil && !rw.started {
			return err
		}
		return nil // once audio went out, a failure can only end the stream early
	}
}

func setHeaders(w http.ResponseWriter, j *Job) {
	w.Header().Set("Content-Type", j.ContentType)
	w.Header().Set("history-item-id", j.ID)
	w.Header().Set("character-cost", strconv.FormatInt(j.Credits, 10))
}

// responseStart is the response as the encoder's writer: it remembers whether any audio went
// out (after which an error can no longer be answered as JSON) and flushes every write.
type responseStart struct {
	w       http.ResponseWriter
	started bool
}

func (r *responseStart) Write(p []byte) (int, error) {
	r.started = true
	n, err := r.w.Write(p)
	if f, ok := r.w.(http.Flusher); ok {
		f.Flush()
	}
	return n, err
}

// parse reads the multipart form (httpx.ReadForm refuses an oversize upload as it arrives).
// Fields: audio (required), file_format, preview_b64 (not on the stream route).
func (h *Handlers) parse(r *http.Request, stream bool) (*Request, error) {
	limit := h.MaxUpload
	if limit <= 0 {
		limit = DefaultMaxUpload
	}
	form, err := httpx.ReadForm(r, limit, "audio")
	if err != nil {
		return nil, err
	}
	req := &Request{Audio: form.File, FileName: form.FileName}
	var v errs.Validator
	switch s := strings.TrimSpace(form.Value("file_format")); s {
	case "", "other":
	case "pcm_s16le_16":
		req.RawPCM = true
	default:
		v.Add("body", "file_format", "enum", "Input should be 'pcm_s16le_16' or 'other'.")
	}
	if !stream {
		req.PreviewB64 = form.Value("preview_b64")
	}
	if form.File == nil {
		v.Add("body", "audio", "missing", "Field required: send the audio file in the audio field.")
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	return req, nil
}
