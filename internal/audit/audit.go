// Package audit records security-relevant actions (sign-ins, key changes, member and role
// changes, SSO changes, …) per workspace, and serves the log to admins.
package audit

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"timbre/internal/access"
	"timbre/internal/errs"
	"timbre/internal/httpx"
	"timbre/internal/store"
)

// Event is what a domain reports.
type Event struct {
	WorkspaceID string
	Class       string // auth, api_key, member, invite, group, sso, webhook, workspace, mfa, session
	Activity    string // sign_in, sign_in_failed, create, update, delete, role_change, …
	Target      string
	Details     Details
}

// Details are an event's particulars, stored as a JSON object; their keys differ per activity.
type Details map[string]any

// Writer is the store method Record needs (store.DB has it), so that a domain holding its own
// narrow store interface can record too.
type Writer interface {
	AddAudit(ctx context.Context, e store.AuditEntry) error
}

// Record writes an event with the actor taken from the request (its caller, or userID/email
// when the request is not authenticated yet, as at sign-in). Failures are logged, never returned:
// the action itself has already happened.
func Record(ctx context.Context, db Writer, r *http.Request, actorUserID, actorEmail string, ev Event) {
	e := store.AuditEntry{WorkspaceID: ev.WorkspaceID, ClassName: ev.Class, Activity: ev.Activity, Target: ev.Target,
		ActorUserID: actorUserID, ActorEmail: actorEmail}
	if c := access.CallerFrom(ctx); c != nil {
		if e.ActorUserID == "" {
			e.ActorUserID = c.UserID
		}
		e.ActorKeyID = c.APIKeyID
		if e.WorkspaceID == "" {
			e.WorkspaceID = c.WorkspaceID
		}
	}
	if r != nil {
		if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
			e.IP = host
		}
	}
	if ev.Details != nil {
		b, _ := json.Marshal(ev.Details)
		e.Details = string(b)
	}
	if err := db.AddAudit(context.WithoutCancel(ctx), e); err != nil {
		httpx.Logger(ctx).Error("audit log write failed", "err", err, "class", ev.Class, "activity", ev.Activity)
	}
}

// Handlers serves GET /v1/workspace/audit-logs to admins.
type Handlers struct{ DB Store }

// Routes registers the handlers.
func (h *Handlers) Routes(rt *httpx.Router) {
	rt.Authed("GET /v1/workspace/audit-logs", h.list, httpx.Perm("audit_log_read"), httpx.AdminOr("audit_log_read"))
}

// Page sizes of the audit log.
const (
	DefaultLimit = 50
	MaxLimit     = 100
	// maxScan bounds how many rows one page reads when it filters by an OCSF class or activity
	// name (those map onto several stored values, so the filter runs here); a page that hits it
	// returns what it found and a cursor to continue.
	maxScan = 5000
)

