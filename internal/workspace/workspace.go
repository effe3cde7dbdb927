// Package workspace is who works where: the workspaces a user belongs to and switching between
// them, members and their roles (admin, editor), invitations by email with seats per plan, groups,
// per-resource sharing, and the workspace's training opt-out.
package workspace

import (
	"context"
	"errors"
	"time"

	"timbre/internal/access"
	"timbre/internal/errs"
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
		return access.RoleAdmin
	case SeatMember:
		return access.RoleEditor
	}
	return ""
}

// SeatOfRole maps a role to the API's seat type.
func SeatOfRole(role string) string {
	if role == access.RoleAdmin {
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
	ErrInviteInvalid  = errs.Errorf(errs.NotFound, "invite_not_found", "This invitation is invalid, has expired or was withdrawn.")
	ErrInviteMismatch = errs.Errorf(errs.Forbidden, "invite_email_mismatch", "This invitation was sent to another email address. Sign in with that address to answer it.")
	ErrOwner          = errs.Errorf(errs.Invalid, "workspace_owner", "The workspace owner can't be removed, locked or made an editor.")
	ErrOptOutAdmin    = errs.Errorf(errs.Forbidden, "forbidden", "Only workspace admins can change this setting.")
)

// OptOutUpdated is the spec's §8 success message of the training opt-out update.
const OptOutUpdated = "Workspace training opt out setting successfully updated."

// SwitchWorkspace moves the caller's browser session to another workspace they are an unlocked
// member of; API keys stay in their own workspace.
func (s *Service) SwitchWorkspace(ctx context.Context, c *access.Caller, sessionToken, workspaceID string) error {
	if !c.ViaSession {
		return errs.Errorf(errs.Invalid, "session_required", "Switching workspaces is for signed-in browsers; an API key always works in its own workspace.")
	}
	err := s.DB.SetSessionWorkspace(ctx, sessionToken, c.UserID, workspaceID)
	if errors.Is(err, store.ErrNotFound) {
		return errs.Errorf(errs.NotFound, "workspace_not_found", "Workspace '%s' was not found among your workspaces.", workspaceID)
	}
	return err
}

// SetTrainingOptOut changes the workspace's training opt-out; only admins may.
func (s *Service) SetTrainingOptOut(ctx context.Context, c *access.Caller, optOut bool) error {
	if c.Role != access.RoleAdmin {
		return ErrOptOutAdmin
	}
	return s.DB.SetTrainingOptOut(ctx, c.WorkspaceID, optOut, s.now())
}
