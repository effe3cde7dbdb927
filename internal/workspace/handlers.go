package workspace

import (
	"errors"
	"net/http"
	"net/mail"
	"slices"
	"strings"
	"unicode/utf8"

	"timbre/internal/audit"
	"timbre/internal/errs"
	"timbre/internal/httpx"
	"timbre/internal/store"
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

func caller(r *http.Request) *httpx.Caller { return httpx.CallerFrom(r.Context()) }

// record writes an audit event for the request's caller.
func (h *Handlers) record(r *http.Request, ev audit.Event) {
	c := caller(r)
	email := ""
	if u, err := h.Svc.DB.UserByID(r.Context(), c.UserID); err == nil {
		email = u.Email
	}
	audit.Record(r.Context(), h.Svc.DB, r, c.UserID, email, ev)
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

func memberNotFound(email string) error {
	return errs.Errorf(errs.NotFound, "member_not_found", "No member of this workspace has the email '%s'.", email)
}

func groupNotFound(id string) error {
	return errs.Errorf(errs.NotFound, "group_not_found", "Group '%s' was not found in this workspace.", id)
}

// ---- workspaces of the caller ----------------------------------------------------------------

func (h *Handlers) listWorkspaces(w http.ResponseWriter, r *http.Request) error {
	c := caller(r)
	ms, err := h.Svc.DB.UserWorkspaces(r.Context(), c.UserID)
	if err != nil {
		return err
	}
	out := make([]map[string]any, 0, len(ms))
	for _, m := range ms {
		out = append(out, map[string]any{"workspace_id": m.WorkspaceID, "name": m.Name, "tier": m.Tier, "role": m.Role,
			"seat_type": SeatOfRole(m.Role), "is_owner": m.IsOwner, "is_locked": m.IsLocked, "is_current": m.WorkspaceID == c.WorkspaceID})
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"workspaces": out, "current_workspace_id": c.WorkspaceID})
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
	if !c.ViaSession {
		return errs.Errorf(errs.Invalid, "session_required", "Switching workspaces is for signed-in browsers; an API key always works in its own workspace.")
	}
	err := h.Svc.DB.SetSessionWorkspace(r.Context(), h.sessionToken(r), c.UserID, body.WorkspaceID)
	if errors.Is(err, store.ErrNotFound) {
		return errs.Errorf(errs.NotFound, "workspace_not_found", "Workspace '%s' was not found among your workspaces.", body.WorkspaceID)
	}
	if err != nil {
		return err
	}
	h.record(r, audit.Event{WorkspaceID: body.WorkspaceID, Class: "session", Activity: "switch_workspace", Target: body.WorkspaceID,
		Details: map[string]any{"from_workspace_id": c.WorkspaceID}})
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"status": "ok", "workspace_id": body.WorkspaceID})
	return nil
}

// ---- members ---------------------------------------------------------------------------------

func memberJSON(m store.Member) map[string]any {
	var first any
	if m.FirstName != "" {
		first = m.FirstName
	}
	return map[string]any{"user_id": m.UserID, "email": m.Email, "first_name": first, "seat_type": SeatOfRole(m.Role), "is_owner": m.IsOwner, "is_locked": m.IsLocked}
}

func (h *Handlers) members(w http.ResponseWriter, r *http.Request) error {
	ms, err := h.Svc.DB.ListMembers(r.Context(), caller(r).WorkspaceID)
	if err != nil {
		return err
	}
	out := make([]map[string]any, 0, len(ms))
	for _, m := range ms {
		out = append(out, memberJSON(m))
	}
	httpx.WriteJSON(w, http.StatusOK, out)
	return nil
}

// seatField validates an optional seat type field.
func seatField(v *errs.Validator, field string, seat *string) string {
	if seat == nil {
		return ""
	}
	role := RoleOfSeat(*seat)
	if role == "" {
		v.Add("body", field, "enum", "Input should be 'workspace_admin' or 'workspace_member' (Timbre has the roles admin and editor).")
	}
	return role
}

