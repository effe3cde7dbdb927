package workspace

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"unicode/utf8"

	"timbre/internal/access"
	"timbre/internal/audit"
	"timbre/internal/errs"
	"timbre/internal/httpx"
	"timbre/internal/plan"
	"timbre/internal/store"
)

// Limits of workspace names and of the workspaces one user may own (each new one is a free
// workspace with its own monthly credits, so the number is kept small).
const (
	MaxWorkspaceName   = 100
	MaxOwnedWorkspaces = 5
)

// workspaceName reads and checks the "name" field of a body.
func (h *Handlers) workspaceName(r *http.Request) (string, error) {
	var body struct {
		Name *string `json:"name"`
	}
	if err := httpx.DecodeJSON(r, h.MaxBody, &body); err != nil {
		return "", err
	}
	if body.Name == nil || strings.TrimSpace(*body.Name) == "" {
		return "", errs.Field("body", "name", "missing", "Please give the workspace a name.")
	}
	name := strings.TrimSpace(*body.Name)
	if utf8.RuneCountInString(name) > MaxWorkspaceName {
		return "", errs.Field("body", "name", "string_too_long", "The name can be at most 100 characters long.")
	}
	return name, nil
}

// renameWorkspace is PATCH /api/workspace {name}: admins rename the workspace they work in.
func (h *Handlers) renameWorkspace(w http.ResponseWriter, r *http.Request) error {
	name, err := h.workspaceName(r)
	if err != nil {
		return err
	}
	c := caller(r)
	if err := h.Svc.DB.RenameWorkspace(r.Context(), c.WorkspaceID, name); err != nil {
		return err
	}
	h.record(r, audit.Event{WorkspaceID: c.WorkspaceID, Class: "workspace", Activity: "rename", Target: c.WorkspaceID, Details: audit.Details{"name": name}})
	httpx.WriteJSON(w, http.StatusOK, renameResponse{WorkspaceID: c.WorkspaceID, Name: name})
	return nil
}

// createWorkspace is POST /api/workspaces {name}: a new free workspace owned by the caller, who
// is its admin; the session moves there.
func (h *Handlers) createWorkspace(w http.ResponseWriter, r *http.Request) error {
	name, err := h.workspaceName(r)
	if err != nil {
		return err
	}
	ws, err := h.Svc.CreateWorkspace(r.Context(), caller(r), h.sessionToken(r), name)
	if err != nil {
		return err
	}
	h.record(r, audit.Event{WorkspaceID: ws.ID, Class: "workspace", Activity: "create", Target: ws.ID, Details: audit.Details{"name": name}})
	httpx.WriteJSON(w, http.StatusCreated, createdWorkspaceResponse{WorkspaceID: ws.ID, Name: ws.Name, Tier: ws.Tier, Role: access.RoleAdmin, IsCurrent: true})
	return nil
}

// CreateWorkspace makes a new free workspace owned by the caller (at most MaxOwnedWorkspaces),
// with the caller as its admin, and moves their browser session there.
func (s *Service) CreateWorkspace(ctx context.Context, c *access.Caller, sessionToken, name string) (*store.Workspace, error) {
	if !c.ViaSession {
		return nil, errs.Errorf(errs.Invalid, "session_required", "Creating workspaces is for signed-in browsers.")
	}
	ws, err := s.DB.CreateWorkspace(ctx, c.UserID, name, plan.Default, MaxOwnedWorkspaces, s.now())
	if errors.Is(err, store.ErrLimitReached) {
		return nil, errs.Errorf(errs.Conflict, "workspace_limit_reached", "You already own %d workspaces, the most one person may own.", MaxOwnedWorkspaces)
	}
	if err != nil {
		return nil, err
	}
	if err := s.DB.SetSessionWorkspace(ctx, sessionToken, c.UserID, ws.ID); err != nil {
		return nil, err
	}
	return ws, nil
}
