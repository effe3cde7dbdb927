package webhook

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"timbre/internal/access"
	"timbre/internal/audit"
	"timbre/internal/errs"
	"timbre/internal/httpx"
	"timbre/internal/store"
)

// Handlers serves the workspace webhook routes (admins only).
type Handlers struct {
	Svc     *Service
	MaxBody int64
}

// Routes registers the handlers.
func (h *Handlers) Routes(rt *httpx.Router) {
	// Admins, and editors to whom a group delegates webhooks_manage.
	admin := httpx.AdminOr("webhooks_manage")
	rt.Authed("GET /v1/workspace/webhooks", h.list, httpx.Perm("workspace_read"), admin)
	rt.Authed("POST /v1/workspace/webhooks", h.create, httpx.Perm("webhooks_write"), admin)
	rt.Authed("PATCH /v1/workspace/webhooks/{webhook_id}", h.update, httpx.Perm("webhooks_write"), admin)
	rt.Authed("DELETE /v1/workspace/webhooks/{webhook_id}", h.delete, httpx.Perm("webhooks_write"), admin)
	rt.Authed("GET /api/workspace/webhooks/{webhook_id}/deliveries", h.deliveries, httpx.Perm("workspace_read"), admin)
	rt.Authed("POST /api/workspace/webhooks/{webhook_id}/test", h.test, httpx.Perm("webhooks_write"), admin)
}

// Limits on what a webhook may hold.
const (
	MaxNameLen    = 100
	MaxURLLen     = 2048
	MaxHeaders    = 20
	MaxHeaderLen  = 1024
	MaxPerSpace   = 100
	secretPrefix  = "wsec_"
	secretRandLen = 48
)

// ErrWebhookNotFound answers a webhook id that is not in the caller's workspace.
var ErrWebhookNotFound = errs.New(errs.NotFound, "webhook_not_found", "The webhook was not found in this workspace.")

// ErrWebhookDisabled answers a test of a webhook that is disabled (by an admin or automatically).
var ErrWebhookDisabled = errs.New(errs.Conflict, "webhook_disabled", "The webhook is disabled, so it receives no events: enable it to send a test event.")

func invalid(loc []any, typ, msg string) *errs.Validation {
	return &errs.Validation{Fields: []errs.FieldError{{Loc: loc, Msg: msg, Type: typ}}}
}

func (h *Handlers) maxBody() int64 {
	if h.MaxBody > 0 {
		return h.MaxBody
	}
	return 1 << 20
}

// Webhook is the API's WorkspaceWebhookResponseModel; usage and events are null unless asked
// for (include_usages).
type Webhook struct {
	Name                       string          `json:"name"`
	WebhookID                  string          `json:"webhook_id"`
	WebhookURL                 string          `json:"webhook_url"`
	IsDisabled                 bool            `json:"is_disabled"`
	IsAutoDisabled             bool            `json:"is_auto_disabled"`
	CreatedAtUnix              int64           `json:"created_at_unix"`
	AuthType                   string          `json:"auth_type"`
	Usage                      *[]WebhookUsage `json:"usage"`
	Events                     *[]string       `json:"events"`
	MostRecentFailureErrorCode *int64          `json:"most_recent_failure_error_code"`
	MostRecentFailureTimestamp *int64          `json:"most_recent_failure_timestamp"`
}

// WebhookUsage names a product use of a webhook.
type WebhookUsage struct {
	UsageType string `json:"usage_type"`
}

// WebhookList is GET /v1/workspace/webhooks' answer.
type WebhookList struct {
	Webhooks []Webhook `json:"webhooks"`
}

// WebhookCreated is the answer to creating a webhook: the signing secret is shown this once.
type WebhookCreated struct {
	WebhookID     string `json:"webhook_id"`
	WebhookSecret string `json:"webhook_secret"`
}

// Delivery is one attempt in a webhook's delivery log; status_code and error are null when
// there was no response or no error.
type Delivery struct {
	ID              string  `json:"id"`
	DeliveryID      string  `json:"delivery_id"`
	EventType       string  `json:"event_type"`
	Attempt         int64   `json:"attempt"`
	TimestampUnixMs int64   `json:"timestamp_unix_ms"`
	StatusCode      *int64  `json:"status_code"`
	DurationMs      int64   `json:"duration_ms"`
	Error           *string `json:"error"`
	Success         bool    `json:"success"`
	WillRetry       bool    `json:"will_retry"`
}