func (h *Handlers) updateMember(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Email             *string `json:"email"`
		IsLocked          *bool   `json:"is_locked"`
		WorkspaceRole     *string `json:"workspace_role"`
		WorkspaceSeatType *string `json:"workspace_seat_type"`
	}
	if err := httpx.DecodeJSON(r, h.MaxBody, &body); err != nil {
		return err
	}
	var v errs.Validator
	email := ""
	if body.Email == nil || strings.TrimSpace(*body.Email) == "" {
		v.Add("body", "email", "missing", "Field required: the email of the member to update.")
	} else {
		email = normEmail(*body.Email)
	}
	role := seatField(&v, "workspace_seat_type", body.WorkspaceSeatType)
	if body.WorkspaceSeatType == nil {
		role = seatField(&v, "workspace_role", body.WorkspaceRole)
	}
	if err := v.Err(); err != nil {
		return err
	}
	c := caller(r)
	m, err := h.Svc.DB.MemberByEmail(r.Context(), c.WorkspaceID, email)
	if errors.Is(err, store.ErrNotFound) {
		return memberNotFound(email)
	}
	if err != nil {
		return err
	}
	var rolePtr *string
	if role != "" {
		rolePtr = &role
	}
	err = h.Svc.DB.UpdateMember(r.Context(), c.WorkspaceID, m.UserID, rolePtr, body.IsLocked)
	if errors.Is(err, store.ErrOwner) {
		return ErrOwner
	}
	if errors.Is(err, store.ErrNotFound) {
		return memberNotFound(email)
	}
	if err != nil {
		return err
	}
	if rolePtr != nil && *rolePtr != m.Role {
		h.record(r, audit.Event{Class: "member", Activity: "role_change", Target: m.UserID,
			Details: map[string]any{"email": m.Email, "from": SeatOfRole(m.Role), "to": SeatOfRole(*rolePtr)}})
	}
	if body.IsLocked != nil && *body.IsLocked != m.IsLocked {
		act := "unlock"
		if *body.IsLocked {
			act = "lock"
		}
		h.record(r, audit.Event{Class: "member", Activity: act, Target: m.UserID, Details: map[string]any{"email": m.Email}})
	}
	httpx.OK(w)
	return nil
}

func (h *Handlers) removeMember(w http.ResponseWriter, r *http.Request) error {
	c := caller(r)
	id := r.PathValue("user_id")
	if c.Role != httpx.RoleAdmin {
		m, err := h.Svc.DB.MemberByID(r.Context(), c.WorkspaceID, id)
		if errors.Is(err, store.ErrNotFound) {
			return errs.Errorf(errs.NotFound, "member_not_found", "User '%s' is not a member of this workspace.", id)
		}
		if err != nil {
			return err
		}
		if err := checkRemoval(c, m); err != nil {
			return err
		}
	}
	err := h.Svc.DB.RemoveMember(r.Context(), c.WorkspaceID, id)
	if errors.Is(err, store.ErrOwner) {
		return ErrOwner
	}
	if errors.Is(err, store.ErrNotFound) {
		return errs.Errorf(errs.NotFound, "member_not_found", "User '%s' is not a member of this workspace.", id)
	}
	if err != nil {
		return err
	}
	h.record(r, audit.Event{Class: "member", Activity: "remove", Target: id})
	httpx.OK(w)
	return nil
}

// ---- invites ---------------------------------------------------------------------------------

type inviteBody struct {
	Email               *string  `json:"email"`
	Emails              []string `json:"emails"`
	WorkspacePermission *string  `json:"workspace_permission"`
	SeatType            *string  `json:"seat_type"`
	GroupIDs            []string `json:"group_ids"`
	UsageLimit          *int64   `json:"usage_limit"`
}

func (h *Handlers) invite(w http.ResponseWriter, r *http.Request) error {
	var body inviteBody
	if err := httpx.DecodeJSON(r, h.MaxBody, &body); err != nil {
		return err
	}
	var v errs.Validator
	var emails []string
	if body.Email == nil || strings.TrimSpace(*body.Email) == "" {
		v.Add("body", "email", "missing", "Field required: the email address to invite.")
	} else if e := normEmail(*body.Email); !validEmail(e) {
		v.Add("body", "email", "value_error", "Please enter a valid email address.")
	} else {
		emails = []string{e}
	}
	return h.createInvites(w, r, &v, emails, body)
}

