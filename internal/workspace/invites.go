package workspace

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net/http"
	"slices"
	"strings"
	"time"

	"timbre/internal/access"
	"timbre/internal/audit"
	"timbre/internal/errs"
	"timbre/internal/httpx"
	mailer "timbre/internal/mail"
	"timbre/internal/store"
)

// ---- service ---------------------------------------------------------------------------------

// KnownGroups sorts and de-duplicates group ids and tells whether each names a group of the
// workspace.
func (s *Service) KnownGroups(ctx context.Context, workspaceID string, ids []string) ([]string, bool, error) {
	groups := slices.Compact(slices.Sorted(slices.Values(ids)))
	n, err := s.DB.CountGroups(ctx, workspaceID, groups)
	if err != nil {
		return nil, false, err
	}
	return groups, n == len(groups), nil
}

// CreateInvites invites the emails to the caller's workspace with a role and groups, all or
// nothing within the seats, and mails each a link. A delegate (not an admin) may only give what
// they hold (checkInvite) and may not replace a pending invitation. It returns the invitations
// created, also when mailing one of them failed (the error then says so).
func (s *Service) CreateInvites(ctx context.Context, c *access.Caller, emails []string, role string, groupIDs []string) ([]store.NewInvite, error) {
	if c.Role != access.RoleAdmin {
		var groups []store.Group
		for _, id := range groupIDs {
			g, err := s.DB.GroupByID(ctx, c.WorkspaceID, id)
			if err != nil {
				return nil, err
			}
			groups = append(groups, *g)
		}
		if err := checkInvite(c, role, groups); err != nil {
			return nil, err
		}
	}
	now := s.now()
	invites := make([]store.NewInvite, len(emails))
	for i, e := range emails {
		invites[i] = store.NewInvite{Code: store.RandomString(32), Invite: store.Invite{WorkspaceID: c.WorkspaceID, Email: e, Role: role,
			GroupIDs: groupIDs, InvitedBy: c.UserID, CreatedAt: now.Unix(), ExpiresAt: now.Add(InviteTTL).Unix()},
			KeepPending: c.Role != access.RoleAdmin}
	}
	err := s.DB.CreateInvites(ctx, c.WorkspaceID, invites, Seats, now)
	var am *store.AlreadyMemberError
	var pe *store.PendingInviteError
	switch {
	case errors.As(err, &am):
		return nil, errs.Errorf(errs.Invalid, "already_member", "%s is already a member of this workspace.", am.Email)
	case errors.As(err, &pe):
		return nil, errs.Errorf(errs.Conflict, "invite_pending", "%s already has a pending invitation; only a workspace admin can replace it.", pe.Email)
	case errors.Is(err, store.ErrSeatsExhausted):
		return nil, seatsError(ctx, s.DB, c.WorkspaceID)
	case err != nil:
		return nil, err
	}
	ws, err := s.DB.Workspace(ctx, c.WorkspaceID, now)
	if err != nil {
		return invites, err
	}
	inviter := "A member of your team"
	if u, err := s.DB.UserByID(ctx, c.UserID); err == nil {
		inviter = u.Email
	}
	for _, in := range invites {
		if err := s.sendInvite(ctx, in.Email, in.Code, ws.Name, inviter); err != nil {
			return invites, err
		}
	}
	return invites, nil
}

// DeleteInvite withdraws the pending invitation to the email in the workspace.
func (s *Service) DeleteInvite(ctx context.Context, workspaceID, email string) error {
	err := s.DB.DeleteInvite(ctx, workspaceID, email)
	if errors.Is(err, store.ErrNotFound) {
		return errs.Errorf(errs.NotFound, "invite_not_found", "There is no pending invitation for '%s' in this workspace.", email)
	}
	return err
}

// PeekInvite resolves a pending invite code to its invitation and the inviting workspace's name.
func (s *Service) PeekInvite(ctx context.Context, code string) (*store.Invite, string, error) {
	in, err := s.DB.InviteByCode(ctx, code, s.now())
	if errors.Is(err, store.ErrNotFound) {
		return nil, "", ErrInviteInvalid
	}
	if err != nil {
		return nil, "", err
	}
	ws, err := s.DB.Workspace(ctx, in.WorkspaceID, s.now())
	if err != nil {
		return nil, "", err
	}
	return in, ws.Name, nil
}

func (s *Service) callerEmail(ctx context.Context, c *access.Caller) (string, error) {
	u, err := s.DB.UserByID(ctx, c.UserID)
	if err != nil {
		return "", err
	}
	return u.Email, nil
}