func (h *Handlers) list(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	var v errs.Validator
	num := func(name string, lo, hi int64) int64 {
		s := q.Get(name)
		if s == "" {
			return 0
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < lo || n > hi {
			v.Add("query", name, "value_error", "Input should be an integer from "+strconv.FormatInt(lo, 10)+" to "+strconv.FormatInt(hi, 10)+".")
		}
		return n
	}
	limit := int(num("limit", 1, MaxLimit))
	if limit == 0 {
		limit = DefaultLimit
	}
	f := store.AuditFilter{
		BeforeSeq: num("cursor", 1, 1<<62),
		FromMs:    num("time_from_unix_ms", 0, 1<<62), ToMs: num("time_to_unix_ms", 0, 1<<62),
		ActorUserID: q.Get("actor_uid"),
	}
	if err := v.Err(); err != nil {
		return err
	}
	// class_name and activity_name may be the OCSF names the API shows or the stored codes.
	var match func(store.AuditEntry) bool
	className, activityName := q.Get("class_name"), q.Get("activity_name")
	if className != "" {
		if _, known := classes[className]; known {
			f.ClassName = className
		} else {
			match = and(match, func(e store.AuditEntry) bool { return strings.EqualFold(ocsfClass(e.ClassName).name, className) })
		}
	}
	if activityName != "" {
		if isCode(activityName) {
			f.Activity = activityName
		} else {
			match = and(match, func(e store.AuditEntry) bool {
				return strings.EqualFold(activityLabel(e.ClassName, e.Activity), activityName)
			})
		}
	}
	ws := access.CallerFrom(r.Context()).WorkspaceID
	var entries []store.AuditEntry
	more := false
	var lastSeq int64
	if match == nil {
		f.Limit = limit
		var err error
		if entries, more, err = h.DB.ListAudit(r.Context(), ws, f); err != nil {
			return err
		}
		if len(entries) > 0 {
			lastSeq = entries[len(entries)-1].Seq
		}
	} else {
		f.Limit = MaxLimit
		scanned := 0
		for {
			page, pageMore, err := h.DB.ListAudit(r.Context(), ws, f)
			if err != nil {
				return err
			}
			for _, e := range page {
				scanned++
				lastSeq = e.Seq
				if !match(e) {
					continue
				}
				if len(entries) == limit {
					more = true
					break
				}
				entries = append(entries, e)
			}
			if more || !pageMore || len(page) == 0 {
				break
			}
			if scanned >= maxScan {
				more = true
				break
			}
			f.BeforeSeq = page[len(page)-1].Seq
		}
		if more && len(entries) == limit {
			lastSeq = entries[len(entries)-1].Seq
		}
	}
	names := h.actorNames(r, entries)
	page := Page{Entries: make([]Entry, 0, len(entries)), HasMore: more}
	for _, e := range entries {
		who := names[e.ActorUserID]
		page.Entries = append(page.Entries, Render(e, who.email, who.name))
	}
	if more {
		next := strconv.FormatInt(lastSeq, 10)
		page.NextCursor = &next
	}
	httpx.WriteJSON(w, http.StatusOK, page)
	return nil
}

func and(a, b func(store.AuditEntry) bool) func(store.AuditEntry) bool {
	if a == nil {
		return b
	}
	return func(e store.AuditEntry) bool { return a(e) && b(e) }
}

func isCode(s string) bool {
	return s != "" && !strings.ContainsFunc(s, func(c rune) bool { return !(c == '_' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9') })
}

type actor struct{ email, name string }

// actorNames looks up the email and name of the users acting in entries that did not record
// their email.
func (h *Handlers) actorNames(r *http.Request, entries []store.AuditEntry) map[string]actor {
	out := map[string]actor{}
	for _, e := range entries {
		if e.ActorUserID == "" {
			continue
		}
		if _, done := out[e.ActorUserID]; done {
			continue
		}
		a := actor{}
		if u, err := h.DB.UserByID(r.Context(), e.ActorUserID); err == nil {
			a = actor{email: u.Email, name: u.FirstName}
		}
		out[e.ActorUserID] = a
	}
	return out
}

// ocsf is an OCSF event class of the Identity & Access Management category.
type ocsf struct {
	uid  int
	name string
	// activities maps stored activity codes onto the class's activity ids.
	activities map[string]int
}

var (
	authentication = ocsf{3002, "Authentication", map[string]int{"sign_in": 1, "sign_in_failed": 1, "sign_out": 2, "sign_out_all": 2,
		"mfa_challenge": 6, "mfa_failed": 6, "switch_workspace": 7, "sso_sign_in": 1}}
	accountChange = ocsf{3001, "Account Change", map[string]int{"create": 1, "sign_up": 1, "enable": 2, "password_change": 3, "password_reset": 4,
		"disable": 5, "delete": 6, "lock": 9, "locked": 9, "mfa_enable": 10, "mfa_disable": 11, "unlock": 12, "email_change": 99}}
	entityManagement = ocsf{3004, "Entity Management", map[string]int{"create": 1, "read": 2, "update": 3, "delete": 4, "enable": 8,
		"disable": 9, "auto_disable": 9, "activate": 10, "deactivate": 11}}
	userAccess = ocsf{3005, "User Access Management", map[string]int{"role_change": 1, "assign": 1, "grant": 1, "share": 1, "revoke": 2,
		"unshare": 2, "remove": 2}}
	groupManagement = ocsf{3006, "Group Management", map[string]int{"assign": 1, "revoke": 2, "add_member": 3, "remove_member": 4,
		"delete": 5, "create": 6}}
)

// classes maps the stored class codes onto OCSF classes, and names them for messages.
var classes = map[string]struct {
	class *ocsf
	noun  string
}{
	"auth":            {&authentication, ""},
	"session":         {&authentication, "Session"},
	"account":         {&accountChange, "Account"},
	"user":            {&accountChange, "Account"},
	"mfa":             {&accountChange, "Two-Factor Authentication"},
	"member":          {&userAccess, "Member"},
	"invite":          {&userAccess, "Invite"},
	"sharing":         {&userAccess, "Resource Sharing"},
	"group":           {&groupManagement, "Group"},
	"api_key":         {&entityManagement, "API Key"},
	"service_account": {&entityManagement, "Service Account"},
	"webhook":         {&entityManagement, "Webhook"},
	"sso":             {&entityManagement, "SSO Provider"},
	"workspace":       {&entityManagement, "Workspace"},
}

func ocsfClass(class string) *ocsf {
	if c, ok := classes[class]; ok {
		return c.class
	}
	return &entityManagement
}

// activityNouns names stored activity codes in the API's style ("Subscription Creation").
var activityNouns = map[string]string{
	"create": "Creation", "update": "Update", "delete": "Deletion", "enable": "Enablement", "disable": "Disablement",
	"auto_disable": "Automatic Disablement", "sign_in": "Sign In", "sign_in_failed": "Failed Sign In", "sign_out": "Sign Out",
	"sign_out_all": "Sign Out Everywhere", "role_change": "Role Change", "accept": "Acceptance", "decline": "Decline",
	"revoke": "Revocation", "remove": "Removal", "add_member": "Member Addition", "remove_member": "Member Removal",
	"mfa_enable": "Enablement", "mfa_disable": "Disablement",
}

// activityLabel is the human activity name of a stored class and activity.
func activityLabel(class, activity string) string {
	noun := activityNouns[activity]
	if noun == "" {
		words := strings.Fields(strings.ReplaceAll(activity, "_", " "))
		for i, w := range words {
			words[i] = strings.ToUpper(w[:1]) + w[1:]
		}
		noun = strings.Join(words, " ")
	}
	prefix := strings.ReplaceAll(class, "_", " ")
	if c, ok := classes[class]; ok {
		prefix = c.noun
	} else if prefix != "" {
		prefix = strings.ToUpper(prefix[:1]) + prefix[1:]
	}
	if prefix == "" {
		return noun
	}
	return prefix + " " + noun
}

// Render maps a stored entry onto the API's WorkspaceAuditLogEntryResponse (OCSF 1.6: class and
// activity ids, type_uid = class_uid × 100 + activity_id, actor, device, status).
// actorEmail and actorName fill in what the entry itself did not record (may be empty).
func Render(e store.AuditEntry, actorEmail, actorName string) Entry {
	cl := ocsfClass(e.ClassName)
	activityID, ok := cl.activities[e.Activity]
	if !ok {
		activityID = 99
	}
	failed := strings.HasSuffix(e.Activity, "_failed") || e.Activity == "locked"
	statusID, severity := 1, 1
	if failed {
		statusID, severity = 2, 2
	}
	if e.Activity == "auto_disable" {
		severity = 3
	}
	var details Details
	_ = json.Unmarshal([]byte(e.Details), &details)
	if details == nil {
		details = Details{}
	}
	if s, ok := details["success"].(bool); ok && !s {
		statusID = 2
	}
	label := activityLabel(e.ClassName, e.Activity)

	email := e.ActorEmail
	if email == "" {
		email = actorEmail
	}
	user := User{TypeID: 1, Type: "User"}
	by := email
	switch {
	case e.ActorUserID != "":
		user.UID = e.ActorUserID
		if email != "" {
			user.EmailAddr = email
			if at := strings.LastIndexByte(email, '@'); at >= 0 {
				user.Domain = email[at+1:]
			}
		}
		if actorName != "" {
			user.Name, user.FullName = actorName, actorName
		}
		if by == "" {
			by = "user " + e.ActorUserID
		}
	case email != "":
		user.EmailAddr = email
	default:
		user.TypeID, user.Type = 3, "System"
		by = "Timbre"
	}
	act := Actor{User: user}
	if e.ActorKeyID != "" {
		act.AppName, act.AppUID = "API key", e.ActorKeyID
		by += " (API key " + e.ActorKeyID + ")"
	}
	msg := label
	if e.Target != "" {
		msg += " of " + e.Target
	}
	msg += " by " + by
	var device *Device
	if e.IP != "" {
		device = &Device{IP: e.IP, TypeID: 99}
	}
	t := time.UnixMilli(e.AtUnixMs).UTC()
	return Entry{
		ID:           e.ID,
		Time:         e.AtUnixMs,
		TimeDT:       t.Format("2006-01-02T15:04:05.000Z07:00"),
		ActivityID:   activityID,
		ActivityName: label,
		CategoryName: "Identity & Access Management",
		CategoryUID:  3,
		ClassName:    cl.name,
		ClassUID:     cl.uid,
		TypeUID:      cl.uid*100 + activityID,
		TypeName:     cl.name + ": " + label,
		SeverityID:   severity,
		StatusID:     statusID,
		Actor:        act,
		Device:       device,
		Message:      msg,
		Metadata:     Metadata{Version: "1.6.0", Product: Product{Name: "Timbre", VendorName: "Timbre"}},
		Unmapped:     Unmapped{Class: e.ClassName, Activity: e.Activity, TargetID: e.Target, Details: details},
	}
}

// Entry is an audit log entry as the API answers it (WorkspaceAuditLogEntryResponse, OCSF 1.6).
type Entry struct {
	ID           string          `json:"id"`
	Time         int64           `json:"time"`
	TimeDT       string          `json:"time_dt"`
	ActivityID   int             `json:"activity_id"`
	ActivityName string          `json:"activity_name"`
	CategoryName string          `json:"category_name"`
	CategoryUID  int             `json:"category_uid"`
	ClassName    string          `json:"class_name"`
	ClassUID     int             `json:"class_uid"`
	TypeUID      int             `json:"type_uid"`
	TypeName     string          `json:"type_name"`
	SeverityID   int             `json:"severity_id"`
	StatusID     int             `json:"status_id"`
	Actor        Actor           `json:"actor"`
	Device       *Device         `json:"device"`
	HTTPRequest  json.RawMessage `json:"http_request"` // always null: requests are not recorded
	Message      string          `json:"message"`
	Metadata     Metadata        `json:"metadata"`
	Unmapped     Unmapped        `json:"unmapped"`
}

// Actor is who acted: a user (or the system), and the API key when one was used.
type Actor struct {
	User    User   `json:"user"`
	AppName string `json:"app_name,omitempty"`
	AppUID  string `json:"app_uid,omitempty"`
}

// User is OCSF's user object; what the entry does not know is left out.
type User struct {
	TypeID    int    `json:"type_id"`
	Type      string `json:"type"`
	UID       string `json:"uid,omitempty"`
	EmailAddr string `json:"email_addr,omitempty"`
	Domain    string `json:"domain,omitempty"`
	Name      string `json:"name,omitempty"`
	FullName  string `json:"full_name,omitempty"`
}

// Device is where the action came from.
type Device struct {
	IP     string `json:"ip"`
	TypeID int    `json:"type_id"`
}

// Metadata names the OCSF version and the product that logged the entry.
type Metadata struct {
	Version string  `json:"version"`
	Product Product `json:"product"`
}

// Product is the logging product.
type Product struct {
	Name       string `json:"name"`
	VendorName string `json:"vendor_name"`
}

// Unmapped holds Timbre's own names for the entry and its details.
type Unmapped struct {
	Class    string  `json:"class"`
	Activity string  `json:"activity"`
	TargetID string  `json:"target_id"`
	Details  Details `json:"details"`
}

// Page is a page of GET /v1/workspace/audit-logs; next_cursor is null on the last page.
type Page struct {
	Entries    []Entry `json:"entries"`
	HasMore    bool    `json:"has_more"`
	NextCursor *string `json:"next_cursor"`
}
