// Package user serves the signed-in user's account and subscription: GET /v1/user and
// GET /v1/user/subscription, in the API's shapes.
package user

import (
	"maps"
	"net/http"
	"time"

	"timbre/internal/access"
	"timbre/internal/account"
	"timbre/internal/httpx"
	"timbre/internal/plan"
	"timbre/internal/store"
)

// Handlers serves the user routes.
type Handlers struct {
	DB *store.DB
	// Account adds the account extras (onboarding, consent, BIPA, geo location) to /v1/user.
	Account *account.Service
	Now     func() time.Time
}

// Routes registers the handlers.
func (h *Handlers) Routes(rt *httpx.Router) {
	rt.Authed("GET /v1/user", h.user)
	rt.Authed("GET /v1/user/subscription", h.subscription)
}

func (h *Handlers) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}

// Subscription renders a workspace's subscription as the API's ExtendedSubscriptionResponseModel.
func Subscription(ws *store.Workspace) map[string]any {
	t := plan.Get(ws.Tier)
	status := "active"
	if !t.Paying && t.ID == "free" {
		status = "free"
	}
	return map[string]any{
		"tier":                                       t.ID,
		"character_count":                            ws.CharacterCount,
		"character_limit":                            t.CharacterLimit,
		"max_character_limit_extension":              0,
		"max_credit_limit_extension":                 0,
		"can_extend_character_limit":                 false,
		"allowed_to_extend_character_limit":          false,
		"next_character_count_reset_unix":            ws.NextResetUnix,
		"voice_slots_used":                           0,
		"professional_voice_slots_used":              0,
		"professional_voice_slots_used_in_workspace": 0,
		"voice_limit":                                t.VoiceLimit,
		"max_voice_add_edits":                        plan.MaxVoiceAddEdits(t),
		"voice_add_edit_counter":                     0,
		"professional_voice_limit":                   t.ProVoiceLimit,
		"can_extend_voice_limit":                     false,
		"can_use_instant_voice_cloning":              t.Paying,
		"can_use_professional_voice_cloning":         plan.AtLeast(t.ID, "creator"),
		"currency":                                   "usd",
		"current_overage":                            map[string]any{"amount": "0", "currency": "usd"},
		"status":                                     status,
		"billing_period":                             billingPeriod(ws),
		"character_refresh_period":                   "monthly_period",
		"next_invoice":                               nil,
		"open_invoices":                              []any{},
		"has_open_invoices":                          false,
		"pending_change":                             nil,
		"concurrency_limit":                          t.Concurrency,
		"max_seats":                                  t.Seats,
	}
}

// billingPeriod is the workspace's billing period (timbre admin set-plan --period sets it).
func billingPeriod(ws *store.Workspace) string {
	if ws.BillingPeriod == "" {
		return "monthly_period"
	}
	return ws.BillingPeriod
}

func (h *Handlers) user(w http.ResponseWriter, r *http.Request) error {
	c := access.CallerFrom(r.Context())
	u, err := h.DB.UserByID(r.Context(), c.UserID)
	if err != nil {
		return err
	}
	ws, err := h.DB.Workspace(r.Context(), c.WorkspaceID, h.now())
	if err != nil {
		return err
	}
	// The onboarding flags are the user's own (a new user starts with the survey pending), also
	// when the account extras are not wired.
	extras, err := h.DB.AccountExtras(r.Context(), u.ID)
	if err != nil {
		return err
	}
	seat := "workspace_member"
	if role, err := h.DB.Role(r.Context(), c.WorkspaceID, c.UserID); err == nil && role == "admin" {
		seat = "workspace_admin"
	}
	m := map[string]any{
		"user_id":                           u.ID,
		"workspace_id":                      ws.ID,
		"subscription":                      Subscription(ws),
		"is_new_user":                       h.now().Unix()-u.CreatedAt < 7*24*3600,
		"can_use_delayed_payment_methods":   false,
		"is_onboarding_completed":           extras.IsOnboardingCompleted,
		"is_onboarding_checklist_completed": extras.IsOnboardingChecklistCompleted,
		"first_name":                        u.FirstName,
		"email":                             u.Email,
		"is_api_key_hashed":                 true,
		"xi_api_key_preview":                nil,
		"created_at":                        u.CreatedAt,
		"seat_type":                         seat,
	}
	if h.Account != nil {
		extra, err := h.Account.UserFields(r.Context(), r, u.ID)
		if err != nil {
			return err
		}
		maps.Copy(m, extra)
	}
	httpx.WriteJSON(w, http.StatusOK, m)
	return nil
}

func (h *Handlers) subscription(w http.ResponseWriter, r *http.Request) error {
	ws, err := h.DB.Workspace(r.Context(), access.CallerFrom(r.Context()).WorkspaceID, h.now())
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, Subscription(ws))
	return nil
}
