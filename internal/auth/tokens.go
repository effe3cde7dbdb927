package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"timbre/internal/access"
	"timbre/internal/apikey"
	"timbre/internal/errs"
	"timbre/internal/httpx"
	"timbre/internal/store"
)

// Single-use tokens let a browser or app make one request with the rights of the key (or
// session) that asked for the token, without ever holding the key: the server makes the token,
// the client sends it as ?token=… within SingleUseTokenTTL, and it is spent on first use.

// SingleUseTokenTTL is how long a token stays valid (the API's 15 minutes).
const SingleUseTokenTTL = 15 * time.Minute

// singleUseTokenPermissions maps each token type to the one permission it carries.
var singleUseTokenPermissions = map[string]string{
	"realtime_scribe": "speech_to_text",
	"batch_scribe":    "speech_to_text",
	"tts_websocket":   "text_to_speech",
}

// SingleUseTokenTypes lists the token types, for validation messages.
const SingleUseTokenTypes = "realtime_scribe, batch_scribe, tts_websocket"

// CreateSingleUseToken makes a token of tokenType for the caller, who must hold the permission
// (and group feature) the token carries.
func (s *Service) CreateSingleUseToken(ctx context.Context, c *access.Caller, tokenType string) (string, error) {
	perm, ok := singleUseTokenPermissions[tokenType]
	if !ok {
		var v errs.Validator
		v.Add("path", "token_type", "enum", fmt.Sprintf("Unknown token_type '%s'. Use one of: %s.", tokenType, SingleUseTokenTypes))
		return "", v.Err()
	}
	if !c.Can(perm) {
		return "", httpx.ErrMissingPermission(perm)
	}
	if !c.HasFeature(perm) {
		return "", httpx.ErrFeatureNotAllowed(perm)
	}
	token := "sutkn_" + store.RandomString(40)
	err := s.DB.CreateSingleUseToken(ctx, token, store.SingleUseToken{Type: tokenType, WorkspaceID: c.WorkspaceID,
		UserID: c.UserID, APIKeyID: c.APIKeyID, ExpiresAt: s.now().Add(SingleUseTokenTTL).Unix()})
	return token, err
}

// tokenTypeOf is the single-use token type that may authenticate request r ("" when none may).
func tokenTypeOf(r *http.Request) string {
	p := r.URL.Path
	switch {
	case r.Method == http.MethodPost && p == "/v1/speech-to-text":
		return "batch_scribe"
	case p == "/v1/speech-to-text/realtime":
		return "realtime_scribe"
	case strings.HasPrefix(p, "/v1/text-to-speech/") && (strings.HasSuffix(p, "/stream-input") || strings.HasSuffix(p, "/multi-stream-input")):
		return "tts_websocket"
	}
	return ""
}

// errBadToken answers a token that is unknown, spent, expired or meant for another route.
var errBadToken = errs.New(errs.Unauthenticated, "invalid_token", "The token is invalid, expired or already used; ask your server for a new one.")

// authenticateToken spends the request's ?token= and returns a caller holding only the token's
// permission, acting as the token's maker (its key's quota and state still apply).
func (s *Service) authenticateToken(r *http.Request, token string) (*access.Caller, error) {
	ctx := r.Context()
	tokenType := tokenTypeOf(r)
	if tokenType == "" {
		return nil, errBadToken
	}
	t, err := s.DB.UseSingleUseToken(ctx, token, tokenType, s.now())
	if errors.Is(err, store.ErrNotFound) {
		return nil, errBadToken
	}
	if err != nil {
		return nil, err
	}
	if t.APIKeyID != "" {
		k, err := s.DB.APIKeyByID(ctx, t.WorkspaceID, t.APIKeyID)
		if errors.Is(err, store.ErrNotFound) {
			return nil, errBadToken // the key that made it was deleted
		}
		if err != nil {
			return nil, err
		}
		if k.IsDisabled {
			return nil, apikey.ErrKeyDisabled(k.DisableReason)
		}
	}
	member, err := s.DB.Access(ctx, t.WorkspaceID, t.UserID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errBadToken
	}
	if err != nil {
		return nil, err
	}
	c := &access.Caller{UserID: t.UserID, WorkspaceID: t.WorkspaceID, APIKeyID: t.APIKeyID,
		Permissions: []string{singleUseTokenPermissions[tokenType]}}
	applyAccess(c, member)
	return c, nil
}