// DeliveryPage is a page of the delivery log; next_cursor is null on the last page.
type DeliveryPage struct {
	Deliveries []Delivery `json:"deliveries"`
	HasMore    bool       `json:"has_more"`
	NextCursor *string    `json:"next_cursor"`
}

// TestQueued is the answer to sending a test event.
type TestQueued struct {
	DeliveryID string `json:"delivery_id"`
	EventType  string `json:"event_type"`
}

// view renders a webhook as the API's WorkspaceWebhookResponseModel.
func view(w *store.Webhook, withUsages bool) Webhook {
	out := Webhook{
		Name: w.Name, WebhookID: w.ID, WebhookURL: w.URL, IsDisabled: w.IsDisabled, IsAutoDisabled: w.IsAutoDisabled,
		CreatedAtUnix: w.CreatedAt, AuthType: w.AuthType,
		MostRecentFailureErrorCode: w.LastFailureCode, MostRecentFailureTimestamp: w.LastFailureUnix,
	}
	if withUsages {
		usage := []WebhookUsage{}
		for _, e := range w.Events {
			if u, ok := usageOf[e]; ok {
				usage = append(usage, WebhookUsage{UsageType: u})
			}
		}
		events := w.Events
		out.Usage, out.Events = &usage, &events
	}
	return out
}

func (h *Handlers) list(w http.ResponseWriter, r *http.Request) error {
	withUsages := false
	if s := r.URL.Query().Get("include_usages"); s != "" {
		b, err := strconv.ParseBool(s)
		if err != nil {
			return errs.Field("query", "include_usages", "bool_parsing", "Input should be a valid boolean, unable to interpret input.")
		}
		withUsages = b
	}
	hooks, err := h.Svc.DB.ListWebhooks(r.Context(), access.CallerFrom(r.Context()).WorkspaceID)
	if err != nil {
		return err
	}
	out := make([]Webhook, 0, len(hooks))
	for i := range hooks {
		out = append(out, view(&hooks[i], withUsages))
	}
	httpx.WriteJSON(w, http.StatusOK, WebhookList{Webhooks: out})
	return nil
}

// checkHeaders validates custom request headers; loc is where they sit in the body.
func checkHeaders(hdr map[string]string, loc []any) error {
	if len(hdr) > MaxHeaders {
		return invalid(loc, "too_long", "At most "+strconv.Itoa(MaxHeaders)+" request headers are allowed.")
	}
	for k, v := range hdr {
		if k == "" || strings.ContainsFunc(k, func(c rune) bool { return c <= ' ' || c >= 0x7f || strings.ContainsRune("()<>@,;:\\\"/[]?={}", c) }) {
			return invalid(append(slices.Clone(loc), k), "value_error", "The header name "+strconv.Quote(k)+" is not a valid HTTP header name.")
		}
		if slices.Contains(reserved, strings.ToLower(k)) {
			return invalid(append(slices.Clone(loc), k), "value_error", "The header "+k+" is set by Timbre and cannot be replaced.")
		}
		if len(v) > MaxHeaderLen || strings.ContainsAny(v, "\r\n\x00") {
			return invalid(append(slices.Clone(loc), k), "value_error", "Header values must be at most 1024 characters, without line breaks.")
		}
	}
	return nil
}

func checkName(name string, loc []any) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", invalid(loc, "missing", "Please give the webhook a name.")
	}
	if utf8.RuneCountInString(name) > MaxNameLen {
		return "", invalid(loc, "string_too_long", "The name must be at most 100 characters.")
	}
	return name, nil
}

