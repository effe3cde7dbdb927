package account

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"timbre/internal/access"
	"timbre/internal/audit"
	"timbre/internal/errs"
	"timbre/internal/httpx"
	"timbre/internal/store"
)

// Field limits.
const (
	MaxNameLen       = 100 // survey first_name, role, subrole
	MaxSourceLen     = 200
	MaxPublicNameLen = 50
	DefaultMessages  = 50
	MaxMessages      = 100
)

// Handlers serves the account routes.
type Handlers struct {
	Svc     *Service
	MaxBody int64
}

// Routes registers the handlers.
func (h *Handlers) Routes(rt *httpx.Router) {
	read, write := httpx.Perm("user_read"), httpx.Perm("user_write")
	rt.Authed("POST /v1/user/onboarding-survey-complete", h.surveyComplete, write)
	rt.Authed("POST /v1/user/onboarding-checklist/initiate", h.checklistInitiate, write)
	rt.Authed("POST /v1/user/onboarding-checklist/update", h.checklistUpdate, write)
	rt.Authed("POST /v1/user/onboarding-checklist/hide", h.checklistHide, write)
	rt.Authed("POST /v1/user/onboarding-checklist/mark-complete", h.checklistMarkComplete, write)
	rt.Authed("GET /api/notifications", h.listMessages, read)
	rt.Authed("POST /api/notifications/read-all", h.readAll, write)
	rt.Authed("POST /api/notifications/{message_id}/read", h.readMessage, write)
	rt.Authed("POST /api/account/ccpa-opt-out", h.ccpaOptOut, write)
	rt.Authed("POST /v1/user/accept-bipa-terms", h.acceptBIPA, httpx.Perm("terms_of_service_accept"))
	rt.Authed("GET /v1/user/has-alpha-access", h.hasAlphaAccess, read)
	rt.Authed("POST /v1/user/request-alpha-access", h.requestAlphaAccess, write)
	rt.Authed("POST /v1/user/update-public-user-name", h.updatePublicUserName, write)
	rt.Authed("PATCH /api/account", h.updateName, write)
}

func (h *Handlers) maxBody() int64 {
	if h.MaxBody > 0 {
		return h.MaxBody
	}
	return 1 << 20
}

func caller(r *http.Request) *access.Caller { return access.CallerFrom(r.Context()) }

// ---- onboarding survey ---------------------------------------------------------------------

// Survey is spec §3's onboarding_survey.
type Survey struct {
	FirstName string `json:"first_name"`
	Role      string `json:"role"`
	Subrole   string `json:"subrole"`
	Timezone  string `json:"timezone"`
	Source    string `json:"source"`
}

func textOK(s string) bool {
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return utf8.ValidString(s)
}

func checkText(v *errs.Validator, field, s string, required bool, max int) {
	switch {
	case required && s == "":
		v.Add("body", field, "missing", "Field required.")
	case utf8.RuneCountInString(s) > max:
		v.Add("body", field, "string_too_long", "String should have at most "+strconv.Itoa(max)+" characters.")
	case !textOK(s):
		v.Add("body", field, "value_error", "The text must not contain control characters.")
	}
}

func (h *Handlers) surveyComplete(w http.ResponseWriter, r *http.Request) error {
	var b Survey
	if err := httpx.DecodeJSON(r, h.maxBody(), &b); err != nil {
		return err
	}
	b.FirstName, b.Role, b.Subrole = strings.TrimSpace(b.FirstName), strings.TrimSpace(b.Role), strings.TrimSpace(b.Subrole)
	b.Timezone, b.Source = strings.TrimSpace(b.Timezone), strings.TrimSpace(b.Source)
	var v errs.Validator
	checkText(&v, "first_name", b.FirstName, true, MaxNameLen)
	checkText(&v, "role", b.Role, true, MaxNameLen)
	checkText(&v, "subrole", b.Subrole, false, MaxNameLen)
	checkText(&v, "source", b.Source, false, MaxSourceLen)
	if b.Timezone != "" {
		if _, err := time.LoadLocation(b.Timezone); err != nil || b.Timezone == "Local" || len(b.Timezone) > 64 {
			v.Add("body", "timezone", "value_error", "Unknown time zone: use an IANA name such as Europe/Berlin.")
		}
	}
	if err := v.Err(); err != nil {
		return err
	}
	data, _ := json.Marshal(b)
	if err := h.Svc.DB.CompleteOnboardingSurvey(r.Context(), caller(r).UserID, b.FirstName, string(data)); err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, onboardingCompleted{IsOnboardingCompleted: true})
	return nil
}

// ---- onboarding checklist -----------------------------------------------------------------------

var errNoChecklist = errs.Errorf(errs.Conflict, "onboarding_checklist_not_initiated", "The onboarding checklist has not been started.")

// checklistResponse is the checklist as GET /v1/user shows it; item_id and newly_completed
// are there only in the answer to completing an item.
type checklistResponse struct {
	OnboardingChecklist            *Checklist `json:"onboarding_checklist"`
	IsOnboardingChecklistCompleted bool       `json:"is_onboarding_checklist_completed"`
	ItemID                         string     `json:"item_id,omitempty"`
	NewlyCompleted                 *bool      `json:"newly_completed,omitempty"`
}

