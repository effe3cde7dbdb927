package auth

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"timbre/internal/access"
	"timbre/internal/apikey"
	"timbre/internal/errs"
	"timbre/internal/httpx"
	"timbre/internal/store"
)

// CreateAPIKey makes a key with every permission for the user's workspace and returns the
// secret, shown once.
func (s *Service) CreateAPIKey(ctx context.Context, userID, workspaceID, name string) (*store.APIKey, string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return nil, "", errs.Field("body", "name", "missing", "Please give the key a name.")
	}
	if len([]rune(name)) > apikey.MaxNameLength {
		return nil, "", errs.Field("body", "name", "value_error", "The name must be at most 100 characters.")
	}
	return apikey.Create(ctx, s.DB, nil, apikey.NewKey{WorkspaceID: workspaceID, UserID: userID, Name: name, Permissions: []string{apikey.All}}, s.now())
}

// CreateUserKey makes a key for the caller with the name, permissions, character limit and
// self-disable setting of nk (see apikey.DecodeNewKey); a key-authenticated caller cannot give
// the new key permissions it lacks.
func (s *Service) CreateUserKey(ctx context.Context, c *access.Caller, nk apikey.NewKey) (*store.APIKey, string, error) {
	nk.WorkspaceID, nk.UserID, nk.ServiceAccount = c.WorkspaceID, c.UserID, false
	return apikey.Create(ctx, s.DB, c, nk, s.now())
}

// Authenticate resolves the request's caller from an API key or the session cookie (nil, nil
// when the request carries neither).
func (s *Service) Authenticate(r *http.Request) (*access.Caller, error) {
	if key := requestKey(r); key != "" {
		return s.authenticateKey(r.Context(), key)
	}
	if token := r.URL.Query().Get("token"); token != "" {
		return s.authenticateToken(r, token)
	}
	return s.authenticateSession(r)
}

// requestKey is the API key of a request: xi-api-key, or Authorization: Bearer for the
// OpenAI-style routes.
func requestKey(r *http.Request) string {
	key := r.Header.Get("xi-api-key")
	if key == "" {
		// The scheme name is case-insensitive (RFC 9110 §11.1): "bearer" and "BEARER" work too.
		if scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " "); ok && strings.EqualFold(scheme, "Bearer") {
			key = token
		}
	}
	return strings.TrimSpace(key)
}

func (s *Service) authenticateKey(ctx context.Context, key string) (*access.Caller, error) {
	k, err := s.DB.APIKeyBySecret(ctx, key)
	if errors.Is(err, store.ErrNotFound) {
		return nil, httpx.ErrUnauthorized
	}
	if err != nil {
		return nil, err
	}
	member, err := s.DB.Access(ctx, k.WorkspaceID, k.UserID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, httpx.ErrUnauthorized // the key's user left the workspace
	}
	if err != nil {
		return nil, err
	}
	if k.IsDisabled {
		return nil, apikey.ErrKeyDisabled(k.DisableReason)
	}
	if now := s.now(); k.LastUsed == nil || *k.LastUsed < now.Unix()-60 {
		// TouchAPIKey records use once a minute at most; a key used within the minute (as read
		// just now) would not be updated, so skip the write statement.
		_ = s.DB.TouchAPIKey(ctx, k.ID, now)
	}
	c := &access.Caller{UserID: k.UserID, WorkspaceID: k.WorkspaceID, APIKeyID: k.ID, Permissions: apikey.CallerPermissions(k)}
	applyAccess(c, member)
	return c, nil
}

// applyAccess gives a caller what membership gives them: the role, and the features and admin
// duties of their groups. Admins are never restricted by groups.
func applyAccess(c *access.Caller, a *store.MemberAccess) {
	c.Role = a.Role
	if a.Role == access.RoleAdmin {
		return
	}
	c.Features, c.Grants = apikey.GroupAccess(a.GroupPermissions)
}
