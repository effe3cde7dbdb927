package voice

import (
	"context"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"

	"github.com/riverqueue/river"

	"timbre/internal/access"
	"timbre/internal/errs"
	"timbre/internal/httpx"
)

// pvcRoutes registers professional voice cloning's 14 operations.
func (h *Handlers) pvcRoutes(rt *httpx.Router) {
	w, r := httpx.Perm("voices_write"), httpx.Perm("voices_read")
	rt.Authed("POST /v1/voices/pvc", h.pvcCreate, w)
	// ServeMux finds /v1/voices/pvc/{voice_id} and /v1/voices/{voice_id}/edit ambiguous
	// (/v1/voices/pvc/edit): it is served as a two-segment wildcard that checks for "pvc".
	rt.Authed("POST /v1/voices/pvc/{voice_id}", h.pvcEdit, w, httpx.MountAs("POST /v1/voices/{pvc}/{voice_id}"))
	rt.Authed("POST /v1/voices/pvc/{voice_id}/samples", h.pvcAddSamples, w)
	rt.Authed("POST /v1/voices/pvc/{voice_id}/samples/{sample_id}", h.pvcEditSample, w)
	rt.Authed("DELETE /v1/voices/pvc/{voice_id}/samples/{sample_id}", h.pvcDeleteSample, w)
	rt.Authed("GET /v1/voices/pvc/{voice_id}/samples/{sample_id}/audio", h.pvcSampleAudio, r)
	rt.Authed("GET /v1/voices/pvc/{voice_id}/samples/{sample_id}/waveform", h.pvcWaveform, r)
	rt.Authed("GET /v1/voices/pvc/{voice_id}/samples/{sample_id}/speakers", h.pvcSpeakers, r)
	rt.Authed("POST /v1/voices/pvc/{voice_id}/samples/{sample_id}/separate-speakers", h.pvcSeparate, w)
	rt.Authed("GET /v1/voices/pvc/{voice_id}/samples/{sample_id}/speakers/{speaker_id}/audio", h.pvcSpeakerAudio, r)
	rt.Authed("GET /v1/voices/pvc/{voice_id}/captcha", h.pvcCaptcha, w)
	rt.Authed("POST /v1/voices/pvc/{voice_id}/captcha", h.pvcVerifyCaptcha, w)
	rt.Authed("POST /v1/voices/pvc/{voice_id}/train", h.pvcTrain, w)
	rt.Authed("POST /v1/voices/pvc/{voice_id}/verification", h.pvcVerification, w)
}

func caller(r *http.Request) *access.Caller { return access.CallerFrom(r.Context()) }

func (h *Handlers) pvcCreate(w http.ResponseWriter, r *http.Request) error {
	var req PVCCreate
	if err := httpx.DecodeJSON(r, h.MaxBody, &req); err != nil {
		return err
	}
	v, err := h.Svc.CreatePVC(r.Context(), caller(r), &req)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, AddVoiceResponse{VoiceID: v.ID})
	return nil
}

func (h *Handlers) pvcEdit(w http.ResponseWriter, r *http.Request) error {
	if r.PathValue("pvc") != "pvc" {
		return errs.New(errs.NotFound, "not_found", "No such route.")
	}
	var req PVCCreate
	if err := httpx.DecodeJSON(r, h.MaxBody, &req); err != nil {
		return err
	}
	id := r.PathValue("voice_id")
	if err := h.Svc.EditPVC(r.Context(), caller(r), id, &req); err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, AddVoiceResponse{VoiceID: id})
	return nil
}

// readPVCFiles reads a multipart upload of a professional voice (after the voice is known, so
// another workspace's id is a 404 before the upload is read).
func (h *Handlers) readPVCFiles(r *http.Request, fields ...string) (*httpx.Form, error) {
	if _, err := h.Svc.pvcVoice(r.Context(), caller(r), r.PathValue("voice_id")); err != nil {
		return nil, err
	}
	return httpx.ReadFormFiles(r, MaxSampleBytes, MaxSamplesBytes, fields...)
}