func (h *Handlers) inviteBulk(w http.ResponseWriter, r *http.Request) error {
	var body inviteBody
	if err := httpx.DecodeJSON(r, h.MaxBody, &body); err != nil {
		return err
	}
	var v errs.Validator
	var emails []string
	switch {
	case len(body.Emails) == 0:
		v.Add("body", "emails", "missing", "Field required: a list of at least one email address.")
	case len(body.Emails) > MaxBulkInvites:
		v.Add("body", "emails", "too_long", "At most 100 email addresses can be invited at once.")
	default:
		for _, raw := range body.Emails {
			e := normEmail(raw)
			if !validEmail(e) {
				v.Add("body", "emails", "value_error", "'"+raw+"' is not a valid email address.")
				continue
			}
			if !slices.Contains(emails, e) {
				emails = append(emails, e)
			}
		}
	}
	return h.createInvites(w, r, &v, emails, body)
}

func (h *Handlers) createInvites(w http.ResponseWriter, r *http.Request, v *errs.Validator, emails []string, body inviteBody) error {
	ctx := r.Context()
	c := caller(r)
	role := httpx.RoleEditor
	if body.SeatType != nil {
		role = seatField(v, "seat_type", body.SeatType)
	} else if body.WorkspacePermission != nil {
		role = seatField(v, "workspace_permission", body.WorkspacePermission)
	}
	if body.UsageLimit != nil && *body.UsageLimit < 0 {
		v.Add("body", "usage_limit", "greater_than_equal", "Input should be greater than or equal to 0.")
	}
	if len(body.GroupIDs) > 0 {
		groups := slices.Compact(slices.Sorted(slices.Values(body.GroupIDs)))
		n, err := h.Svc.DB.CountGroups(ctx, c.WorkspaceID, groups)
		if err != nil {
			return err
		}
		if n != len(groups) {
			v.Add("body", "group_ids", "value_error", "Every group id must name a group of this workspace.")
		}
		body.GroupIDs = groups
	}
	if err := v.Err(); err != nil {
		return err
	}
	if c.Role != httpx.RoleAdmin {
		var groups []store.Group
		for _, id := range body.GroupIDs {
			g, err := h.Svc.DB.GroupByID(ctx, c.WorkspaceID, id)
			if err != nil {
				return err
			}
			groups = append(groups, *g)
		}
		if err := checkInvite(c, role, groups); err != nil {
			return err
		}
	}
	now := h.Svc.now()
	invites := make([]store.NewInvite, len(emails))
	for i, e := range emails {
		invites[i] = store.NewInvite{Code: store.RandomString(32), Invite: store.Invite{WorkspaceID: c.WorkspaceID, Email: e, Role: role,
			GroupIDs: body.GroupIDs, InvitedBy: c.UserID, CreatedAt: now.Unix(), ExpiresAt: now.Add(InviteTTL).Unix()},
			KeepPending: c.Role != httpx.RoleAdmin}
	}
	err := h.Svc.DB.CreateInvites(ctx, c.WorkspaceID, invites, Seats, now)
	var am *store.AlreadyMemberError
	var pe *store.PendingInviteError
	switch {
	case errors.As(err, &am):
		return errs.Errorf(errs.Invalid, "already_member", "%s is already a member of this workspace.", am.Email)
	case errors.As(err, &pe):
		return errs.Errorf(errs.Conflict, "invite_pending", "%s already has a pending invitation; only a workspace admin can replace it.", pe.Email)
	case errors.Is(err, store.ErrSeatsExhausted):
		return seatsError(ctx, h.Svc.DB, c.WorkspaceID)
	case err != nil:
		return err
	}
	ws, err := h.Svc.DB.Workspace(ctx, c.WorkspaceID, now)
	if err != nil {
		return err
	}
	inviter := "A member of your team"
	if u, err := h.Svc.DB.UserByID(ctx, c.UserID); err == nil {
		inviter = u.Email
	}
	for _, in := range invites {
		h.record(r, audit.Event{Class: "invite", Activity: "create", Target: in.Email,
			Details: map[string]any{"email": in.Email, "seat_type": SeatOfRole(in.Role), "group_ids": in.GroupIDs}})
		if err := h.Svc.sendInvite(ctx, in.Email, in.Code, ws.Name, inviter); err != nil {
			return err
		}
	}
	httpx.OK(w)
	return nil
}

