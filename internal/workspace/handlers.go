package workspace

import (
	"net/http"
	"net/mail"
	"strings"

	"timbre/internal/access"
	"timbre/internal/audit"
	"timbre/internal/errs"
	"timbre/internal/httpx"
)

// DefaultSessionCookie is the web session cookie's name (auth.SessionCookie; not imported, so
// that auth can call this package at sign-up).
const DefaultSessionCookie = "xi_website_session"

// Limits of request fields.
const (
	MaxBulkInvites = 100
	MaxGroupName   = 100
)

// Handlers serves the workspace routes.
type Handlers struct {
	Svc           *Service
	MaxBody       int64
	SessionCookie string // default DefaultSessionCookie
}

// Routes registers the handlers.
func (h *Handlers) Routes(rt *httpx.Router) {
	admin := httpx.AdminOnly
	perm := httpx.Perm
	// The caller's workspaces (web app's switcher).
	rt.Authed("GET /api/workspaces", h.listWorkspaces)
	rt.Authed("POST /api/workspaces/switch", h.switchWorkspace)
	rt.Authed("POST /api/workspaces", h.createWorkspace, perm("workspace_write"))
	rt.Authed("PATCH /api/workspace", h.renameWorkspace, perm("workspace_write"), admin)
	// Members.
	rt.Authed("GET /v1/workspace/members", h.members, perm("workspace_members_read"))
	rt.Authed("POST /v1/workspace/members", h.updateMember, perm("workspace_write"), admin)
	// Group permissions can delegate removing members, inviting and group membership to editors
	// (delegation.go keeps a delegate within their own access).
	rt.Authed("DELETE /api/workspace/members/{user_id}", h.removeMember, perm("workspace_members_remove"), httpx.AdminOr("workspace_members_remove"))
	// Invites.
	invites := httpx.AdminOr("workspace_members_invite")
	rt.Authed("GET /api/workspace/invites", h.listInvites, perm("workspace_members_invite"), invites)
	rt.Authed("POST /v1/workspace/invites/add", h.invite, perm("workspace_members_invite"), invites)
	rt.Authed("POST /v1/workspace/invites/add-bulk", h.inviteBulk, perm("workspace_members_invite"), invites)
	rt.Authed("DELETE /v1/workspace/invites", h.deleteInvite, perm("workspace_members_invite"), invites)
	rt.Public("GET /api/workspace/invites/{code}", h.peekInvite)
	rt.Authed("POST /v1/workspace/invites/{code}/accept", h.acceptInvite, perm("user_write"))
	rt.Authed("POST /v1/workspace/invites/{code}/decline", h.declineInvite, perm("user_write"))
	// Groups.
	rt.Authed("GET /v1/workspace/groups", h.groups, perm("workspace_read"))
	rt.Authed("GET /v1/workspace/groups/search", h.searchGroups, perm("workspace_read"))
	rt.Authed("POST /api/workspace/groups", h.createGroup, perm("group_members_manage"), admin)
	rt.Authed("PATCH /api/workspace/groups/{group_id}", h.updateGroup, perm("group_members_manage"), admin)
	rt.Authed("DELETE /api/workspace/groups/{group_id}", h.deleteGroup, perm("group_members_manage"), admin)
	groupMembers := httpx.AdminOr("group_members_manage")
	rt.Authed("POST /v1/workspace/groups/{group_id}/members", h.addGroupMember, perm("group_members_manage"), groupMembers)
	rt.Authed("POST /v1/workspace/groups/{group_id}/members/remove", h.removeGroupMember, perm("group_members_manage"), groupMembers)
	// Resource sharing.
	rt.Authed("GET /v1/workspace/resources/{resource_id}", h.resource, perm("workspace_read"))
	// Sharing is for whoever holds admin on the resource (its creator, a grant, workspace admins).
	rt.Authed("POST /v1/workspace/resources/{resource_id}/share", h.share, perm("workspace_write"))
	rt.Authed("POST /v1/workspace/resources/{resource_id}/unshare", h.unshare, perm("workspace_write"))
	// Role checks and settings.
	rt.Authed("GET /v1/workspace/can-access-workspace-settings", h.canAccessSettings, perm("workspace_read"))
	rt.Authed("GET /v1/workspace/is-admin", h.isAdmin, perm("workspace_read"))
	rt.Authed("GET /api/workspace/access", h.access)
	rt.Authed("GET /api/workspace/settings", h.settings, perm("workspace_read"), admin)
	rt.Authed("PATCH /api/workspace/settings", h.updateSettings, perm("workspace_write"), admin)
	// Admins only, checked in the handler for the spec's own message (§5).
	rt.Authed("PUT /v1/workspace/update-workspace", h.updateWorkspace, perm("workspace_write"))
}

func caller(r *http.Request) *access.Caller { return access.CallerFrom(r.Context()) }

