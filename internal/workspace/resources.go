package workspace

import (
	"errors"
	"net/http"
	"slices"
	"strings"

	"timbre/internal/audit"
	"timbre/internal/errs"
	"timbre/internal/httpx"
	"timbre/internal/store"
)

// ShareableTypes are the resource types Timbre shares: the workspace's own voices, and its
// history items (a Timbre extension of the API's WorkspaceResourceType).
var ShareableTypes = []string{store.ResourceVoice, store.ResourceHistory}

// ShareRoles are the roles a grant can give, in the API's order.
var ShareRoles = []string{"admin", "editor", "commenter", "viewer"}

func validType(v *errs.Validator, where, typ string) {
	if typ == "" {
		v.Add(where, "resource_type", "missing", "Field required: the resource type (voice or history).")
	} else if !slices.Contains(ShareableTypes, typ) {
		v.Add(where, "resource_type", "enum", "Timbre shares resources of type 'voice' or 'history'.")
	}
}

func resourceNotFound(typ, id string) error {
	return errs.Errorf(errs.NotFound, "resource_not_found", "Resource '%s' of type %s was not found in this workspace.", id, typ)
}

// resourceOf finds the resource of the caller's workspace.
func (h *Handlers) resourceOf(r *http.Request, typ string) (*store.Resource, error) {
	id := r.PathValue("resource_id")
	res, err := h.Svc.DB.ResourceOf(r.Context(), caller(r).WorkspaceID, typ, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, resourceNotFound(typ, id)
	}
	return res, err
}

// roleOn is the caller's role on a resource: admin for workspace admins and the creator,
// otherwise the strongest grant that reaches them. Workspace voices are visible to every member.
func (h *Handlers) roleOn(r *http.Request, res *store.Resource) (string, error) {
	c := caller(r)
	if c.Role == httpx.RoleAdmin || (res.CreatorUserID != "" && res.CreatorUserID == c.UserID) {
		return "admin", nil
	}
	role, err := h.Svc.DB.SharedRole(r.Context(), c.WorkspaceID, res.Type, res.ID, c.UserID)
	if role == "" && res.Type == store.ResourceVoice {
		role = "viewer"
	}
	return role, err
}

// ErrNotResourceAdmin answers a share or unshare by someone without admin on the resource.
var ErrNotResourceAdmin = errs.Errorf(errs.Forbidden, "forbidden", "Only the resource's creator, its admins and workspace admins can change who it is shared with.")

// checkResourceAdmin lets through only callers with admin on the resource; one they cannot see
// at all is not found.
func (h *Handlers) checkResourceAdmin(r *http.Request, res *store.Resource) error {
	role, err := h.roleOn(r, res)
	switch {
	case err != nil:
		return err
	case role == "":
		return resourceNotFound(res.Type, res.ID)
	case role != "admin":
		return ErrNotResourceAdmin
	}
	return nil
}

func (h *Handlers) resource(w http.ResponseWriter, r *http.Request) error {
	typ := r.URL.Query().Get("resource_type")
	var v errs.Validator
	validType(&v, "query", typ)
	if err := v.Err(); err != nil {
		return err
	}
	res, err := h.resourceOf(r, typ)
	if err != nil {
		return err
	}
	if role, err := h.roleOn(r, res); err != nil {
		return err
	} else if role == "" {
		return resourceNotFound(typ, res.ID)
	}
	ctx := r.Context()
	ws := caller(r).WorkspaceID
	shares, err := h.Svc.DB.ListShares(ctx, ws, typ, res.ID)
	if err != nil {
		return err
	}
	roles := map[string][]string{}
	for _, role := range ShareRoles {
		roles[role] = []string{}
	}
	granted := map[string]bool{}
	if res.CreatorUserID != "" {
		roles["admin"] = append(roles["admin"], res.CreatorUserID)
		granted["user:"+res.CreatorUserID] = true
	}
	for _, s := range shares {
		roles[s.Role] = append(roles[s.Role], s.PrincipalID)
		granted[s.PrincipalType+":"+s.PrincipalID] = true
	}
	options := []ShareOption{}
	members, err := h.Svc.DB.ListMembers(ctx, ws)
	if err != nil {
		return err
	}
	for _, m := range members {
		if !granted["user:"+m.UserID] {
			options = append(options, ShareOption{Name: m.Email, ID: m.UserID, Type: "user"})
		}
	}
	groups, err := h.Svc.DB.ListGroups(ctx, ws, "")
	if err != nil {
		return err
	}
	for _, g := range groups {
		if !granted["group:"+g.ID] {
			options = append(options, ShareOption{Name: g.Name, ID: g.ID, Type: "group"})
		}
	}
	out := ResourceMetadata{ResourceID: res.ID, ResourceType: typ, RoleToGroupIDs: roles, ShareOptions: options}
	if res.Name != "" {
		name := truncate(res.Name, 100)
		out.ResourceName = &name
	}
	if res.CreatorUserID != "" {
		out.CreatorUserID = &res.CreatorUserID
	}
	if res.PublicLink {
		viewer := "viewer"
		out.AnonymousAccessLevelOverride = &viewer
	}
	httpx.WriteJSON(w, http.StatusOK, out)
	return nil
}

// ResourceMetadata is GET /v1/workspace/resources/{id}'s answer (ResourceMetadataResponseModel).
type ResourceMetadata struct {
	ResourceID                   string              `json:"resource_id"`
	ResourceName                 *string             `json:"resource_name"`
	ResourceType                 string              `json:"resource_type"`
	CreatorUserID                *string             `json:"creator_user_id"`
	AnonymousAccessLevelOverride *string             `json:"anonymous_access_level_override"`
	RoleToGroupIDs               map[string][]string `json:"role_to_group_ids"`
	ShareOptions                 []ShareOption       `json:"share_options"`
}