func (h *Handlers) create(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Settings *struct {
			AuthType       *string           `json:"auth_type"`
			Name           *string           `json:"name"`
			WebhookURL     *string           `json:"webhook_url"`
			RequestHeaders map[string]string `json:"request_headers"`
		} `json:"settings"`
	}
	if err := httpx.DecodeJSON(r, h.maxBody(), &body); err != nil {
		return err
	}
	st := body.Settings
	if st == nil {
		return invalid([]any{"body", "settings"}, "missing", "Field required")
	}
	if st.AuthType == nil {
		return invalid([]any{"body", "settings", "auth_type"}, "missing", "Field required")
	}
	if *st.AuthType != "hmac" {
		return invalid([]any{"body", "settings", "auth_type"}, "literal_error", "Input should be 'hmac': Timbre signs webhooks with HMAC only.")
	}
	if st.Name == nil {
		return invalid([]any{"body", "settings", "name"}, "missing", "Field required")
	}
	name, err := checkName(*st.Name, []any{"body", "settings", "name"})
	if err != nil {
		return err
	}
	if st.WebhookURL == nil {
		return invalid([]any{"body", "settings", "webhook_url"}, "missing", "Field required")
	}
	u := strings.TrimSpace(*st.WebhookURL)
	if len(u) > MaxURLLen {
		return invalid([]any{"body", "settings", "webhook_url"}, "string_too_long", "The webhook URL must be at most 2048 characters.")
	}
	if err := h.Svc.CheckURL(r.Context(), u); err != nil {
		return invalid([]any{"body", "settings", "webhook_url"}, "value_error", err.Error())
	}
	if err := checkHeaders(st.RequestHeaders, []any{"body", "settings", "request_headers"}); err != nil {
		return err
	}
	c := access.CallerFrom(r.Context())
	existing, err := h.Svc.DB.ListWebhooks(r.Context(), c.WorkspaceID)
	if err != nil {
		return err
	}
	if len(existing) >= MaxPerSpace {
		return errs.Errorf(errs.Invalid, "webhook_limit_reached", "A workspace can have at most %d webhooks.", MaxPerSpace)
	}
	id := store.NewID()
	secret := secretPrefix + store.RandomString(secretRandLen)
	secretEnc, err := h.Svc.Box.Seal(secret, secretPurpose(id))
	if err != nil {
		return err
	}
	headersEnc := ""
	if len(st.RequestHeaders) > 0 {
		raw, _ := json.Marshal(st.RequestHeaders)
		if headersEnc, err = h.Svc.Box.Seal(string(raw), headersPurpose(id)); err != nil {
			return err
		}
	}
	wh := store.Webhook{ID: id, WorkspaceID: c.WorkspaceID, Name: name, URL: u, AuthType: "hmac", SecretEnc: secretEnc, HeadersEnc: headersEnc,
		Events: []string{}, RetryEnabled: true, CreatedByUserID: c.UserID, CreatedAt: h.Svc.now().Unix()}
	if err := h.Svc.DB.CreateWebhook(r.Context(), wh); err != nil {
		return err
	}
	audit.Record(r.Context(), h.Svc.DB, r, "", "", audit.Event{Class: "webhook", Activity: "create", Target: wh.ID,
		Details: audit.Details{"name": name, "webhook_url": u}})
	httpx.WriteJSON(w, http.StatusOK, WebhookCreated{WebhookID: wh.ID, WebhookSecret: secret})
	return nil
}

func (h *Handlers) update(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		IsDisabled     *bool             `json:"is_disabled"`
		Name           *string           `json:"name"`
		RetryEnabled   *bool             `json:"retry_enabled"`
		RequestHeaders map[string]string `json:"request_headers"`
		Events         *[]string         `json:"events"`
	}
	if err := httpx.DecodeJSON(r, h.maxBody(), &body); err != nil {
		return err
	}
	var v errs.Validator
	if body.IsDisabled == nil {
		v.Add("body", "is_disabled", "missing", "Field required")
	}
	var name string
	if body.Name == nil {
		v.Add("body", "name", "missing", "Field required")
	} else {
		var err error
		if name, err = checkName(*body.Name, []any{"body", "name"}); err != nil {
			return err
		}
	}
	if err := v.Err(); err != nil {
		return err
	}
	if err := checkHeaders(body.RequestHeaders, []any{"body", "request_headers"}); err != nil {
		return err
	}
	if body.Events != nil {
		for i, e := range *body.Events {
			if !slices.Contains(Events, e) {
				return invalid([]any{"body", "events", i}, "enum", "Input should be 'voice_library_removal_notice', 'speech_to_text', 'agent_qa' or 'flows'.")
			}
		}
		ev := slices.Compact(slices.Sorted(slices.Values(*body.Events)))
		body.Events = &ev
	}
	c := access.CallerFrom(r.Context())
	id := r.PathValue("webhook_id")
	before, err := h.Svc.DB.Webhook(r.Context(), c.WorkspaceID, id)
	if errors.Is(err, store.ErrNotFound) {
		return ErrWebhookNotFound
	}
	if err != nil {
		return err
	}
	upd := store.WebhookUpdate{Name: &name, IsDisabled: body.IsDisabled, RetryEnabled: body.RetryEnabled, Events: body.Events}
	if body.RequestHeaders != nil {
		enc := ""
		if len(body.RequestHeaders) > 0 {
			raw, _ := json.Marshal(body.RequestHeaders)
			if enc, err = h.Svc.Box.Seal(string(raw), headersPurpose(id)); err != nil {
				return err
			}
		}
		upd.HeadersEnc = &enc
	}
	if err := h.Svc.DB.UpdateWebhook(r.Context(), c.WorkspaceID, id, upd); errors.Is(err, store.ErrNotFound) {
		return ErrWebhookNotFound
	} else if err != nil {
		return err
	}
	activity := "update"
	switch {
	case *body.IsDisabled && !before.IsDisabled:
		activity = "disable"
	case !*body.IsDisabled && (before.IsDisabled || before.IsAutoDisabled):
		activity = "enable"
	}
	details := audit.Details{"name": name, "is_disabled": *body.IsDisabled}
	if body.Events != nil {
		details["events"] = *body.Events
	}
	if body.RetryEnabled != nil {
		details["retry_enabled"] = *body.RetryEnabled
	}
	audit.Record(r.Context(), h.Svc.DB, r, "", "", audit.Event{Class: "webhook", Activity: activity, Target: id, Details: details})
	httpx.OK(w)
	return nil
}

