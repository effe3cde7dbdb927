package classifier

import (
	"net/http"

	"timbre/internal/errs"
	"timbre/internal/httpx"
)

// Handlers serves POST /v1/speech-classifier.
type Handlers struct {
	Svc *Service
	// MaxUpload bounds the uploaded file (bytes), as for speech to text.
	MaxUpload int64
}

// Feature is the workspace-group permission that gives members the classifier (the API's
// WorkspaceGroupPermission ai_speech_classifier). API keys need no permission for it: the
// reference has no key permission for a speech classifier, and the check reads nothing of the
// workspace and costs nothing.
const Feature = "ai_speech_classifier"

// Routes registers the handlers.
func (h *Handlers) Routes(rt *httpx.Router) {
	rt.Authed("POST /v1/speech-classifier", h.classify, httpx.Feature(Feature))
}

func (h *Handlers) classify(w http.ResponseWriter, r *http.Request) error {
	form, err := httpx.ReadForm(r, h.MaxUpload, "file")
	if err != nil {
		return err
	}
	if form.File == nil {
		var v errs.Validator
		v.Add("body", "file", "missing", "Field required: file.")
		return v.Err()
	}
	res, err := h.Svc.Classify(r.Context(), form.File)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, res)
	return nil
}
