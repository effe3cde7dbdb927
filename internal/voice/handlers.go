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

// Handlers serves the voice routes.
type Handlers struct {
	Svc     *Service
	MaxBody int64
	// ModelsFor lists the model ids that can speak a language (for verified_languages).
	ModelsFor func(lang string) []string
}

// Routes registers the handlers.
func (h *Handlers) Routes(rt *httpx.Router) {
	rt.Authed("GET /v1/voices", h.list, httpx.Perm("voices_read"))
	rt.Authed("GET /v2/voices", h.search, httpx.Perm("voices_read"))
	rt.Authed("GET /v1/voices/{voice_id}", h.get, httpx.Perm("voices_read"))
	rt.Authed("GET /v1/voices/{voice_id}/settings", h.getSettings, httpx.Perm("voices_read"))
	rt.Authed("POST /v1/voices/{voice_id}/settings/edit", h.editSettings, httpx.Perm("voices_write"))
	rt.Public("GET /v1/voices/settings/default", h.defaultSettings)
	h.cloneRoutes(rt)
	h.safetyRoutes(rt)
	h.libraryRoutes(rt)
	h.pvcRoutes(rt)
}

// Voice is the API's Voice object. Cloned voices list their samples (premade ones have none:
// null). sharing is set for voices published to the library and copies of library voices.
// safety_control is the operator's BAN or CAPTCHA (null when none is set). Timbre has no
// per-resource permissions on voices: that field is always null.
type Voice struct {
	VoiceID                 string             `json:"voice_id"`
	Name                    string             `json:"name"`
	Samples                 []Sample           `json:"samples"`
	Category                string             `json:"category"`
	FineTuning              FineTuning         `json:"fine_tuning"`
	Labels                  map[string]string  `json:"labels"`
	Description             string             `json:"description"`
	PreviewURL              *string            `json:"preview_url"` // null for workspace voices (previews are public)
	AvailableForTiers       []string           `json:"available_for_tiers"`
	Settings                *Resolved          `json:"settings"`
	Sharing                 json.RawMessage    `json:"sharing"`
	HighQualityBaseModelIDs []string           `json:"high_quality_base_model_ids"`
	VerifiedLanguages       []VerifiedLanguage `json:"verified_languages"`
	SafetyControl           *string            `json:"safety_control"`
	VoiceVerification       VoiceVerification  `json:"voice_verification"`
	PermissionOnResource    json.RawMessage    `json:"permission_on_resource"`
	IsOwner                 bool               `json:"is_owner"`
	IsLegacy                bool               `json:"is_legacy"`
	IsMixed                 bool               `json:"is_mixed"`
	CreatedAtUnix           int64              `json:"created_at_unix"`
}

// FineTuning is a voice's fine-tuning state: Timbre's voices are never fine-tuned.
type FineTuning struct {
	IsAllowedToFineTune         bool              `json:"is_allowed_to_fine_tune"`
	State                       map[string]string `json:"state"`
	VerificationFailures        []string          `json:"verification_failures"`
	VerificationAttemptsCount   int               `json:"verification_attempts_count"`
	ManualVerificationRequested bool              `json:"manual_verification_requested"`
	// Professional voices: the language, training progress (0–1) and messages per model, and
	// the seconds of speech the voice was trained on.
	Language               *string            `json:"language,omitempty"`
	Progress               map[string]float64 `json:"progress,omitempty"`
	Message                map[string]string  `json:"message,omitempty"`
	DatasetDurationSeconds *float64           `json:"dataset_duration_seconds,omitempty"`
}

// VoiceVerification is a voice's verification state: Timbre asks for none.
type VoiceVerification struct {
	RequiresVerification      bool            `json:"requires_verification"`
	IsVerified                bool            `json:"is_verified"`
	VerificationFailures      []string        `json:"verification_failures"`
	VerificationAttemptsCount int             `json:"verification_attempts_count"`
	Language                  *string         `json:"language"`
	VerificationAttempts      json.RawMessage `json:"verification_attempts"`
}

// VerifiedLanguage is a model the voice speaks its language with.
type VerifiedLanguage struct {
	Language   string  `json:"language"`
	ModelID    string  `json:"model_id"`
	Accent     string  `json:"accent"`
	Locale     *string `json:"locale"`
	PreviewURL *string `json:"preview_url"`
}

// JSON renders a voice without samples (a voice made without recordings) as the API's Voice object.
func (h *Handlers) JSON(v *store.Voice, settings *Resolved) Voice {
	return h.WithSamples(v, settings, nil)
}

