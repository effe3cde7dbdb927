// Package access is who a request acts for — the caller, with their workspace, role, API-key
// permissions and group features — carried in the context so that services (HTTP, WebSocket or
// command line) read it without the HTTP layer.
package access

import (
	"context"
	"slices"
)

type ctxKey struct{}

// Workspace roles (spec §6: editor rights belong to both).
const (
	RoleAdmin  = "admin"
	RoleEditor = "editor"
)

// Caller is who a request acts for.
type Caller struct {
	UserID      string
	WorkspaceID string
	Role        string   // the user's role in WorkspaceID
	APIKeyID    string   // set when authenticated by xi-api-key
	Permissions []string // the key's permissions; nil means all (web sessions, keys made with "all")
	ViaSession  bool     // authenticated by the web session cookie
	// Features are the product features the member's groups allow (group permissions such as
	// text_to_speech); nil means every feature (admins, members whose groups restrict nothing).
	Features []string
	// Grants are admin duties the member's groups hand to them (webhooks_manage, audit_log_read, …).
	Grants []string
}

// HasFeature says whether the caller's groups let them use a product feature.
func (c *Caller) HasFeature(f string) bool {
	return c.Features == nil || slices.Contains(c.Features, f)
}

// MayAdminister says whether the caller may do an admin-only action: as an admin, or through a
// group that grants the duty (grant "" means admins only).
func (c *Caller) MayAdminister(grant string) bool {
	return c.Role == RoleAdmin || (grant != "" && slices.Contains(c.Grants, grant))
}

// Can says whether the caller holds an API permission.
func (c *Caller) Can(p string) bool {
	if c.Permissions == nil {
		return true
	}
	for _, x := range c.Permissions {
		if x == p || x == "all" {
			return true
		}
	}
	return false
}

// WithCaller stores the caller in ctx.
func WithCaller(ctx context.Context, c *Caller) context.Context {
	return context.WithValue(ctx, ctxKey{}, c)
}

// CallerFrom returns the request's caller, or nil when unauthenticated.
func CallerFrom(ctx context.Context) *Caller {
	c, _ := ctx.Value(ctxKey{}).(*Caller)
	return c
}