func (h *Handlers) delete(w http.ResponseWriter, r *http.Request) error {
	c := access.CallerFrom(r.Context())
	id := r.PathValue("webhook_id")
	if err := h.Svc.DB.DeleteWebhook(r.Context(), c.WorkspaceID, id); errors.Is(err, store.ErrNotFound) {
		return ErrWebhookNotFound
	} else if err != nil {
		return err
	}
	audit.Record(r.Context(), h.Svc.DB, r, "", "", audit.Event{Class: "webhook", Activity: "delete", Target: id})
	httpx.OK(w)
	return nil
}

func (h *Handlers) deliveries(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	limit, cursor := 50, int64(0)
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 100 {
			return errs.Field("query", "limit", "value_error", "Input should be an integer from 1 to 100.")
		}
		limit = n
	}
	if s := q.Get("cursor"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 1 {
			return errs.Field("query", "cursor", "value_error", "The cursor is not one this server gave out.")
		}
		cursor = n
	}
	c := access.CallerFrom(r.Context())
	id := r.PathValue("webhook_id")
	if _, err := h.Svc.DB.Webhook(r.Context(), c.WorkspaceID, id); errors.Is(err, store.ErrNotFound) {
		return ErrWebhookNotFound
	} else if err != nil {
		return err
	}
	rows, more, err := h.Svc.DB.ListWebhookAttempts(r.Context(), c.WorkspaceID, id, cursor, limit)
	if err != nil {
		return err
	}
	page := DeliveryPage{Deliveries: make([]Delivery, 0, len(rows)), HasMore: more}
	for _, a := range rows {
		d := Delivery{ID: a.ID, DeliveryID: a.DeliveryID, EventType: a.EventType, Attempt: a.Attempt,
			TimestampUnixMs: a.AtUnixMs, DurationMs: a.DurationMs, Success: a.Success, WillRetry: a.WillRetry}
		if a.StatusCode != 0 {
			d.StatusCode = &a.StatusCode
		}
		if a.Error != "" {
			d.Error = &a.Error
		}
		page.Deliveries = append(page.Deliveries, d)
	}
	if more {
		next := strconv.FormatInt(rows[len(rows)-1].Seq, 10)
		page.NextCursor = &next
	}
	httpx.WriteJSON(w, http.StatusOK, page)
	return nil
}

// test queues a signed test event to one webhook (whatever it is subscribed to) and answers 202
// with the delivery id; its attempts show up in the delivery log like any event's.
func (h *Handlers) test(w http.ResponseWriter, r *http.Request) error {
	c := access.CallerFrom(r.Context())
	wh, err := h.Svc.DB.Webhook(r.Context(), c.WorkspaceID, r.PathValue("webhook_id"))
	if errors.Is(err, store.ErrNotFound) {
		return ErrWebhookNotFound
	}
	if err != nil {
		return err
	}
	if wh.IsDisabled || wh.IsAutoDisabled {
		return ErrWebhookDisabled
	}
	id, err := h.Svc.SendTest(r.Context(), wh)
	if errors.Is(err, ErrNoQueue) {
		return errs.Errorf(errs.Unavailable, "jobs_unavailable", "Background delivery is not running on this server; try again later.")
	}
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusAccepted, TestQueued{DeliveryID: id, EventType: TestEvent})
	return nil
}