func (h *Handlers) deleteInvite(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Email *string `json:"email"`
	}
	if err := httpx.DecodeJSON(r, h.MaxBody, &body); err != nil {
		return err
	}
	if body.Email == nil || strings.TrimSpace(*body.Email) == "" {
		return errs.Field("body", "email", "missing", "Field required: the email address whose invitation to withdraw.")
	}
	email := normEmail(*body.Email)
	err := h.Svc.DB.DeleteInvite(r.Context(), caller(r).WorkspaceID, email)
	if errors.Is(err, store.ErrNotFound) {
		return errs.Errorf(errs.NotFound, "invite_not_found", "There is no pending invitation for '%s' in this workspace.", email)
	}
	if err != nil {
		return err
	}
	h.record(r, audit.Event{Class: "invite", Activity: "delete", Target: email, Details: map[string]any{"email": email}})
	httpx.OK(w)
	return nil
}

func (h *Handlers) listInvites(w http.ResponseWriter, r *http.Request) error {
	ins, err := h.Svc.DB.ListInvites(r.Context(), caller(r).WorkspaceID, h.Svc.now())
	if err != nil {
		return err
	}
	out := make([]map[string]any, 0, len(ins))
	for _, in := range ins {
		out = append(out, map[string]any{"email": in.Email, "seat_type": SeatOfRole(in.Role), "group_ids": in.GroupIDs,
			"invited_by_user_id": in.InvitedBy, "created_at_unix": in.CreatedAt, "expires_at_unix": in.ExpiresAt})
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"invites": out})
	return nil
}

// peekInvite tells the invitation page what the code invites to; anyone holding the code may ask.
func (h *Handlers) peekInvite(w http.ResponseWriter, r *http.Request) error {
	in, err := h.Svc.DB.InviteByCode(r.Context(), r.PathValue("code"), h.Svc.now())
	if errors.Is(err, store.ErrNotFound) {
		return ErrInviteInvalid
	}
	if err != nil {
		return err
	}
	ws, err := h.Svc.DB.Workspace(r.Context(), in.WorkspaceID, h.Svc.now())
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"workspace_name": ws.Name, "email": in.Email, "seat_type": SeatOfRole(in.Role), "expires_at_unix": in.ExpiresAt})
	return nil
}

func (h *Handlers) callerEmail(r *http.Request) (string, error) {
	u, err := h.Svc.DB.UserByID(r.Context(), caller(r).UserID)
	if err != nil {
		return "", err
	}
	return u.Email, nil
}

func (h *Handlers) acceptInvite(w http.ResponseWriter, r *http.Request) error {
	c := caller(r)
	email, err := h.callerEmail(r)
	if err != nil {
		return err
	}
	token := ""
	if c.ViaSession {
		token = h.sessionToken(r)
	}
	in, err := h.Svc.DB.AcceptInvite(r.Context(), r.PathValue("code"), c.UserID, token, Seats, h.Svc.now(), func(in *store.Invite) error {
		if !strings.EqualFold(in.Email, email) {
			return ErrInviteMismatch
		}
		return nil
	})
	switch {
	case errors.Is(err, store.ErrNotFound):
		return ErrInviteInvalid
	case errors.Is(err, store.ErrSeatsExhausted):
		inv, _ := h.Svc.DB.InviteByCode(r.Context(), r.PathValue("code"), h.Svc.now())
		if inv == nil {
			return ErrInviteInvalid
		}
		return seatsError(r.Context(), h.Svc.DB, inv.WorkspaceID)
	case err != nil:
		return err
	}
	audit.Record(r.Context(), h.Svc.DB, r, c.UserID, email, audit.Event{WorkspaceID: in.WorkspaceID, Class: "invite", Activity: "accept", Target: c.UserID,
		Details: map[string]any{"email": email, "seat_type": SeatOfRole(in.Role)}})
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"status": "ok", "workspace_id": in.WorkspaceID, "seat_type": SeatOfRole(in.Role), "session_switched": token != ""})
	return nil
}

