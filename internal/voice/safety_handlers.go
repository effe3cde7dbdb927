package voice

import (
	"encoding/base64"
	"net/http"

	"timbre/internal/access"
	"timbre/internal/httpx"
)

// safetyRoutes registers the voice captcha (spec §7: "voice captcha GET and POST (multipart
// recording)").
func (h *Handlers) safetyRoutes(rt *httpx.Router) {
	rt.Authed("GET /v1/voices/{voice_id}/captcha", h.getCaptcha, httpx.Perm("voices_read"))
	rt.Authed("POST /v1/voices/{voice_id}/captcha", h.postCaptcha, httpx.Perm("voices_write"))
}

// CaptchaResponse is GET /v1/voices/{voice_id}/captcha: the sentence to read, and the sentence
// spoken with the voice (base64 MP3) when its engine can say it.
type CaptchaResponse struct {
	Text              string  `json:"text"`
	AudioBase64       *string `json:"audio_base64"`
	AudioMimeType     string  `json:"audio_mime_type"`
	AttemptsRemaining int     `json:"attempts_remaining"`
	MaxWordErrorRate  float64 `json:"max_word_error_rate"`
}

// CaptchaVerifyResponse is POST /v1/voices/{voice_id}/captcha when the recording passes
// (the reference's VerifyPVCVoiceCaptchaResponseModel {"status":"ok"}, plus what was heard).
type CaptchaVerifyResponse struct {
	Status        string  `json:"status"`
	Transcript    string  `json:"transcript"`
	WordErrorRate float64 `json:"word_error_rate"`
}

func (h *Handlers) getCaptcha(w http.ResponseWriter, r *http.Request) error {
	cp, err := h.Svc.IssueCaptcha(r.Context(), access.CallerFrom(r.Context()), r.PathValue("voice_id"))
	if err != nil {
		return err
	}
	out := CaptchaResponse{Text: cp.Text, AudioMimeType: "audio/mpeg", AttemptsRemaining: cp.AttemptsLeft, MaxWordErrorRate: cp.MaxWordErrors}
	if len(cp.Audio) > 0 {
		b := base64.StdEncoding.EncodeToString(cp.Audio)
		out.AudioBase64 = &b
	}
	w.Header().Set("Cache-Control", "no-store")
	httpx.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (h *Handlers) postCaptcha(w http.ResponseWriter, r *http.Request) error {
	c := access.CallerFrom(r.Context())
	// An unknown voice (or another workspace's) is refused before the upload is read.
	if _, err := h.Svc.Lookup(r.Context(), c.WorkspaceID, r.PathValue("voice_id")); err != nil {
		return err
	}
	form, err := httpx.ReadForm(r, MaxCaptchaBytes, "recording")
	if err != nil {
		return err
	}
	res, err := h.Svc.VerifyCaptcha(r.Context(), c, r.PathValue("voice_id"), form.File)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, CaptchaVerifyResponse{Status: "ok", Transcript: res.Heard, WordErrorRate: res.WordErrorRate})
	return nil
}