// ShareOption is a member or group the resource is not yet shared with.
type ShareOption struct {
	Name string `json:"name"`
	ID   string `json:"id"`
	Type string `json:"type"`
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

type shareBody struct {
	Role              *string `json:"role"`
	ResourceType      *string `json:"resource_type"`
	UserEmail         *string `json:"user_email"`
	GroupID           *string `json:"group_id"`
	WorkspaceAPIKeyID *string `json:"workspace_api_key_id"`
}

// target validates the body and resolves whom it names, in the caller's workspace.
func (h *Handlers) shareTarget(r *http.Request, needRole bool) (*store.Resource, store.Share, error) {
	var body shareBody
	if err := httpx.DecodeJSON(r, h.MaxBody, &body); err != nil {
		return nil, store.Share{}, err
	}
	var v errs.Validator
	typ := ""
	if body.ResourceType != nil {
		typ = *body.ResourceType
	}
	validType(&v, "body", typ)
	var s store.Share
	if needRole {
		switch {
		case body.Role == nil:
			v.Add("body", "role", "missing", "Field required: admin, editor, commenter or viewer.")
		case !slices.Contains(ShareRoles, *body.Role):
			v.Add("body", "role", "enum", "Input should be 'admin', 'editor', 'commenter' or 'viewer'.")
		default:
			s.Role = *body.Role
		}
	}
	set := 0
	for _, p := range []*string{body.UserEmail, body.GroupID, body.WorkspaceAPIKeyID} {
		if p != nil && strings.TrimSpace(*p) != "" {
			set++
		}
	}
	if set != 1 {
		v.Add("body", "user_email", "value_error", "Give exactly one of user_email, group_id or workspace_api_key_id.")
	}
	if err := v.Err(); err != nil {
		return nil, s, err
	}
	res, err := h.resourceOf(r, typ)
	if err != nil {
		return nil, s, err
	}
	ctx := r.Context()
	ws := caller(r).WorkspaceID
	switch {
	case body.UserEmail != nil && strings.TrimSpace(*body.UserEmail) != "":
		email := normEmail(*body.UserEmail)
		m, err := h.Svc.DB.MemberByEmail(ctx, ws, email)
		if errors.Is(err, store.ErrNotFound) {
			return nil, s, memberNotFound(email)
		}
		if err != nil {
			return nil, s, err
		}
		s.PrincipalType, s.PrincipalID = "user", m.UserID
	case body.GroupID != nil && strings.TrimSpace(*body.GroupID) != "":
		id := strings.TrimSpace(*body.GroupID)
		if id == "default" {
			s.PrincipalType, s.PrincipalID = "default", "default"
			break
		}
		if _, err := h.Svc.DB.GroupByID(ctx, ws, id); errors.Is(err, store.ErrNotFound) {
			return nil, s, groupNotFound(id)
		} else if err != nil {
			return nil, s, err
		}
		s.PrincipalType, s.PrincipalID = "group", id
	default:
		id := strings.TrimSpace(*body.WorkspaceAPIKeyID)
		userID, err := h.Svc.DB.APIKeyUserOf(ctx, ws, id)
		if errors.Is(err, store.ErrNotFound) {
			return nil, s, errs.Errorf(errs.NotFound, "api_key_not_found", "API key '%s' was not found in this workspace.", id)
		}
		if err != nil {
			return nil, s, err
		}
		s.PrincipalType, s.PrincipalID = "user", userID
	}
	return res, s, nil
}

func (h *Handlers) share(w http.ResponseWriter, r *http.Request) error {
	res, s, err := h.shareTarget(r, true)
	if err != nil {
		return err
	}
	if err := h.checkResourceAdmin(r, res); err != nil {
		return err
	}
	if s.PrincipalType == "user" && s.PrincipalID == res.CreatorUserID {
		return errs.Errorf(errs.Invalid, "creator_access", "The creator of a resource always keeps admin access to it.")
	}
	err = h.Svc.DB.ShareResource(r.Context(), caller(r).WorkspaceID, res.Type, res.ID, s, h.Svc.now())
	if errors.Is(err, store.ErrNotFound) {
		return resourceNotFound(res.Type, res.ID)
	}
	if err != nil {
		return err
	}
	h.record(r, audit.Event{Class: "sharing", Activity: "share", Target: res.ID,
		Details: map[string]any{"resource_type": res.Type, "principal_type": s.PrincipalType, "principal_id": s.PrincipalID, "role": s.Role}})
	httpx.OK(w)
	return nil
}

func (h *Handlers) unshare(w http.ResponseWriter, r *http.Request) error {
	res, s, err := h.shareTarget(r, false)
	if err != nil {
		return err
	}
	if err := h.checkResourceAdmin(r, res); err != nil {
		return err
	}
	if s.PrincipalType == "user" && s.PrincipalID == res.CreatorUserID {
		return errs.Errorf(errs.Invalid, "creator_access", "You cannot remove permissions from the user who created the resource.")
	}
	if err := h.Svc.DB.UnshareResource(r.Context(), caller(r).WorkspaceID, res.Type, res.ID, s); err != nil {
		return err
	}
	h.record(r, audit.Event{Class: "sharing", Activity: "unshare", Target: res.ID,
		Details: map[string]any{"resource_type": res.Type, "principal_type": s.PrincipalType, "principal_id": s.PrincipalID}})
	httpx.OK(w)
	return nil
}
