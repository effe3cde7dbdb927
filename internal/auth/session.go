package auth

import (
	"crypto/subtle"
	"errors"
	"net/http"

	"timbre/internal/httpx"
	"timbre/internal/store"
)

// authenticateSession resolves the caller from the session cookie, enforcing CSRF on writes.
func (s *Service) authenticateSession(r *http.Request) (*httpx.Caller, error) {
	ctx := r.Context()
	c, err := r.Cookie(SessionCookie)
	if err != nil || c.Value == "" {
		return nil, nil
	}
	sess, err := s.DB.SessionByToken(ctx, c.Value, s.now())
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead && r.Method != http.MethodOptions {
		if got := r.Header.Get(CSRFHeader); got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(sess.CSRFToken)) != 1 {
			return nil, httpx.ErrCSRF
		}
	}
	role, err := s.DB.Role(ctx, sess.WorkspaceID, sess.UserID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil // no longer a member of the session's workspace
	}
	if err != nil {
		return nil, err
	}
	return &httpx.Caller{UserID: sess.UserID, WorkspaceID: sess.WorkspaceID, Role: role, ViaSession: true}, nil
}