// WithSamples renders a voice as the API's Voice object with its samples.
func (h *Handlers) WithSamples(v *store.Voice, settings *Resolved, samples []store.VoiceSample) Voice {
	labels := map[string]string{}
	_ = json.Unmarshal([]byte(v.Labels), &labels)
	// The public preview route serves premade voices only: a workspace's voice has none to link.
	var preview *string
	if v.WorkspaceID == "" {
		u := h.Svc.PreviewURL(v)
		preview = &u
	}
	verified := []VerifiedLanguage{}
	if h.ModelsFor != nil {
		for _, m := range h.ModelsFor(v.Language) {
			verified = append(verified, VerifiedLanguage{Language: v.Language, ModelID: m, Accent: labels["accent"], PreviewURL: preview})
		}
	}
	ft := FineTuning{State: map[string]string{}, VerificationFailures: []string{}}
	vv := VoiceVerification{VerificationFailures: []string{}}
	if v.Category == ProfessionalCategory {
		st := ParsePVC(v.PVC)
		lang, secs := st.Language, st.DatasetSeconds
		ft = FineTuning{IsAllowedToFineTune: st.Verified, State: st.State, VerificationFailures: st.Failures,
			VerificationAttemptsCount: st.Attempts, ManualVerificationRequested: st.ManualRequested,
			Language: &lang, Progress: st.Progress, Message: st.Message, DatasetDurationSeconds: &secs}
		vv = VoiceVerification{RequiresVerification: !st.Verified, IsVerified: st.Verified, VerificationFailures: st.Failures,
			VerificationAttemptsCount: st.Attempts, Language: &lang}
	}
	return Voice{
		VoiceID:                 v.ID,
		Name:                    v.Name,
		Samples:                 samplesJSON(samples),
		Category:                v.Category,
		FineTuning:              ft,
		Labels:                  labels,
		Description:             v.Description,
		PreviewURL:              preview,
		AvailableForTiers:       []string{},
		Settings:                settings,
		HighQualityBaseModelIDs: []string{},
		VerifiedLanguages:       verified,
		VoiceVerification:       vv,
		SafetyControl:           safetyJSON(v.SafetyControl),
		IsOwner:                 v.WorkspaceID != "",
		CreatedAtUnix:           v.CreatedAt,
	}
}

// VoiceList is GET /v1/voices' answer.
type VoiceList struct {
	Voices []Voice `json:"voices"`
}

// VoicePage is a page of GET /v2/voices; next_page_token is null on the last page.
type VoicePage struct {
	Voices        []Voice `json:"voices"`
	HasMore       bool    `json:"has_more"`
	TotalCount    int     `json:"total_count"`
	NextPageToken *string `json:"next_page_token"`
}

func (h *Handlers) list(w http.ResponseWriter, r *http.Request) error {
	c := access.CallerFrom(r.Context())
	voices, _, err := h.Svc.DB.ListVoices(r.Context(), c.WorkspaceID, store.VoiceFilter{})
	if err != nil {
		return err
	}
	samples, err := h.samplesOf(r, c, voices)
	if err != nil {
		return err
	}
	out := make([]Voice, 0, len(voices))
	for i := range voices {
		out = append(out, h.WithSamples(&voices[i], nil, samples[voices[i].ID]))
	}
	if err := h.withSharing(r, c, voices, out); err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, VoiceList{Voices: out})
	return nil
}

