// Package user serves the signed-in user's account and subscription: GET /v1/user and
// GET /v1/user/subscription, in the API's shapes.
package user

import (
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
	DB Store
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

// SubscriptionResponse is the API's ExtendedSubscriptionResponseModel. Timbre sells no voice
// slots, limit extensions or invoices, so those fields are fixed.
type SubscriptionResponse struct {
	Tier                                  string    `json:"tier"`
	CharacterCount                        int64     `json:"character_count"`
	CharacterLimit                        int64     `json:"character_limit"`
	MaxCharacterLimitExtension            int       `json:"max_character_limit_extension"`
	MaxCreditLimitExtension               int       `json:"max_credit_limit_extension"`
	CanExtendCharacterLimit               bool      `json:"can_extend_character_limit"`
	AllowedToExtendCharacterLimit         bool      `json:"allowed_to_extend_character_limit"`
	NextCharacterCountResetUnix           int64     `json:"next_character_count_reset_unix"`
	VoiceSlotsUsed                        int       `json:"voice_slots_used"`
	ProfessionalVoiceSlotsUsed            int       `json:"professional_voice_slots_used"`
	ProfessionalVoiceSlotsUsedInWorkspace int       `json:"professional_voice_slots_used_in_workspace"`
	VoiceLimit                            int       `json:"voice_limit"`
	MaxVoiceAddEdits                      int       `json:"max_voice_add_edits"`
	VoiceAddEditCounter                   int       `json:"voice_add_edit_counter"`
	ProfessionalVoiceLimit                int       `json:"professional_voice_limit"`
	CanExtendVoiceLimit                   bool      `json:"can_extend_voice_limit"`
	CanUseInstantVoiceCloning             bool      `json:"can_use_instant_voice_cloning"`
	CanUseProfessionalVoiceCloning        bool      `json:"can_use_professional_voice_cloning"`
	Currency                              string    `json:"currency"`
	CurrentOverage                        overage   `json:"current_overage"`
	Status                                string    `json:"status"`
	BillingPeriod                         string    `json:"billing_period"`
	CharacterRefreshPeriod                string    `json:"character_refresh_period"`
	NextInvoice                           *struct{} `json:"next_invoice"`  // always null
	OpenInvoices                          []any     `json:"open_invoices"` // always empty
	HasOpenInvoices                       bool      `json:"has_open_invoices"`
	PendingChange                         *struct{} `json:"pending_change"` // always null
	ConcurrencyLimit                      int       `json:"concurrency_limit"`
	MaxSeats                              int       `json:"max_seats"`
}

// overage is the amount owed beyond the plan: always nothing.
type overage struct {
	Amount   string `json:"amount"`
	Currency string `json:"currency"`
}

// Subscription renders a workspace's subscription for the API; slotsUsed is how many of its
// voices take a voice slot (plan.VoiceSlotCategories).
func Subscription(ws *store.Workspace, slotsUsed int) SubscriptionResponse {
	t := plan.Get(ws.Tier)
	status := "active"
	if !t.Paying && t.ID == "free" {
		status = "free"
	}
	return SubscriptionResponse{
		Tier:                           t.ID,
		CharacterCount:                 ws.CharacterCount,
		CharacterLimit:                 t.CharacterLimit,
		NextCharacterCountResetUnix:    ws.NextResetUnix,
		VoiceLimit:                     t.VoiceLimit,
		MaxVoiceAddEdits:               plan.MaxVoiceAddEdits(t),
		VoiceSlotsUsed:                 slotsUsed,
		VoiceAddEditCounter:            ws.VoiceAddEditCount,
		ProfessionalVoiceLimit:         plan.ProVoiceLimit(t, ws.ExtraProVoiceSlots),
		CanUseInstantVoiceCloning:      plan.CanCloneInstantly(t),
		CanUseProfessionalVoiceCloning: plan.AtLeast(t.ID, "creator"),
		Currency:                       "usd",
		CurrentOverage:                 overage{Amount: "0", Currency: "usd"},
		Status:                         status,
		BillingPeriod:                  billingPeriod(ws),
		CharacterRefreshPeriod:         "monthly_period",
		OpenInvoices:                   []any{},
		ConcurrencyLimit:               t.Concurrency,
		MaxSeats:                       t.Seats,
	}
}

// billingPeriod is the workspace's billing period (timbre admin set-plan --period sets it).
func billingPeriod(ws *store.Workspace) string {
	if ws.BillingPeriod == "" {
		return "monthly_period"
	}
	return ws.BillingPeriod
}

// userResponse is GET /v1/user's answer. The account extras add their fields when wired; their
// onboarding flags are the same as the outer ones, which take precedence in JSON.
type userResponse struct {
	UserID                         string               `json:"user_id"`
	WorkspaceID                    string               `json:"workspace_id"`
	Subscription                   SubscriptionResponse `json:"subscription"`
	IsNewUser                      bool                 `json:"is_new_user"`
	CanUseDelayedPaymentMethods    bool                 `json:"can_use_delayed_payment_methods"`
	IsOnboardingCompleted          bool                 `json:"is_onboarding_completed"`
	IsOnboardingChecklistCompleted bool                 `json:"is_onboarding_checklist_completed"`
	FirstName                      string               `json:"first_name"`
	Email                          string               `json:"email"`
	IsAPIKeyHashed                 bool                 `json:"is_api_key_hashed"`
	XIAPIKeyPreview                *string              `json:"xi_api_key_preview"` // always null: keys are hashed
	CreatedAt                      int64                `json:"created_at"`
	SeatType                       string               `json:"seat_type"`
	*account.UserFields
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
	slots, err := h.DB.CountWorkspaceVoices(r.Context(), ws.ID, plan.VoiceSlotCategories...)
	if err != nil {
		return err
	}
	seat := "workspace_member"
	if role, err := h.DB.Role(r.Context(), c.WorkspaceID, c.UserID); err == nil && role == "admin" {
		seat = "workspace_admin"
	}
	out := userResponse{
		UserID:                         u.ID,
		WorkspaceID:                    ws.ID,
		Subscription:                   Subscription(ws, slots),
		IsNewUser:                      h.now().Unix()-u.CreatedAt < 7*24*3600,
		IsOnboardingCompleted:          extras.IsOnboardingCompleted,
		IsOnboardingChecklistCompleted: extras.IsOnboardingChecklistCompleted,
		FirstName:                      u.FirstName,
		Email:                          u.Email,
		IsAPIKeyHashed:                 true,
		CreatedAt:                      u.CreatedAt,
		SeatType:                       seat,
	}
	if h.Account != nil {
		if out.UserFields, err = h.Account.UserFields(r.Context(), r, u.ID); err != nil {
			return err
		}
	}
	httpx.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (h *Handlers) subscription(w http.ResponseWriter, r *http.Request) error {
	ws, err := h.DB.Workspace(r.Context(), access.CallerFrom(r.Context()).WorkspaceID, h.now())
	if err != nil {
		return err
	}
	slots, err := h.DB.CountWorkspaceVoices(r.Context(), ws.ID, plan.VoiceSlotCategories...)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, Subscription(ws, slots))
	return nil
}
