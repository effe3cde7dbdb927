package sts

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"timbre/internal/access"
	"timbre/internal/audio"
	"timbre/internal/errs"
	"timbre/internal/httpx"
	"timbre/internal/voice"
)

// Handlers serves the speech-to-speech routes.
type Handlers struct {
	Svc *Service
	// MaxUpload bounds the uploaded recording (bytes).
	MaxUpload int64
}

// DefaultMaxUpload is the largest recording accepted by default.
const DefaultMaxUpload = 50 << 20

// Routes registers the handlers.
func (h *Handlers) Routes(rt *httpx.Router) {
	feature := httpx.Feature("speech_to_speech")
	rt.Authed("POST /v1/speech-to-speech/{voice_id}", h.convert(false), httpx.Perm("speech_to_speech"), feature)
	rt.Authed("POST /v1/speech-to-speech/{voice_id}/stream", h.convert(true), httpx.Perm("speech_to_speech"), feature)
}

func (h *Handlers) convert(stream bool) httpx.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		c := access.CallerFrom(r.Context())
		// An unknown voice (or another workspace's) is refused before the upload is read.
		if _, err := h.Svc.Voices.Get(r.Context(), c.WorkspaceID, r.PathValue("voice_id")); err != nil {
			return err
		}
		req, err := h.parse(r, stream)
		if err != nil {
			return err
		}
		hdr := w.Header()
		setHeaders := func(res *Result) {
			hdr.Set("Content-Type", res.ContentType)
			hdr.Set("request-id", res.RequestID)
			hdr.Set("character-cost", strconv.FormatInt(res.Credits, 10))
			if res.HistoryID != "" {
				hdr.Set("history-item-id", res.HistoryID)
			}
		}
		if stream {
			// Each piece's audio is flushed as soon as it is encoded.
			err := h.Svc.Stream(r.Context(), c, req, setHeaders, flusher{w})
			if err != nil {
				for _, k := range []string{"request-id", "character-cost", "history-item-id"} {
					hdr.Del(k)
				}
			}
			return err
		}
		res, err := h.Svc.Convert(r.Context(), c, req)
		if err != nil {
			return err
		}
		setHeaders(res)
		hdr.Set("Content-Length", strconv.Itoa(len(res.Audio)))
		_, _ = w.Write(res.Audio) // a client that left has nothing to be told
		return nil
	}
}

// flusher flushes the response after every write, so each piece's audio goes out at once.
type flusher struct{ w http.ResponseWriter }

func (f flusher) Write(p []byte) (int, error) {
	n, err := f.w.Write(p)
	if err == nil {
		err = http.NewResponseController(f.w).Flush()
	}
	return n, err
}

// parse reads the query and the multipart form (httpx.ReadForm refuses an oversize upload as it
// arrives). Fields: audio (required), model_id, voice_settings (JSON), seed,
// remove_background_noise, file_format.
func (h *Handlers) parse(r *http.Request, stream bool) (*Request, error) {
	q := r.URL.Query()
	var v errs.Validator
	req := &Request{VoiceID: r.PathValue("voice_id"), Format: httpx.OutputFormat(q, &v, audio.DefaultFormat, audio.FormatsFor(stream)),
		Logging: httpx.QueryBool(q, &v, "enable_logging", true), ModelID: DefaultModel}
	httpx.StreamingLatency(q, &v)
	if err := v.Err(); err != nil {
		return nil, err
	}
	limit := h.MaxUpload
	if limit <= 0 {
		limit = DefaultMaxUpload
	}
	form, err := httpx.ReadForm(r, limit, "audio")
	if err != nil {
		return nil, err
	}
	req.Audio, req.FileName = form.File, form.FileName
	if form.File == nil {
		v.Add("body", "audio", "missing", "Field required: send the recording in the audio field.")
	}
	if s := strings.TrimSpace(form.Value("model_id")); s != "" {
		if !slices.Contains(Models, s) {
			v.Add("body", "model_id", "value_error", fmt.Sprintf("Unknown model_id '%s' for speech to speech. Use one of: %s.", s, strings.Join(Models, ", ")))
		}
		req.ModelID = s
	}
	if s := strings.TrimSpace(form.Value("voice_settings")); s != "" && s != "null" {
		var st voice.Settings
		if err := json.Unmarshal([]byte(s), &st); err != nil {
			v.Add("body", "voice_settings", "json_invalid", "voice_settings must be a JSON object of voice settings.")
		} else {
			st.Validate(&v, "voice_settings.")
			req.Settings = &st
		}
	}
	if s := strings.TrimSpace(form.Value("seed")); s != "" && s != "null" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 || n > math.MaxUint32 {
			v.Add("body", "seed", "value_error", "Input should be an integer between 0 and 4294967295.")
		}
		req.Seed = &n
	}
	if s := strings.TrimSpace(form.Value("remove_background_noise")); s != "" {
		b, err := strconv.ParseBool(s)
		if err != nil {
			v.Add("body", "remove_background_noise", "bool_parsing", "Input should be a valid boolean.")
		}
		req.RemoveNoise = b
	}
	switch s := strings.TrimSpace(form.Value("file_format")); s {
	case "", "other":
	case "pcm_s16le_16":
		req.RawPCM = true
	default:
		v.Add("body", "file_format", "enum", "Input should be 'pcm_s16le_16' or 'other'.")
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	return req, nil
}