func formFiles(form *httpx.Form) []CloneFile {
	var out []CloneFile
	for _, f := range form.Files {
		out = append(out, CloneFile{Name: f.Name, ContentType: f.ContentType, Data: f.Data})
	}
	return out
}

func (h *Handlers) pvcAddSamples(w http.ResponseWriter, r *http.Request) error {
	form, err := h.readPVCFiles(r, "files", "files[]")
	if err != nil {
		return err
	}
	denoise := false
	if s := strings.TrimSpace(form.Value("remove_background_noise")); s != "" {
		if denoise, err = strconv.ParseBool(s); err != nil {
			var v errs.Validator
			v.Add("body", "remove_background_noise", "bool_parsing", "Input should be a valid boolean.")
			return v.Err()
		}
	}
	rows, err := h.Svc.AddPVCSamples(r.Context(), caller(r), r.PathValue("voice_id"), formFiles(form), denoise)
	if err != nil {
		return err
	}
	out := make([]Sample, len(rows))
	for i, s := range rows {
		out[i] = sampleJSON(s)
	}
	httpx.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (h *Handlers) pvcEditSample(w http.ResponseWriter, r *http.Request) error {
	var req PVCSampleEdit
	if err := httpx.DecodeJSON(r, h.MaxBody, &req); err != nil {
		return err
	}
	id := r.PathValue("voice_id")
	if err := h.Svc.EditPVCSample(r.Context(), caller(r), id, r.PathValue("sample_id"), &req); err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, AddVoiceResponse{VoiceID: id})
	return nil
}

func (h *Handlers) pvcDeleteSample(w http.ResponseWriter, r *http.Request) error {
	if err := h.Svc.DeletePVCSample(r.Context(), caller(r), r.PathValue("voice_id"), r.PathValue("sample_id")); err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, StatusResponse{Status: "ok"})
	return nil
}

// SampleAudioResponse is the API's VoiceSamplePreviewResponseModel.
type SampleAudioResponse struct {
	AudioBase64  string  `json:"audio_base_64"`
	VoiceID      string  `json:"voice_id"`
	SampleID     string  `json:"sample_id"`
	MediaType    string  `json:"media_type"`
	DurationSecs float64 `json:"duration_secs"`
}

func (h *Handlers) pvcSampleAudio(w http.ResponseWriter, r *http.Request) error {
	data, smp, err := h.Svc.PVCSampleAudio(r.Context(), caller(r), r.PathValue("voice_id"), r.PathValue("sample_id"))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, SampleAudioResponse{AudioBase64: base64.StdEncoding.EncodeToString(data), VoiceID: smp.VoiceID,
		SampleID: smp.ID, MediaType: smp.MimeType, DurationSecs: smp.DurationSecs})
	return nil
}

// WaveformResponse is the API's VoiceSampleVisualWaveformResponseModel.
type WaveformResponse struct {
	SampleID       string    `json:"sample_id"`
	VisualWaveform []float64 `json:"visual_waveform"`
}

func (h *Handlers) pvcWaveform(w http.ResponseWriter, r *http.Request) error {
	p, err := h.Svc.Waveform(r.Context(), caller(r), r.PathValue("voice_id"), r.PathValue("sample_id"))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, WaveformResponse{SampleID: r.PathValue("sample_id"), VisualWaveform: p})
	return nil
}

// SeparationResponse is the API's SpeakerSeparationResponseModel.
type SeparationResponse struct {
	VoiceID            string             `json:"voice_id"`
	SampleID           string             `json:"sample_id"`
	Status             string             `json:"status"`
	Speakers           map[string]Speaker `json:"speakers"`
	SelectedSpeakerIDs []string           `json:"selected_speaker_ids"`
}