func (h *Handlers) declineInvite(w http.ResponseWriter, r *http.Request) error {
	c := caller(r)
	email, err := h.callerEmail(r)
	if err != nil {
		return err
	}
	in, err := h.Svc.DB.InviteByCode(r.Context(), r.PathValue("code"), h.Svc.now())
	if errors.Is(err, store.ErrNotFound) {
		return ErrInviteInvalid
	}
	if err != nil {
		return err
	}
	if !strings.EqualFold(in.Email, email) {
		return ErrInviteMismatch
	}
	if err := h.Svc.DB.DeleteInvite(r.Context(), in.WorkspaceID, in.Email); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	audit.Record(r.Context(), h.Svc.DB, r, c.UserID, email, audit.Event{WorkspaceID: in.WorkspaceID, Class: "invite", Activity: "decline", Target: c.UserID,
		Details: map[string]any{"email": email}})
	httpx.OK(w)
	return nil
}

// ---- groups ----------------------------------------------------------------------------------

// GroupPermissions are the API's WorkspaceGroupPermission values.
var GroupPermissions = []string{"text_to_speech", "speech_to_speech", "speech_to_text", "voice_lab", "sound_effects", "projects",
	"voiceover_studio", "dubbing", "audio_native", "conversational_ai", "conversational_ai_read", "voice_isolator", "ai_speech_classifier",
	"synthid_detector", "add_voice_from_voice_library", "create_instant_voice_clone", "create_professional_voice_clone", "create_user_api_key",
	"publish_studio_project", "music", "image_video_generation", "flows", "templates", "share_voice_externally", "publish_voice_to_voice_library",
	"view_fiat_balance", "workspace_analytics_full_read", "service_accounts_manage", "webhooks_manage", "group_members_manage",
	"workspace_members_invite", "workspace_members_remove", "terms_of_service_accept", "audit_log_read", "conversation_privacy_manage",
	"copy_resources_cross_workspace", "voice_design"}

func groupJSON(g store.Group) map[string]any {
	perms := g.Permissions
	if perms == nil {
		perms = []string{}
	}
	return map[string]any{"name": g.Name, "id": g.ID, "members": g.MemberEmails, "permissions": perms, "group_usage_limit": nil,
		"group_pvc_limit": nil, "character_count": nil, "is_scim_synced": false, "scim_group": nil, "scim_frozen": false}
}