// checklistState answers with the checklist; item, if given, fills item_id and newly_completed.
func (h *Handlers) checklistState(w http.ResponseWriter, r *http.Request, item *checklistResponse) error {
	a, err := h.Svc.DB.AccountExtras(r.Context(), caller(r).UserID)
	if err != nil {
		return err
	}
	out := checklistResponse{}
	if item != nil {
		out = *item
	}
	out.OnboardingChecklist, out.IsOnboardingChecklistCompleted = checklistOf(a), a.IsOnboardingChecklistCompleted
	httpx.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (h *Handlers) checklistInitiate(w http.ResponseWriter, r *http.Request) error {
	if _, err := h.Svc.DB.InitiateOnboardingChecklist(r.Context(), caller(r).UserID, store.NewID()); err != nil {
		return err
	}
	return h.checklistState(w, r, nil)
}

func (h *Handlers) checklistUpdate(w http.ResponseWriter, r *http.Request) error {
	var b struct {
		ItemID *string `json:"item_id"`
	}
	if err := httpx.DecodeJSON(r, h.maxBody(), &b); err != nil {
		return err
	}
	if b.ItemID == nil || *b.ItemID == "" {
		return errs.Field("body", "item_id", "missing", "Field required.")
	}
	known := false
	for _, id := range Items {
		known = known || id == *b.ItemID
	}
	if !known {
		return errs.Field("body", "item_id", "enum", "Input should be one of: "+strings.Join(Items, ", ")+".")
	}
	fresh, err := h.Svc.DB.CompleteOnboardingItem(r.Context(), caller(r).UserID, *b.ItemID, h.Svc.now())
	if err != nil {
		return err
	}
	return h.checklistState(w, r, &checklistResponse{ItemID: *b.ItemID, NewlyCompleted: &fresh})
}

func (h *Handlers) checklistHide(w http.ResponseWriter, r *http.Request) error {
	if err := h.Svc.DB.SetOnboardingChecklistHidden(r.Context(), caller(r).UserID, true); errors.Is(err, store.ErrNotFound) {
		return errNoChecklist
	} else if err != nil {
		return err
	}
	return h.checklistState(w, r, nil)
}

func (h *Handlers) checklistMarkComplete(w http.ResponseWriter, r *http.Request) error {
	if err := h.Svc.DB.MarkOnboardingChecklistComplete(r.Context(), caller(r).UserID); errors.Is(err, store.ErrNotFound) {
		return errNoChecklist
	} else if err != nil {
		return err
	}
	return h.checklistState(w, r, nil)
}

// ---- notifications -------------------------------------------------------------------------

// message is a notification in the user's inbox.
type message struct {
	MessageID        string `json:"message_id"`
	Severity         string `json:"severity"`
	Title            string `json:"title"`
	Description      string `json:"description"`
	NeedsAttention   bool   `json:"needs_attention"`
	CreateDateUnixMs int64  `json:"create_date_unix_ms"`
	HasBeenRead      bool   `json:"has_been_read"`
}

type messageList struct {
	Messages    []message `json:"messages"`
	UnreadCount int       `json:"unread_count"`
}

// messageEvent is spec §3's message event (message_id, event).
type messageEvent struct {
	MessageID string `json:"message_id"`
	Event     string `json:"event"`
}

type messagesMarkedRead struct {
	Status     string `json:"status"`
	MarkedRead int64  `json:"marked_read"`
}

type onboardingCompleted struct {
	IsOnboardingCompleted bool `json:"is_onboarding_completed"` // always true
}

type ccpaOptOutResponse struct {
	CCPAOptOut bool `json:"ccpa_opt_out"`
}

type bipaAccepted struct {
	AcceptedBIPATerms bool `json:"accepted_bipa_terms"` // always true
}

type alphaAccess struct {
	HasAlphaAccess       bool `json:"has_alpha_access"`
	AlphaAccessRequested bool `json:"alpha_access_requested"`
}

type publicUserNameResponse struct {
	PublicUserName string `json:"public_user_name"`
}

func renderMessage(m store.Message) message {
	return message{MessageID: m.ID, Severity: m.Severity, Title: m.Title, Description: m.Description,
		NeedsAttention: m.NeedsAttention, CreateDateUnixMs: m.CreatedAtMs, HasBeenRead: m.ReadAtMs != nil}
}

func (h *Handlers) listMessages(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	limit := DefaultMessages
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > MaxMessages {
			return errs.Field("query", "limit", "value_error", "limit must be a whole number from 1 to "+strconv.Itoa(MaxMessages)+".")
		}
		limit = n
	}
	unreadOnly := false
	if s := q.Get("unread_only"); s != "" {
		b, err := strconv.ParseBool(s)
		if err != nil {
			return errs.Field("query", "unread_only", "bool_parsing", "Input should be a valid boolean.")
		}
		unreadOnly = b
	}
	ms, unread, err := h.Svc.DB.Messages(r.Context(), caller(r).UserID, unreadOnly, limit)
	if err != nil {
		return err
	}
	out := make([]message, len(ms))
	for i, m := range ms {
		out[i] = renderMessage(m)
	}
	httpx.WriteJSON(w, http.StatusOK, messageList{Messages: out, UnreadCount: unread})
	return nil
}

