package workspace

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"timbre/internal/access"
	"timbre/internal/audit"
	"timbre/internal/errs"
	"timbre/internal/httpx"
	"timbre/internal/plan"
	"timbre/internal/store"
)

// ---- service ---------------------------------------------------------------------------------

func memberNotFound(email string) error {
	return errs.Errorf(errs.NotFound, "member_not_found", "No member of this workspace has the email '%s'.", email)
}

func memberIDNotFound(id string) error {
	return errs.Errorf(errs.NotFound, "member_not_found", "User '%s' is not a member of this workspace.", id)
}

// UpdateMember changes the role (when role is not "") and the lock of the member with the email
// in the caller's workspace; the owner cannot be changed. It returns the member as it was.
func (s *Service) UpdateMember(ctx context.Context, c *access.Caller, email, role string, locked *bool) (*store.Member, error) {
	m, err := s.DB.MemberByEmail(ctx, c.WorkspaceID, email)
	if errors.Is(err, store.ErrNotFound) {
		return nil, memberNotFound(email)
	}
	if err != nil {
		return nil, err
	}
	var rolePtr *string
	if role != "" {
		rolePtr = &role
	}
	err = s.DB.UpdateMember(ctx, c.WorkspaceID, m.UserID, rolePtr, locked)
	if errors.Is(err, store.ErrOwner) {
		return nil, ErrOwner
	}
	if errors.Is(err, store.ErrNotFound) {
		return nil, memberNotFound(email)
	}
	if err != nil {
		return nil, err
	}
	return m, nil
}

// RemoveMember takes a user out of the caller's workspace; a delegate (not an admin) may only
// remove members within their own access (checkRemoval), and nobody the owner.
func (s *Service) RemoveMember(ctx context.Context, c *access.Caller, userID string) error {
	if c.Role != access.RoleAdmin {
		m, err := s.DB.MemberByID(ctx, c.WorkspaceID, userID)
		if errors.Is(err, store.ErrNotFound) {
			return memberIDNotFound(userID)
		}
		if err != nil {
			return err
		}
		if err := checkRemoval(c, m); err != nil {
			return err
		}
	}
	err := s.DB.RemoveMember(ctx, c.WorkspaceID, userID)
	if errors.Is(err, store.ErrOwner) {
		return ErrOwner
	}
	if errors.Is(err, store.ErrNotFound) {
		return memberIDNotFound(userID)
	}
	return err
}

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
	return errs.Errorf(errs.Forbidden, "seat_limit_reached",
		"This workspace's %s plan has %d %s, and members plus pending invites already fill them. Remove a member or withdraw an invite, or upgrade the plan, to add someone.",
		plan.Get(tier).Name, seats, noun)
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

// ---- handlers --------------------------------------------------------------------------------

func (h *Handlers) members(w http.ResponseWriter, r *http.Request) error {
	ms, err := h.Svc.DB.ListMembers(r.Context(), caller(r).WorkspaceID)
	if err != nil {
		return err
	}
	out := make([]memberResponse, 0, len(ms))
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
	m, err := h.Svc.UpdateMember(r.Context(), caller(r), email, role, body.IsLocked)
	if err != nil {
		return err
	}
	if role != "" && role != m.Role {
		h.record(r, audit.Event{Class: "member", Activity: "role_change", Target: m.UserID,
			Details: audit.Details{"email": m.Email, "from": SeatOfRole(m.Role), "to": SeatOfRole(role)}})
	}
	if body.IsLocked != nil && *body.IsLocked != m.IsLocked {
		act := "unlock"
		if *body.IsLocked {
			act = "lock"
		}
		h.record(r, audit.Event{Class: "member", Activity: act, Target: m.UserID, Details: audit.Details{"email": m.Email}})
	}
	httpx.OK(w)
	return nil
}

func (h *Handlers) removeMember(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("user_id")
	if err := h.Svc.RemoveMember(r.Context(), caller(r), id); err != nil {
		return err
	}
	h.record(r, audit.Event{Class: "member", Activity: "remove", Target: id})
	httpx.OK(w)
	return nil
}