func (h *Handlers) groups(w http.ResponseWriter, r *http.Request) error {
	gs, err := h.Svc.DB.ListGroups(r.Context(), caller(r).WorkspaceID, "")
	if err != nil {
		return err
	}
	out := make(map[string]any, len(gs))
	for _, g := range gs {
		out[g.ID] = groupJSON(g)
	}
	httpx.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (h *Handlers) searchGroups(w http.ResponseWriter, r *http.Request) error {
	name := strings.TrimSpace(r.URL.Query().Get("name"))
	if name == "" {
		return errs.Field("query", "name", "missing", "Field required: the name of the group to search for.")
	}
	gs, err := h.Svc.DB.ListGroups(r.Context(), caller(r).WorkspaceID, name)
	if err != nil {
		return err
	}
	out := make([]map[string]any, 0, len(gs))
	for _, g := range gs {
		out = append(out, map[string]any{"name": g.Name, "id": g.ID, "members_emails": g.MemberEmails})
	}
	httpx.WriteJSON(w, http.StatusOK, out)
	return nil
}

type groupBody struct {
	Name        *string   `json:"name"`
	Permissions *[]string `json:"permissions"`
}

func (b *groupBody) validate(v *errs.Validator, create bool) {
	if b.Name != nil {
		n := strings.TrimSpace(*b.Name)
		b.Name = &n
	}
	switch {
	case b.Name == nil && create, b.Name != nil && *b.Name == "":
		v.Add("body", "name", "missing", "Please give the group a name.")
	case b.Name != nil && utf8.RuneCountInString(*b.Name) > MaxGroupName:
		v.Add("body", "name", "string_too_long", "The name must be at most 100 characters.")
	}
	if b.Permissions != nil {
		for _, p := range *b.Permissions {
			if !slices.Contains(GroupPermissions, p) {
				v.Add("body", "permissions", "enum", "'"+p+"' is not a group permission.")
			}
		}
		*b.Permissions = slices.Compact(slices.Sorted(slices.Values(*b.Permissions)))
	}
}

func groupNameTaken(name string) error {
	return errs.Errorf(errs.Conflict, "group_name_taken", "This workspace already has a group named '%s'.", name)
}

func (h *Handlers) createGroup(w http.ResponseWriter, r *http.Request) error {
	var body groupBody
	if err := httpx.DecodeJSON(r, h.MaxBody, &body); err != nil {
		return err
	}
	var v errs.Validator
	body.validate(&v, true)
	if err := v.Err(); err != nil {
		return err
	}
	g := store.Group{ID: store.NewID(), WorkspaceID: caller(r).WorkspaceID, Name: *body.Name, Permissions: []string{}, MemberEmails: []string{}, CreatedAt: h.Svc.now().Unix()}
	if body.Permissions != nil {
		g.Permissions = *body.Permissions
	}
	err := h.Svc.DB.CreateGroup(r.Context(), &g)
	if store.IsUniqueViolation(err) {
		return groupNameTaken(g.Name)
	}
	if err != nil {
		return err
	}
	h.record(r, audit.Event{Class: "group", Activity: "create", Target: g.ID, Details: map[string]any{"name": g.Name, "permissions": g.Permissions}})
	httpx.WriteJSON(w, http.StatusCreated, groupJSON(g))
	return nil
}

func (h *Handlers) updateGroup(w http.ResponseWriter, r *http.Request) error {
	var body groupBody
	if err := httpx.DecodeJSON(r, h.MaxBody, &body); err != nil {
		return err
	}
	var v errs.Validator
	body.validate(&v, false)
	if err := v.Err(); err != nil {
		return err
	}
	c := caller(r)
	id := r.PathValue("group_id")
	var perms []string
	if body.Permissions != nil {
		perms = *body.Permissions
		if perms == nil {
			perms = []string{}
		}
	}
	err := h.Svc.DB.UpdateGroup(r.Context(), c.WorkspaceID, id, body.Name, perms)
	if store.IsUniqueViolation(err) {
		return groupNameTaken(*body.Name)
	}
	if errors.Is(err, store.ErrNotFound) {
		return groupNotFound(id)
	}
	if err != nil {
		return err
	}
	details := map[string]any{}
	if body.Name != nil {
		details["name"] = *body.Name
	}
	if body.Permissions != nil {
		details["permissions"] = perms
	}
	h.record(r, audit.Event{Class: "group", Activity: "update", Target: id, Details: details})
	gs, err := h.Svc.DB.ListGroups(r.Context(), c.WorkspaceID, "")
	if err != nil {
		return err
	}
	for _, g := range gs {
		if g.ID == id {
			httpx.WriteJSON(w, http.StatusOK, groupJSON(g))
			return nil
		}
	}
	return groupNotFound(id)
}

func (h *Handlers) deleteGroup(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("group_id")
	err := h.Svc.DB.DeleteGroup(r.Context(), caller(r).WorkspaceID, id)
	if errors.Is(err, store.ErrNotFound) {
		return groupNotFound(id)
	}
	if err != nil {
		return err
	}
	h.record(r, audit.Event{Class: "group", Activity: "delete", Target: id})
	httpx.OK(w)
	return nil
}

// groupMemberTarget reads {email} and resolves the group and the member, both of the caller's
// workspace.
func (h *Handlers) groupMemberTarget(r *http.Request) (*store.Group, *store.Member, error) {
	var body struct {
		Email *string `json:"email"`
	}
	if err := httpx.DecodeJSON(r, h.MaxBody, &body); err != nil {
		return nil, nil, err
	}
	if body.Email == nil || strings.TrimSpace(*body.Email) == "" {
		return nil, nil, errs.Field("body", "email", "missing", "Field required: the email of the workspace member.")
	}
	c := caller(r)
	id := r.PathValue("group_id")
	g, err := h.Svc.DB.GroupByID(r.Context(), c.WorkspaceID, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil, groupNotFound(id)
	}
	if err != nil {
		return nil, nil, err
	}
	email := normEmail(*body.Email)
	m, err := h.Svc.DB.MemberByEmail(r.Context(), c.WorkspaceID, email)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil, memberNotFound(email)
	}
	return g, m, err
}

