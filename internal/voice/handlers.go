package voice

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

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
}

// JSON renders a voice as the API's Voice object.
func (h *Handlers) JSON(v *store.Voice, settings *Resolved) map[string]any {
	labels := map[string]string{}
	_ = json.Unmarshal([]byte(v.Labels), &labels)
	preview := h.Svc.PreviewURL(v)
	verified := []map[string]any{}
	if h.ModelsFor != nil {
		for _, m := range h.ModelsFor(v.Language) {
			verified = append(verified, map[string]any{"language": v.Language, "model_id": m, "accent": labels["accent"], "locale": nil, "preview_url": preview})
		}
	}
	out := map[string]any{
		"voice_id":                    v.ID,
		"name":                        v.Name,
		"samples":                     nil,
		"category":                    v.Category,
		"fine_tuning":                 map[string]any{"is_allowed_to_fine_tune": false, "state": map[string]any{}, "verification_failures": []string{}, "verification_attempts_count": 0, "manual_verification_requested": false},
		"labels":                      labels,
		"description":                 v.Description,
		"preview_url":                 preview,
		"available_for_tiers":         []string{},
		"settings":                    nil,
		"sharing":                     nil,
		"high_quality_base_model_ids": []string{},
		"verified_languages":          verified,
		"safety_control":              nil,
		"voice_verification":          map[string]any{"requires_verification": false, "is_verified": false, "verification_failures": []string{}, "verification_attempts_count": 0, "language": nil, "verification_attempts": nil},
		"permission_on_resource":      nil,
		"is_owner":                    v.WorkspaceID != "",
		"is_legacy":                   false,
		"is_mixed":                    false,
		"created_at_unix":             v.CreatedAt,
	}
	if settings != nil {
		out["settings"] = settings
	}
	return out
}

func (h *Handlers) list(w http.ResponseWriter, r *http.Request) error {
	c := httpx.CallerFrom(r.Context())
	voices, _, err := h.Svc.DB.ListVoices(r.Context(), c.WorkspaceID, store.VoiceFilter{})
	if err != nil {
		return err
	}
	out := make([]map[string]any, 0, len(voices))
	for i := range voices {
		out = append(out, h.JSON(&voices[i], nil))
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"voices": out})
	return nil
}

func (h *Handlers) search(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	var v httpx.Validator
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
	c := httpx.CallerFrom(r.Context())
	voices, total, err := h.Svc.DB.ListVoices(r.Context(), c.WorkspaceID, store.VoiceFilter{
		Search: q.Get("search"), Category: category, VoiceType: voiceType, Sort: sortBy, Desc: dir == "desc",
		Offset: offset, Limit: size, IDs: q["voice_ids"],
	})
	if err != nil {
		return err
	}
	out := make([]map[string]any, 0, len(voices))
	for i := range voices {
		out = append(out, h.JSON(&voices[i], nil))
	}
	more := offset+len(voices) < total
	var next any
	if more {
		next = strconv.Itoa(offset + len(voices))
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"voices": out, "has_more": more, "total_count": total, "next_page_token": next})
	return nil
}

func (h *Handlers) get(w http.ResponseWriter, r *http.Request) error {
	c := httpx.CallerFrom(r.Context())
	v, err := h.Svc.Get(r.Context(), c.WorkspaceID, r.PathValue("voice_id"))
	if err != nil {
		return err
	}
	s, err := h.Svc.Settings(r.Context(), c.WorkspaceID, v.ID)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, h.JSON(v, &s))
	return nil
}

func (h *Handlers) getSettings(w http.ResponseWriter, r *http.Request) error {
	c := httpx.CallerFrom(r.Context())
	v, err := h.Svc.Get(r.Context(), c.WorkspaceID, r.PathValue("voice_id"))
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
	c := httpx.CallerFrom(r.Context())
	v, err := h.Svc.Get(r.Context(), c.WorkspaceID, r.PathValue("voice_id"))
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
	var val httpx.Validator
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

// checkVoiceEditor lets a workspace's own voice be changed only by workspace admins and members it
// is shared with as editor or admin (premade voices' settings are each workspace's own).
func (h *Handlers) checkVoiceEditor(r *http.Request, c *httpx.Caller, v *store.Voice) error {
	if v.WorkspaceID == "" || c.Role == httpx.RoleAdmin {
		return nil
	}
	role, err := h.Svc.DB.SharedRole(r.Context(), c.WorkspaceID, store.ResourceVoice, v.ID, c.UserID)
	if err != nil {
		return err
	}
	if store.ResourceRoleRank(role) < store.ResourceRoleRank("editor") {
		return httpx.Errorf(http.StatusForbidden, "insufficient_resource_role",
			"Voice '%s' can be changed only by workspace admins and members it is shared with as editor or admin.", v.ID)
	}
	return nil
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