func (h *Handlers) readMessage(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("message_id")
	err := h.Svc.DB.MarkMessageRead(r.Context(), caller(r).UserID, id, h.Svc.now())
	if errors.Is(err, store.ErrNotFound) {
		return errs.Errorf(errs.NotFound, "message_not_found", "There is no message with this id.")
	}
	if err != nil {
		return err
	}
	// The message event (spec §3: message_id, event).
	httpx.WriteJSON(w, http.StatusOK, messageEvent{MessageID: id, Event: "read"})
	return nil
}

func (h *Handlers) readAll(w http.ResponseWriter, r *http.Request) error {
	n, err := h.Svc.DB.MarkAllMessagesRead(r.Context(), caller(r).UserID, h.Svc.now())
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, messagesMarkedRead{Status: "ok", MarkedRead: n})
	return nil
}

// ---- privacy and terms -------------------------------------------------------------------------

func (h *Handlers) ccpaOptOut(w http.ResponseWriter, r *http.Request) error {
	var b struct {
		CCPAOptOut *bool `json:"ccpa_opt_out"`
	}
	if err := httpx.DecodeJSON(r, h.maxBody(), &b); err != nil {
		return err
	}
	if b.CCPAOptOut == nil {
		return errs.Field("body", "ccpa_opt_out", "missing", "Field required.")
	}
	c := caller(r)
	if err := h.Svc.DB.SetCCPAOptOut(r.Context(), c.UserID, *b.CCPAOptOut); err != nil {
		return err
	}
	audit.Record(r.Context(), h.Svc.DB, r, "", "", audit.Event{Class: "account", Activity: "ccpa_opt_out", Target: c.UserID,
		Details: audit.Details{"ccpa_opt_out": *b.CCPAOptOut}})
	httpx.WriteJSON(w, http.StatusOK, ccpaOptOutResponse{CCPAOptOut: *b.CCPAOptOut})
	return nil
}

func (h *Handlers) acceptBIPA(w http.ResponseWriter, r *http.Request) error {
	c := caller(r)
	if err := h.Svc.DB.AcceptBIPATerms(r.Context(), c.UserID, h.Svc.now()); err != nil {
		return err
	}
	audit.Record(r.Context(), h.Svc.DB, r, "", "", audit.Event{Class: "account", Activity: "accept_bipa_terms", Target: c.UserID})
	httpx.WriteJSON(w, http.StatusOK, bipaAccepted{AcceptedBIPATerms: true})
	return nil
}

// ---- alpha access ----------------------------------------------------------------------------

func (h *Handlers) alphaState(w http.ResponseWriter, r *http.Request) error {
	a, err := h.Svc.DB.AccountExtras(r.Context(), caller(r).UserID)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, alphaAccess{HasAlphaAccess: a.HasAlphaAccess, AlphaAccessRequested: a.AlphaRequestedAt != nil})
	return nil
}

func (h *Handlers) hasAlphaAccess(w http.ResponseWriter, r *http.Request) error {
	return h.alphaState(w, r)
}

func (h *Handlers) requestAlphaAccess(w http.ResponseWriter, r *http.Request) error {
	c := caller(r)
	before, err := h.Svc.DB.AccountExtras(r.Context(), c.UserID)
	if err != nil {
		return err
	}
	if err := h.Svc.DB.RequestAlphaAccess(r.Context(), c.UserID, h.Svc.now()); err != nil {
		return err
	}
	if before.AlphaRequestedAt == nil && !before.HasAlphaAccess {
		if _, err := h.Svc.Notify(r.Context(), c.UserID, "info", "Alpha access requested",
			"We received your request for alpha access. An administrator of this Timbre server will review it.", false); err != nil {
			h.Svc.log().Warn("alpha request notification", "err", err)
		}
	}
	return h.alphaState(w, r)
}

// ---- public user name ----------------------------------------------------------------------------

func (h *Handlers) updatePublicUserName(w http.ResponseWriter, r *http.Request) error {
	var b struct {
		PublicUserName *string `json:"public_user_name"`
	}
	if err := httpx.DecodeJSON(r, h.maxBody(), &b); err != nil {
		return err
	}
	name := ""
	if b.PublicUserName != nil {
		name = strings.Join(strings.Fields(*b.PublicUserName), " ")
	}
	var v errs.Validator
	checkText(&v, "public_user_name", name, true, MaxPublicNameLen)
	if err := v.Err(); err != nil {
		return err
	}
	if err := h.Svc.DB.SetPublicUserName(r.Context(), caller(r).UserID, name); err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, publicUserNameResponse{PublicUserName: name})
	return nil
}