func (h *Handlers) search(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	var v errs.Validator
	size := 10
	if s := q.Get("page_size"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 100 {
			v.Add("query", "page_size", "value_error", "Input should be an integer between 1 and 100.")
		}
		size = n
	}
	offset := 0
	if tok := q.Get("next_page_token"); tok != "" {
		n, err := strconv.Atoi(tok)
		if err != nil || n < 0 {
			v.Add("query", "next_page_token", "value_error", "Invalid page token.")
		}
		offset = n
	}
	sortBy := q.Get("sort")
	if sortBy != "" && sortBy != "name" && sortBy != "created_at_unix" {
		v.Add("query", "sort", "enum", "Input should be 'created_at_unix' or 'name'.")
	}
	dir := strings.ToLower(q.Get("sort_direction"))
	if dir != "" && dir != "asc" && dir != "desc" {
		v.Add("query", "sort_direction", "enum", "Input should be 'asc' or 'desc'.")
	}
	category := q.Get("category")
	if category != "" && !oneOf(category, "premade", "cloned", "generated", "professional") {
		v.Add("query", "category", "enum", "Input should be 'premade', 'cloned', 'generated' or 'professional'.")
	}
	voiceType := q.Get("voice_type")
	if voiceType != "" && !oneOf(voiceType, "personal", "community", "default", "workspace", "non-default", "saved") {
		v.Add("query", "voice_type", "enum", "Input should be 'personal', 'community', 'default', 'workspace', 'non-default' or 'saved'.")
	}
	if err := v.Err(); err != nil {
		return err
	}
	c := access.CallerFrom(r.Context())
	voices, total, err := h.Svc.DB.ListVoices(r.Context(), c.WorkspaceID, store.VoiceFilter{
		Search: q.Get("search"), Category: category, VoiceType: voiceType, Sort: sortBy, Desc: dir == "desc",
		Offset: offset, Limit: size, IDs: q["voice_ids"], CollectionID: q.Get("collection_id"),
	})
	if err != nil {
		return err
	}
	samples, err := h.samplesOf(r, c, voices)
	if err != nil {
		return err
	}
	page := VoicePage{Voices: make([]Voice, 0, len(voices)), HasMore: offset+len(voices) < total, TotalCount: total}
	for i := range voices {
		page.Voices = append(page.Voices, h.WithSamples(&voices[i], nil, samples[voices[i].ID]))
	}
	if err := h.withSharing(r, c, voices, page.Voices); err != nil {
		return err
	}
	if page.HasMore {
		next := strconv.Itoa(offset + len(voices))
		page.NextPageToken = &next
	}
	httpx.WriteJSON(w, http.StatusOK, page)
	return nil
}

func (h *Handlers) get(w http.ResponseWriter, r *http.Request) error {
	c := access.CallerFrom(r.Context())
	v, err := h.Svc.Lookup(r.Context(), c.WorkspaceID, r.PathValue("voice_id"))
	if err != nil {
		return err
	}
	s, err := h.Svc.Settings(r.Context(), c.WorkspaceID, v.ID)
	if err != nil {
		return err
	}
	samples, err := h.Svc.Samples(r.Context(), c.WorkspaceID, v)
	if err != nil {
		return err
	}
	out := []Voice{h.WithSamples(v, &s, samples)}
	if err := h.withSharing(r, c, []store.Voice{*v}, out); err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, out[0])
	return nil
}

func (h *Handlers) getSettings(w http.ResponseWriter, r *http.Request) error {
	c := access.CallerFrom(r.Context())
	v, err := h.Svc.Lookup(r.Context(), c.WorkspaceID, r.PathValue("voice_id"))
	if err != nil {
		return err
	}
	s, err := h.Svc.Settings(r.Context(), c.WorkspaceID, v.ID)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, s)
	return nil
}

func (h *Handlers) editSettings(w http.ResponseWriter, r *http.Request) error {
	c := access.CallerFrom(r.Context())
	v, err := h.Svc.Lookup(r.Context(), c.WorkspaceID, r.PathValue("voice_id"))
	if err != nil {
		return err
	}
	if err := h.checkVoiceEditor(r, c, v); err != nil {
		return err
	}
	var body Settings
	if err := httpx.DecodeJSON(r, h.MaxBody, &body); err != nil {
		return err
	}
	var val errs.Validator
	body.Validate(&val, "")
	if err := val.Err(); err != nil {
		return err
	}
	cur, err := h.Svc.Settings(r.Context(), c.WorkspaceID, v.ID)
	if err != nil {
		return err
	}
	merged, _ := json.Marshal(body.Over(cur))
	if err := h.Svc.DB.SetVoiceSettings(r.Context(), c.WorkspaceID, v.ID, string(merged)); err != nil {
		return err
	}
	httpx.OK(w)
	return nil
}

// checkVoiceEditor: see Service.CheckEditor.
func (h *Handlers) checkVoiceEditor(r *http.Request, c *access.Caller, v *store.Voice) error {
	return h.Svc.CheckEditor(r.Context(), c, v)
}

// samplesOf loads the samples of the workspace voices of a list in one query.
func (h *Handlers) samplesOf(r *http.Request, c *access.Caller, voices []store.Voice) (map[string][]store.VoiceSample, error) {
	var ids []string
	for _, v := range voices {
		if v.WorkspaceID != "" && v.Category == cloneCategory {
			ids = append(ids, v.ID)
		}
	}
	return h.Svc.DB.VoiceSamplesOf(r.Context(), c.WorkspaceID, ids)
}

func (h *Handlers) defaultSettings(w http.ResponseWriter, r *http.Request) error {
	httpx.WriteJSON(w, http.StatusOK, Defaults)
	return nil
}

func oneOf(s string, options ...string) bool {
	for _, o := range options {
		if s == o {
			return true
		}
	}
	return false
}
