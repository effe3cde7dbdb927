package auth

import (
	"context"
	"net/http"

	"timbre/internal/access"
	"timbre/internal/audit"
	"timbre/internal/errs"
	"timbre/internal/httpx"
	"timbre/internal/store"
)

// ErrWrongCurrentPassword answers a password change whose current password does not match.
var ErrWrongCurrentPassword = errs.Errorf(errs.Unauthenticated, "wrong_current_password", "Your current password is not right.")

// ChangePassword sets a new password for a signed-in user who proves the current one. Like a
// reset it ends every session of the user (this one too): a stolen session dies with the old
// password.
func (s *Service) ChangePassword(ctx context.Context, userID, current, next string) error {
	u, err := s.DB.UserByID(ctx, userID)
	if err != nil {
		return err
	}
	var v errs.Validator
	if current == "" {
		v.Add("body", "current_password", "missing", "Please enter your current password.")
	}
	validatePassword(&v, next, u.Email, u.FirstName)
	if err := v.Err(); err != nil {
		return renameField(err, "password", "new_password")
	}
	if u.PasswordHash == "" || !CheckPassword(u.PasswordHash, current) {
		return ErrWrongCurrentPassword
	}
	if current == next {
		return errs.Field("body", "new_password", "value_error", "The new password must differ from the current one.")
	}
	return s.DB.InTx(ctx, func(tx *store.Tx) error { return tx.SetPassword(ctx, userID, HashPassword(next)) })
}

// renameField moves validation errors of one body field to another name (the shared password
// rules name the field "password"; this route's field is new_password).
func renameField(err error, from, to string) error {
	if ve, ok := err.(*errs.Validation); ok {
		for i := range ve.Fields {
			if len(ve.Fields[i].Loc) == 2 && ve.Fields[i].Loc[1] == from {
				ve.Fields[i].Loc[1] = to
			}
		}
	}
	return err
}

type passwordChanged struct {
	Status    string `json:"status"`
	SignedOut bool   `json:"signed_out"` // always true: the caller's session cookies are cleared
}

func (h *Handlers) changePassword(w http.ResponseWriter, r *http.Request) error {
	var b struct {
		CurrentPassword string `json:"current_password"`
		NewPassword     string `json:"new_password"`
	}
	if err := httpx.DecodeJSON(r, h.MaxBody, &b); err != nil {
		return err
	}
	c := access.CallerFrom(r.Context())
	if err := h.Svc.ChangePassword(r.Context(), c.UserID, b.CurrentPassword, b.NewPassword); err != nil {
		return err
	}
	audit.Record(r.Context(), h.Svc.DB, r, c.UserID, "", audit.Event{WorkspaceID: c.WorkspaceID, Class: "user", Activity: "change_password", Target: c.UserID})
	ClearSessionCookies(w)
	httpx.WriteJSON(w, http.StatusOK, passwordChanged{Status: "ok", SignedOut: true})
	return nil
}