// AcceptInvite makes the caller a member by an invitation to their email, seats permitting;
// with a session token the session moves to the workspace. It returns the invitation and the
// caller's email.
func (s *Service) AcceptInvite(ctx context.Context, c *access.Caller, code, sessionToken string) (*store.Invite, string, error) {
	email, err := s.callerEmail(ctx, c)
	if err != nil {
		return nil, "", err
	}
	in, err := s.DB.AcceptInvite(ctx, code, c.UserID, sessionToken, Seats, s.now(), func(in *store.Invite) error {
		if !strings.EqualFold(in.Email, email) {
			return ErrInviteMismatch
		}
		return nil
	})
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, "", ErrInviteInvalid
	case errors.Is(err, store.ErrSeatsExhausted):
		inv, _ := s.DB.InviteByCode(ctx, code, s.now())
		if inv == nil {
			return nil, "", ErrInviteInvalid
		}
		return nil, "", seatsError(ctx, s.DB, inv.WorkspaceID)
	case err != nil:
		return nil, "", err
	}
	return in, email, nil
}

// DeclineInvite deletes an invitation to the caller's email. It returns the invitation and the
// caller's email.
func (s *Service) DeclineInvite(ctx context.Context, c *access.Caller, code string) (*store.Invite, string, error) {
	email, err := s.callerEmail(ctx, c)
	if err != nil {
		return nil, "", err
	}
	in, err := s.DB.InviteByCode(ctx, code, s.now())
	if errors.Is(err, store.ErrNotFound) {
		return nil, "", ErrInviteInvalid
	}
	if err != nil {
		return nil, "", err
	}
	if !strings.EqualFold(in.Email, email) {
		return nil, "", ErrInviteMismatch
	}
	if err := s.DB.DeleteInvite(ctx, in.WorkspaceID, in.Email); err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, "", err
	}
	return in, email, nil
}

// CheckInviteCode is the pre-sign-up check of an invite code: it must be a pending invite to email.
// It answers a 422 naming invite_code otherwise.
func (s *Service) CheckInviteCode(ctx context.Context, code, email string) error {
	in, err := s.DB.InviteByCode(ctx, code, s.now())
	if err == nil && strings.EqualFold(in.Email, strings.TrimSpace(email)) {
		return nil
	}
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return errs.Field("body", "invite_code", "value_error", "This invite code is invalid, has expired, or was sent to another email address.")
}

// AcceptInviteForNewUser makes a user who just signed up with an invite code a member of the
// inviting workspace (the invite must be to the user's email; seats are checked). Call it right
// after the user is created; it runs in its own transaction and records the audit event.
func (s *Service) AcceptInviteForNewUser(ctx context.Context, code string, u *store.User) (*store.Invite, error) {
	var in *store.Invite
	err := s.DB.InTx(ctx, func(tx *store.Tx) error {
		var err error
		in, err = tx.AcceptInviteInTx(ctx, code, u.ID, u.Email, Seats, s.now())
		return err
	})
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, errs.Field("body", "invite_code", "value_error", "This invite code is invalid, has expired, or was sent to another email address.")
	case errors.Is(err, store.ErrSeatsExhausted) && in != nil:
		return nil, seatsError(ctx, s.DB, in.WorkspaceID)
	case err != nil:
		return nil, err
	}
	audit.Record(ctx, s.DB, nil, u.ID, u.Email, audit.Event{WorkspaceID: in.WorkspaceID, Class: "invite", Activity: "accept", Target: u.ID,
		Details: audit.Details{"email": u.Email, "seat_type": SeatOfRole(in.Role), "at_sign_up": true}})
	return in, nil
}

// sendInvite mails an invitation link.
func (s *Service) sendInvite(ctx context.Context, to, code, workspaceName, inviter string) error {
	link := httpx.PublicURL(ctx, s.PublicURL) + "/app/invite?code=" + code
	days := int(InviteTTL / (24 * time.Hour))
	return s.Mail.Send(ctx, mailer.Message{
		To:      to,
		Subject: fmt.Sprintf("You're invited to join %s on Timbre", workspaceName),
		Text: fmt.Sprintf("%s invited you to join the workspace %q on Timbre.\n\nAccept or decline the invitation here (the link works for %d days):\n\n%s\n\nIf you don't have an account yet, you can create one with this email address.",
			inviter, workspaceName, days, link),
		HTML: fmt.Sprintf(`<p>%s invited you to join the workspace <strong>%s</strong> on Timbre.</p><p><a href="%s">Accept or decline the invitation</a> (the link works for %d days).</p><p>If you don't have an account yet, you can create one with this email address.</p>`,
			html.EscapeString(inviter), html.EscapeString(workspaceName), html.EscapeString(link), days),
	})
}