// record writes an audit event for the request's caller.
func (h *Handlers) record(r *http.Request, ev audit.Event) {
	email := ""
	if u, err := h.Svc.DB.UserByID(r.Context(), caller(r).UserID); err == nil {
		email = u.Email
	}
	h.recordAs(r, email, ev)
}

// recordAs writes an audit event for the request's caller, whose email is known.
func (h *Handlers) recordAs(r *http.Request, email string, ev audit.Event) {
	audit.Record(r.Context(), h.Svc.DB, r, caller(r).UserID, email, ev)
}

func (h *Handlers) sessionToken(r *http.Request) string {
	name := h.SessionCookie
	if name == "" {
		name = DefaultSessionCookie
	}
	if c, err := r.Cookie(name); err == nil {
		return c.Value
	}
	return ""
}

func normEmail(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

func validEmail(email string) bool {
	a, err := mail.ParseAddress(email)
	return err == nil && a.Address == email && len(email) <= 254
}

// ---- workspaces of the caller ----------------------------------------------------------------

func (h *Handlers) listWorkspaces(w http.ResponseWriter, r *http.Request) error {
	c := caller(r)
	ms, err := h.Svc.DB.UserWorkspaces(r.Context(), c.UserID)
	if err != nil {
		return err
	}
	out := make([]workspaceEntry, 0, len(ms))
	for _, m := range ms {
		out = append(out, workspaceEntry{WorkspaceID: m.WorkspaceID, Name: m.Name, Tier: m.Tier, Role: m.Role,
			SeatType: SeatOfRole(m.Role), IsOwner: m.IsOwner, IsLocked: m.IsLocked, IsCurrent: m.WorkspaceID == c.WorkspaceID})
	}
	httpx.WriteJSON(w, http.StatusOK, workspacesResponse{Workspaces: out, CurrentWorkspaceID: c.WorkspaceID})
	return nil
}

func (h *Handlers) switchWorkspace(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		WorkspaceID string `json:"workspace_id"`
	}
	if err := httpx.DecodeJSON(r, h.MaxBody, &body); err != nil {
		return err
	}
	if strings.TrimSpace(body.WorkspaceID) == "" {
		return errs.Field("body", "workspace_id", "missing", "Field required: the id of the workspace to switch to.")
	}
	c := caller(r)
	if err := h.Svc.SwitchWorkspace(r.Context(), c, h.sessionToken(r), body.WorkspaceID); err != nil {
		return err
	}
	h.record(r, audit.Event{WorkspaceID: body.WorkspaceID, Class: "session", Activity: "switch_workspace", Target: body.WorkspaceID,
		Details: audit.Details{"from_workspace_id": c.WorkspaceID}})
	httpx.WriteJSON(w, http.StatusOK, switchResponse{Status: "ok", WorkspaceID: body.WorkspaceID})
	return nil
}

// ---- role checks and settings ----------------------------------------------------------------

func (h *Handlers) canAccessSettings(w http.ResponseWriter, r *http.Request) error {
	// Admins, and editors to whom a group delegates a workspace duty (members, webhooks, …).
	c := caller(r)
	httpx.WriteJSON(w, http.StatusOK, canAccessSettingsResponse{CanAccessWorkspaceSettings: c.Role == access.RoleAdmin || len(c.Grants) > 0})
	return nil
}

// access tells the web app what the caller's role and groups allow, to show only what works.
func (h *Handlers) access(w http.ResponseWriter, r *http.Request) error {
	c := caller(r)
	duties := c.Grants
	if duties == nil {
		duties = []string{}
	}
	httpx.WriteJSON(w, http.StatusOK, accessResponse{Role: c.Role, Features: c.Features, Duties: duties})
	return nil
}

func (h *Handlers) isAdmin(w http.ResponseWriter, r *http.Request) error {
	httpx.WriteJSON(w, http.StatusOK, isAdminResponse{IsAdmin: caller(r).Role == access.RoleAdmin})
	return nil
}

func (h *Handlers) updateWorkspace(w http.ResponseWriter, r *http.Request) error {
	raw := r.URL.Query().Get("training_opt_out")
	var optOut bool
	switch strings.ToLower(raw) {
	case "true", "1":
		optOut = true
	case "false", "0":
	case "":
		return errs.Field("query", "training_opt_out", "missing", "Field required: training_opt_out=true or false.")
	default:
		return errs.Field("query", "training_opt_out", "bool_parsing", "Input should be a valid boolean: true or false.")
	}
	c := caller(r)
	if err := h.Svc.SetTrainingOptOut(r.Context(), c, optOut); err != nil {
		return err
	}
	h.record(r, audit.Event{Class: "workspace", Activity: "update", Target: c.WorkspaceID, Details: audit.Details{"training_opt_out": optOut}})
	httpx.WriteJSON(w, http.StatusOK, optOutResponse{Status: "ok", Message: OptOutUpdated, TrainingOptOut: optOut})
	return nil
}
