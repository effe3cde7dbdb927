// Package workspace is who works where: the workspaces a user belongs to and switching between
// them, members and their roles (admin, editor), invitations by email with seats per plan, groups,
// per-resource sharing, and the workspace's training opt-out.
package workspace

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net/http"
	"strings"
	"time"

	"timbre/internal/audit"
	"timbre/internal/httpx"
	mailer "timbre/internal/mail"
	"timbre/internal/plan"
	"timbre/internal/store"
)

// InviteTTL is how long an invitation link works.
const InviteTTL = 7 * 24 * time.Hour

// Seat types of the API and the roles they stand for (spec §6: admin and editor).
const (
	SeatAdmin  = "workspace_admin"
	SeatMember = "workspace_member"
	SeatLite   = "workspace_lite_member"
)

// RoleOfSeat maps an API seat type to a role ("" when Timbre has no such role).
func RoleOfSeat(seat string) string {
	switch seat {
	case SeatAdmin:
		return httpx.RoleAdmin
	case SeatMember:
		return httpx.RoleEditor
	}
	return ""
}

// SeatOfRole maps a role to the API's seat type.
func SeatOfRole(role string) string {
	if role == httpx.RoleAdmin {
		return SeatAdmin
	}
	return SeatMember
}

// Seats is the number of seats of a workspace (spec §6): the tier's, except that an operator's
// max_seats override is honoured for enterprise workspaces.
func Seats(tier string, maxSeats *int64) int {
	if tier == "enterprise" && maxSeats != nil && *maxSeats > 0 {
		return int(*maxSeats)
	}
	return plan.Get(tier).Seats
}

// Service holds the workspace logic.
type Service struct {
	DB        Store
	Mail      mailer.Sender
	PublicURL string
	Now       func() time.Time
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Errors of the workspace area.
var (
	ErrInviteInvalid  = httpx.Errorf(http.StatusNotFound, "invite_not_found", "This invitation is invalid, has expired or was withdrawn.")
	ErrInviteMismatch = httpx.Errorf(http.StatusForbidden, "invite_email_mismatch", "This invitation was sent to another email address. Sign in with that address to answer it.")
	ErrOwner          = httpx.Errorf(http.StatusBadRequest, "workspace_owner", "The workspace owner can't be removed, locked or made an editor.")
	ErrOptOutAdmin    = httpx.Errorf(http.StatusForbidden, "forbidden", "Only workspace admins can change this setting.")
)

// OptOutUpdated is the spec's §8 success message of the training opt-out update.
const OptOutUpdated = "Workspace training opt out setting successfully updated."

func seatsError(ctx context.Context, db Store, workspaceID string) error {
	tier, seats := "free", 1
	if ws, err := db.Workspace(ctx, workspaceID, time.Now()); err == nil {
		tier = ws.Tier
		st, _ := db.WorkspaceSettings(ctx, workspaceID)
		var max *int64
		if st != nil {
			max = st.MaxSeats
		}
		seats = Seats(ws.Tier, max)
	}
	noun := "seats"
	if seats == 1 {
		noun = "seat"
	}
	return httpx.Errorf(http.StatusForbidden, "seat_limit_reached",
		"This workspace's %s plan has %d %s, and members plus pending invites already fill them. Remove a member or withdraw an invite, or upgrade the plan, to add someone.",
		plan.Get(tier).Name, seats, noun)
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
	return httpx.Invalid("body", "invite_code", "value_error", "This invite code is invalid, has expired, or was sent to another email address.")
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
		return nil, httpx.Invalid("body", "invite_code", "value_error", "This invite code is invalid, has expired, or was sent to another email address.")
	case errors.Is(err, store.ErrSeatsExhausted) && in != nil:
		return nil, seatsError(ctx, s.DB, in.WorkspaceID)
	case err != nil:
		return nil, err
	}
	audit.Record(ctx, s.DB, nil, u.ID, u.Email, audit.Event{WorkspaceID: in.WorkspaceID, Class: "invite", Activity: "accept", Target: u.ID,
		Details: map[string]any{"email": u.Email, "seat_type": SeatOfRole(in.Role), "at_sign_up": true}})
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

// SeatAvailable answers nil when the workspace has room for one more member (members plus
// pending invites below the plan's seats), else the seat-limit error.
func (s *Service) SeatAvailable(ctx context.Context, workspaceID string) error {
	ws, err := s.DB.Workspace(ctx, workspaceID, s.now())
	if err != nil {
		return err
	}
	st, err := s.DB.WorkspaceSettings(ctx, workspaceID)
	if err != nil {
		return err
	}
	members, pending, err := s.DB.SeatsUsed(ctx, workspaceID, s.now())
	if err != nil {
		return err
	}
	if members+pending >= Seats(ws.Tier, st.MaxSeats) {
		return seatsError(ctx, s.DB, workspaceID)
	}
	return nil
}

// SwitchWorkspace moves the caller's browser session to another workspace they are an unlocked
// member of; API keys stay in their own workspace.
func (s *Service) SwitchWorkspace(ctx context.Context, c *httpx.Caller, sessionToken, workspaceID string) error {
	if !c.ViaSession {
		return httpx.Errorf(http.StatusBadRequest, "session_required", "Switching workspaces is for signed-in browsers; an API key always works in its own workspace.")
	}
	err := s.DB.SetSessionWorkspace(ctx, sessionToken, c.UserID, workspaceID)
	if errors.Is(err, store.ErrNotFound) {
		return httpx.Errorf(http.StatusNotFound, "workspace_not_found", "Workspace '%s' was not found among your workspaces.", workspaceID)
	}
	return err
}

// SetTrainingOptOut changes the workspace's training opt-out; only admins may.
func (s *Service) SetTrainingOptOut(ctx context.Context, c *httpx.Caller, optOut bool) error {
	if c.Role != httpx.RoleAdmin {
		return ErrOptOutAdmin
	}
	return s.DB.SetTrainingOptOut(ctx, c.WorkspaceID, optOut, s.now())
}

// InviteWorkspace resolves a pending invite code to the inviting workspace.
func (s *Service) InviteWorkspace(ctx context.Context, code string) (string, error) {
	in, err := s.DB.InviteByCode(ctx, code, s.now())
	if err != nil {
		return "", err
	}
	return in.WorkspaceID, nil
}
