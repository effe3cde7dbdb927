package account

import (
	"net/http"
	"strings"

	"timbre/internal/errs"
	"timbre/internal/httpx"
)

type firstNameResponse struct {
	FirstName string `json:"first_name"`
}

// updateName is PATCH /api/account {first_name}: the name the app greets the user by.
func (h *Handlers) updateName(w http.ResponseWriter, r *http.Request) error {
	var b struct {
		FirstName *string `json:"first_name"`
	}
	if err := httpx.DecodeJSON(r, h.maxBody(), &b); err != nil {
		return err
	}
	name := ""
	if b.FirstName != nil {
		name = strings.TrimSpace(*b.FirstName)
	}
	var v errs.Validator
	checkText(&v, "first_name", name, true, MaxNameLen)
	if err := v.Err(); err != nil {
		return err
	}
	if err := h.Svc.DB.SetFirstName(r.Context(), caller(r).UserID, name); err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, firstNameResponse{FirstName: name})
	return nil
}