func (h *Handlers) pvcSpeakers(w http.ResponseWriter, r *http.Request) error {
	smp, speakers, err := h.Svc.Separation(r.Context(), caller(r), r.PathValue("voice_id"), r.PathValue("sample_id"))
	if err != nil {
		return err
	}
	res := SeparationResponse{VoiceID: smp.VoiceID, SampleID: smp.ID, Status: smp.SeparationStatus}
	if smp.SeparationStatus == "completed" {
		res.Speakers, res.SelectedSpeakerIDs = speakers, parseSelected(smp.SelectedSpeakerIDs)
		if res.SelectedSpeakerIDs == nil {
			res.SelectedSpeakerIDs = []string{}
		}
	}
	httpx.WriteJSON(w, http.StatusOK, res)
	return nil
}

func (h *Handlers) pvcSeparate(w http.ResponseWriter, r *http.Request) error {
	if err := h.Svc.StartSeparation(r.Context(), caller(r), r.PathValue("voice_id"), r.PathValue("sample_id")); err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, StatusResponse{Status: "ok"})
	return nil
}

// SpeakerAudioResponse is the API's SpeakerAudioResponseModel.
type SpeakerAudioResponse struct {
	AudioBase64  string  `json:"audio_base_64"`
	MediaType    string  `json:"media_type"`
	DurationSecs float64 `json:"duration_secs"`
}

func (h *Handlers) pvcSpeakerAudio(w http.ResponseWriter, r *http.Request) error {
	wav, secs, err := h.Svc.SpeakerAudio(r.Context(), caller(r), r.PathValue("voice_id"), r.PathValue("sample_id"), r.PathValue("speaker_id"))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, SpeakerAudioResponse{AudioBase64: base64.StdEncoding.EncodeToString(wav), MediaType: "audio/wav", DurationSecs: round3(secs)})
	return nil
}

// PVCCaptchaResponse is GET …/captcha's answer (the reference gives it no schema): the sentence to read.
type PVCCaptchaResponse struct {
	Text string `json:"text"`
}

func (h *Handlers) pvcCaptcha(w http.ResponseWriter, r *http.Request) error {
	text, err := h.Svc.Captcha(r.Context(), caller(r), r.PathValue("voice_id"))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, PVCCaptchaResponse{Text: text})
	return nil
}

func (h *Handlers) pvcVerifyCaptcha(w http.ResponseWriter, r *http.Request) error {
	form, err := h.readPVCFiles(r, "recording")
	if err != nil {
		return err
	}
	files := formFiles(form)
	if len(files) != 1 {
		var v errs.Validator
		v.Add("body", "recording", "missing", "Field required: send one recording of the captcha text.")
		return v.Err()
	}
	if err := h.Svc.VerifyPVCCaptcha(r.Context(), caller(r), r.PathValue("voice_id"), files[0]); err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, StatusResponse{Status: "ok"})
	return nil
}

func (h *Handlers) pvcTrain(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		ModelID *string `json:"model_id"`
	}
	if r.ContentLength != 0 {
		if err := httpx.DecodeJSON(r, h.MaxBody, &req); err != nil {
			return err
		}
	}
	model := ""
	if req.ModelID != nil {
		model = *req.ModelID
	}
	if err := h.Svc.StartTraining(r.Context(), caller(r), r.PathValue("voice_id"), model); err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, StatusResponse{Status: "ok"})
	return nil
}

func (h *Handlers) pvcVerification(w http.ResponseWriter, r *http.Request) error {
	form, err := h.readPVCFiles(r, "files", "files[]")
	if err != nil {
		return err
	}
	if err := h.Svc.RequestManualVerification(r.Context(), caller(r), r.PathValue("voice_id"), formFiles(form), form.Value("extra_text")); err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, StatusResponse{Status: "ok"})
	return nil
}

// SeparateWorker runs speaker separations.
type SeparateWorker struct {
	river.WorkerDefaults[SeparateArgs]
	Svc *Service
}

func (w *SeparateWorker) Work(ctx context.Context, j *river.Job[SeparateArgs]) error {
	return w.Svc.Separate(ctx, j.Args)
}

// TrainWorker trains professional voices.
type TrainWorker struct {
	river.WorkerDefaults[TrainArgs]
	Svc *Service
}

func (w *TrainWorker) Work(ctx context.Context, j *river.Job[TrainArgs]) error {
	return w.Svc.Train(ctx, j.Args)
}
