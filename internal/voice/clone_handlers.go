package voice

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"timbre/internal/access"
	"timbre/internal/errs"
	"timbre/internal/httpx"
	"timbre/internal/store"
)

// cloneRoutes registers instant cloning, deletion and samples.
func (h *Handlers) cloneRoutes(rt *httpx.Router) {
	rt.Authed("POST /v1/voices/add", h.add, httpx.Perm("voices_write"))
	rt.Authed("POST /v1/voices/{voice_id}/edit", h.edit, httpx.Perm("voices_write"))
	rt.Authed("DELETE /v1/voices/{voice_id}", h.delete, httpx.Perm("voices_write"))
	rt.Authed("GET /v1/voices/{voice_id}/samples/{sample_id}/audio", h.sampleAudio, httpx.Perm("voices_read"))
	rt.Authed("DELETE /v1/voices/{voice_id}/samples/{sample_id}", h.deleteSample, httpx.Perm("voices_write"))
}

// AddVoiceResponse is POST /v1/voices/add's answer.
type AddVoiceResponse struct {
	VoiceID              string `json:"voice_id"`
	RequiresVerification bool   `json:"requires_verification"`
}

// StatusResponse is the {"status":"ok"} of edits and deletes.
type StatusResponse struct {
	Status string `json:"status"`
}

// Sample is the API's SampleResponseModel.
type Sample struct {
	SampleID                string    `json:"sample_id"`
	FileName                string    `json:"file_name"`
	MimeType                string    `json:"mime_type"`
	SizeBytes               int64     `json:"size_bytes"`
	Hash                    string    `json:"hash"`
	DurationSecs            *float64  `json:"duration_secs"`
	RemoveBackgroundNoise   *bool     `json:"remove_background_noise"`
	HasIsolatedAudio        *bool     `json:"has_isolated_audio"`
	HasIsolatedAudioPreview *bool     `json:"has_isolated_audio_preview"`
	SpeakerSeparation       *struct{} `json:"speaker_separation"`
	TrimStart               *int64    `json:"trim_start"`
	TrimEnd                 *int64    `json:"trim_end"`
}

func sampleJSON(s store.VoiceSample) Sample {
	d, rb, no := s.DurationSecs, s.RemoveBackgroundNoise, false
	out := Sample{SampleID: s.ID, FileName: s.FileName, MimeType: s.MimeType, SizeBytes: s.SizeBytes, Hash: s.Hash,
		DurationSecs: &d, RemoveBackgroundNoise: &rb, HasIsolatedAudio: &no, HasIsolatedAudioPreview: &no}
	if s.TrimStartMS != 0 || s.TrimEndMS != 0 {
		ts, te := s.TrimStartMS, s.TrimEndMS
		out.TrimStart, out.TrimEnd = &ts, &te
	}
	return out
}

// samplesJSON is a voice's samples list: null for voices made without samples (premade ones).
func samplesJSON(ss []store.VoiceSample) []Sample {
	if len(ss) == 0 {
		return nil
	}
	out := make([]Sample, len(ss))
	for i, s := range ss {
		out[i] = sampleJSON(s)
	}
	return out
}

// parseClone reads the multipart form of add and edit: name, files (repeated; files[] too),
// remove_background_noise, description, labels (a JSON object, as a string).
func parseClone(r *http.Request) (*CloneRequest, error) {
	form, err := httpx.ReadFormFiles(r, MaxSampleBytes, MaxSamplesBytes, "files", "files[]")
	if err != nil {
		return nil, err
	}
	req := &CloneRequest{Name: form.Value("name")}
	var v errs.Validator
	if s := strings.TrimSpace(form.Value("remove_background_noise")); s != "" {
		b, err := strconv.ParseBool(s)
		if err != nil {
			v.Add("body", "remove_background_noise", "bool_parsing", "Input should be a valid boolean.")
		}
		req.RemoveBackgroundNoise = b
	}
	if d, ok := form.Fields["description"]; ok && len(d) > 0 {
		req.Description = &d[0]
	}
	if s := strings.TrimSpace(form.Value("labels")); s != "" && s != "null" {
		var raw map[string]any
		if err := json.Unmarshal([]byte(s), &raw); err != nil {
			v.Add("body", "labels", "value_error", "Labels should be a JSON object of strings, such as {\"accent\": \"american\"}.")
		} else {
			req.Labels = map[string]string{}
			for k, x := range raw {
				str, ok := x.(string)
				if !ok {
					v.Add("body", "labels", "value_error", "Label '"+k+"' should be a string.")
					break
				}
				req.Labels[k] = str
			}
		}
	}
	for _, f := range form.Files {
		req.Files = append(req.Files, CloneFile{Name: f.Name, ContentType: f.ContentType, Data: f.Data})
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	return req, nil
}

func (h *Handlers) add(w http.ResponseWriter, r *http.Request) error {
	req, err := parseClone(r)
	if err != nil {
		return err
	}
	v, err := h.Svc.AddClone(r.Context(), access.CallerFrom(r.Context()), req)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, AddVoiceResponse{VoiceID: v.ID})
	return nil
}

func (h *Handlers) edit(w http.ResponseWriter, r *http.Request) error {
	// Another workspace's voice is a 404 before its upload is read.
	if _, err := h.Svc.Lookup(r.Context(), access.CallerFrom(r.Context()).WorkspaceID, r.PathValue("voice_id")); err != nil {
		return err
	}
	req, err := parseClone(r)
	if err != nil {
		return err
	}
	if err := h.Svc.EditClone(r.Context(), access.CallerFrom(r.Context()), r.PathValue("voice_id"), req); err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, StatusResponse{Status: "ok"})
	return nil
}

func (h *Handlers) delete(w http.ResponseWriter, r *http.Request) error {
	if err := h.Svc.DeleteVoice(r.Context(), access.CallerFrom(r.Context()), r.PathValue("voice_id")); err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, StatusResponse{Status: "ok"})
	return nil
}

func (h *Handlers) sampleAudio(w http.ResponseWriter, r *http.Request) error {
	data, ct, err := h.Svc.SampleAudio(r.Context(), access.CallerFrom(r.Context()), r.PathValue("voice_id"), r.PathValue("sample_id"))
	if err != nil {
		return err
	}
	httpx.WriteBody(w, ct, data)
	return nil
}

func (h *Handlers) deleteSample(w http.ResponseWriter, r *http.Request) error {
	if err := h.Svc.DeleteSample(r.Context(), access.CallerFrom(r.Context()), r.PathValue("voice_id"), r.PathValue("sample_id")); err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, StatusResponse{Status: "ok"})
	return nil
}