func (h *Handlers) addGroupMember(w http.ResponseWriter, r *http.Request) error {
	g, m, err := h.groupMemberTarget(r)
	if err != nil {
		return err
	}
	if err := checkGroupChange(caller(r), g, m, false); err != nil {
		return err
	}
	err = h.Svc.DB.AddGroupMember(r.Context(), caller(r).WorkspaceID, g.ID, m.UserID)
	if errors.Is(err, store.ErrNotFound) {
		return groupNotFound(g.ID)
	}
	if err != nil {
		return err
	}
	h.record(r, audit.Event{Class: "group", Activity: "add_member", Target: g.ID, Details: map[string]any{"user_id": m.UserID, "email": m.Email}})
	httpx.OK(w)
	return nil
}

func (h *Handlers) removeGroupMember(w http.ResponseWriter, r *http.Request) error {
	g, m, err := h.groupMemberTarget(r)
	if err != nil {
		return err
	}
	if err := checkGroupChange(caller(r), g, m, true); err != nil {
		return err
	}
	err = h.Svc.DB.RemoveGroupMember(r.Context(), caller(r).WorkspaceID, g.ID, m.UserID)
	if errors.Is(err, store.ErrNotFound) {
		return errs.Errorf(errs.NotFound, "member_not_found", "%s is not a member of the group '%s'.", m.Email, g.Name)
	}
	if err != nil {
		return err
	}
	h.record(r, audit.Event{Class: "group", Activity: "remove_member", Target: g.ID, Details: map[string]any{"user_id": m.UserID, "email": m.Email}})
	httpx.OK(w)
	return nil
}

// ---- role checks and settings ----------------------------------------------------------------

func (h *Handlers) canAccessSettings(w http.ResponseWriter, r *http.Request) error {
	// Admins, and editors to whom a group delegates a workspace duty (members, webhooks, …).
	c := caller(r)
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"can_access_workspace_settings": c.Role == httpx.RoleAdmin || len(c.Grants) > 0})
	return nil
}

// access tells the web app what the caller's role and groups allow, to show only what works.
func (h *Handlers) access(w http.ResponseWriter, r *http.Request) error {
	c := caller(r)
	duties := c.Grants
	if duties == nil {
		duties = []string{}
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"role": c.Role, "features": c.Features, "duties": duties})
	return nil
}

func (h *Handlers) isAdmin(w http.ResponseWriter, r *http.Request) error {
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"is_admin": caller(r).Role == httpx.RoleAdmin})
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
	if c.Role != httpx.RoleAdmin {
		return ErrOptOutAdmin
	}
	if err := h.Svc.DB.SetTrainingOptOut(r.Context(), c.WorkspaceID, optOut, h.Svc.now()); err != nil {
		return err
	}
	h.record(r, audit.Event{Class: "workspace", Activity: "update", Target: c.WorkspaceID, Details: map[string]any{"training_opt_out": optOut}})
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"status": "ok", "message": OptOutUpdated, "training_opt_out": optOut})
	return nil
}