// InviteWorkspace resolves a pending invite code to the inviting workspace.
func (s *Service) InviteWorkspace(ctx context.Context, code string) (string, error) {
	in, err := s.DB.InviteByCode(ctx, code, s.now())
	if err != nil {
		return "", err
	}
	return in.WorkspaceID, nil
}

// ---- handlers --------------------------------------------------------------------------------

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

// createInvites finishes the validation of both invite bodies, invites and audits.
func (h *Handlers) createInvites(w http.ResponseWriter, r *http.Request, v *errs.Validator, emails []string, body inviteBody) error {
	c := caller(r)
	role := access.RoleEditor
	if body.SeatType != nil {
		role = seatField(v, "seat_type", body.SeatType)
	} else if body.WorkspacePermission != nil {
		role = seatField(v, "workspace_permission", body.WorkspacePermission)
	}
	if body.UsageLimit != nil && *body.UsageLimit < 0 {
		v.Add("body", "usage_limit", "greater_than_equal", "Input should be greater than or equal to 0.")
	}
	if len(body.GroupIDs) > 0 {
		groups, known, err := h.Svc.KnownGroups(r.Context(), c.WorkspaceID, body.GroupIDs)
		if err != nil {
			return err
		}
		if !known {
			v.Add("body", "group_ids", "value_error", "Every group id must name a group of this workspace.")
		}
		body.GroupIDs = groups
	}
	if err := v.Err(); err != nil {
		return err
	}
	invites, err := h.Svc.CreateInvites(r.Context(), c, emails, role, body.GroupIDs)
	for _, in := range invites {
		h.record(r, audit.Event{Class: "invite", Activity: "create", Target: in.Email,
			Details: audit.Details{"email": in.Email, "seat_type": SeatOfRole(in.Role), "group_ids": in.GroupIDs}})
	}
	if err != nil {
		return err
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
	if err := h.Svc.DeleteInvite(r.Context(), caller(r).WorkspaceID, email); err != nil {
		return err
	}
	h.record(r, audit.Event{Class: "invite", Activity: "delete", Target: email, Details: audit.Details{"email": email}})
	httpx.OK(w)
	return nil
}

func (h *Handlers) listInvites(w http.ResponseWriter, r *http.Request) error {
	ins, err := h.Svc.DB.ListInvites(r.Context(), caller(r).WorkspaceID, h.Svc.now())
	if err != nil {
		return err
	}
	out := make([]inviteEntry, 0, len(ins))
	for _, in := range ins {
		out = append(out, inviteEntry{Email: in.Email, SeatType: SeatOfRole(in.Role), GroupIDs: in.GroupIDs,
			InvitedByUserID: in.InvitedBy, CreatedAtUnix: in.CreatedAt, ExpiresAtUnix: in.ExpiresAt})
	}
	httpx.WriteJSON(w, http.StatusOK, invitesResponse{Invites: out})
	return nil
}

// peekInvite tells the invitation page what the code invites to; anyone holding the code may ask.
func (h *Handlers) peekInvite(w http.ResponseWriter, r *http.Request) error {
	in, wsName, err := h.Svc.PeekInvite(r.Context(), r.PathValue("code"))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, invitePeekResponse{WorkspaceName: wsName, Email: in.Email, SeatType: SeatOfRole(in.Role), ExpiresAtUnix: in.ExpiresAt})
	return nil
}

func (h *Handlers) acceptInvite(w http.ResponseWriter, r *http.Request) error {
	c := caller(r)
	token := ""
	if c.ViaSession {
		token = h.sessionToken(r)
	}
	in, email, err := h.Svc.AcceptInvite(r.Context(), c, r.PathValue("code"), token)
	if err != nil {
		return err
	}
	h.recordAs(r, email, audit.Event{WorkspaceID: in.WorkspaceID, Class: "invite", Activity: "accept", Target: c.UserID,
		Details: audit.Details{"email": email, "seat_type": SeatOfRole(in.Role)}})
	httpx.WriteJSON(w, http.StatusOK, inviteAcceptedResponse{Status: "ok", WorkspaceID: in.WorkspaceID, SeatType: SeatOfRole(in.Role), SessionSwitched: token != ""})
	return nil
}

func (h *Handlers) declineInvite(w http.ResponseWriter, r *http.Request) error {
	c := caller(r)
	in, email, err := h.Svc.DeclineInvite(r.Context(), c, r.PathValue("code"))
	if err != nil {
		return err
	}
	h.recordAs(r, email, audit.Event{WorkspaceID: in.WorkspaceID, Class: "invite", Activity: "decline", Target: c.UserID,
		Details: audit.Details{"email": email}})
	httpx.OK(w)
	return nil
}
