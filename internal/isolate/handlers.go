package isolate

import (
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
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
	rt.Authed("GET /v1/audio-isolation/history", h.history, httpx.Perm("audio_isolation"), feature)
	rt.Authed("GET /v1/audio-isolation/history/{history_item_id}/audio", h.audio, httpx.Perm("audio_isolation"), feature)
	rt.Authed("DELETE /v1/audio-isolation/history/{history_item_id}", h.delete, httpx.Perm("audio_isolation"), feature)
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

func (h *Handlers) history(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	var v errs.Validator
	page, pageSize := 1, 100
	if s := q.Get("page_size"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 1000 {
			v.Add("query", "page_size", "value_error", "Input should be an integer between 1 and 1000.")
		}
		pageSize = n
	}
	if s := q.Get("page"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 1_000_000 {
			v.Add("query", "page", "value_error", "Input should be an integer of at least 1.")
		}
		page = n
	}
	if err := v.Err(); err != nil {
		return err
	}
	p, err := h.Svc.History(r.Context(), access.CallerFrom(r.Context()), page, pageSize, strings.TrimSpace(q.Get("search")))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, p)
	return nil
}

func (h *Handlers) audio(w http.ResponseWriter, r *http.Request) error {
	data, ct, err := h.Svc.Audio(r.Context(), access.CallerFrom(r.Context()), r.PathValue("history_item_id"))
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	_, _ = w.Write(data)
	return nil
}

func (h *Handlers) delete(w http.ResponseWriter, r *http.Request) error {
	if err := h.Svc.Delete(r.Context(), access.CallerFrom(r.Context()), r.PathValue("history_item_id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

var errNotMultipart = errs.New(errs.Unsupported, "unsupported_media_type", "Send the request as multipart/form-data with the audio in the audio field.")

// maxFieldBytes bounds each text field (preview_b64 is an image); the audio has its own limit.
const maxFieldBytes = 4 << 20

// parse reads the multipart form part by part, so that an oversize upload is refused as it
// arrives. Fields: audio (required), file_format, preview_b64 (not on the stream route).
func (h *Handlers) parse(r *http.Request, stream bool) (*Request, error) {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return nil, errNotMultipart
	}
	limit := h.MaxUpload
	if limit <= 0 {
		limit = DefaultMaxUpload
	}
	req := &Request{}
	var v errs.Validator
	var got bool
	mr := multipart.NewReader(r.Body, params["boundary"])
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, bodyError(err)
		}
		name := p.FormName()
		max := int64(maxFieldBytes)
		if name == "audio" {
			if got {
				v.Add("body", "audio", "value_error", "Send one audio file.")
				return nil, v.Err()
			}
			max = limit
		}
		data, err := io.ReadAll(io.LimitReader(p, max+1))
		if err != nil {
			return nil, bodyError(err)
		}
		if int64(len(data)) > max {
			if name == "audio" {
				return nil, errs.Errorf(errs.TooLarge, "file_too_large", "The audio file is larger than %d MB.", limit>>20)
			}
			v.Add("body", name, "too_long", "The field is too large.")
			return nil, v.Err()
		}
		switch name {
		case "audio":
			got, req.Audio, req.FileName = true, data, p.FileName()
		case "file_format":
			switch s := strings.TrimSpace(string(data)); s {
			case "", "other":
			case "pcm_s16le_16":
				req.RawPCM = true
			default:
				v.Add("body", "file_format", "enum", "Input should be 'pcm_s16le_16' or 'other'.")
			}
		case "preview_b64":
			if !stream {
				req.PreviewB64 = string(data)
			}
		}
	}
	if !got {
		v.Add("body", "audio", "missing", "Field required: send the audio file in the audio field.")
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	return req, nil
}

// bodyError keeps errors of the connection (a cut body, the read deadline) for httpx to
// answer, and calls anything else a malformed form.
func bodyError(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, os.ErrDeadlineExceeded) {
		return err
	}
	return errs.Errorf(errs.Invalid, "invalid_multipart", "The multipart body could not be read: %v", err)
}
