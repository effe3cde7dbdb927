package workspace

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"

	"timbre/internal/access"
	"timbre/internal/audit"
	"timbre/internal/errs"
	"timbre/internal/httpx"
	"timbre/internal/store"
)

// ShareableTypes are the resource types Timbre shares: the workspace's own voices, its
// pronunciation dictionaries, and its history items (a Timbre extension of the API's
// WorkspaceResourceType).
var ShareableTypes = []string{store.ResourceVoice, store.ResourceHistory, store.ResourcePronunciationDictionary}

// ShareRoles are the roles a grant can give, in the API's order.
var ShareRoles = []string{"admin", "editor", "commenter", "viewer"}

func validType(v *errs.Validator, where, typ string) {
	if typ == "" {
		v.Add(where, "resource_type", "missing", "Field required: the resource type (voice, pronunciation_dictionary or history).")
	} else if !slices.Contains(ShareableTypes, typ) {
		v.Add(where, "resource_type", "enum", "Timbre shares resources of type 'voice', 'pronunciation_dictionary' or 'history'.")
	}
}

func resourceNotFound(typ, id string) error {
	return errs.Errorf(errs.NotFound, "resource_not_found", "Resource '%s' of type %s was not found in this workspace.", id, typ)
}

// ---- service ---------------------------------------------------------------------------------

// resourceOf finds the resource of the workspace.
func (s *Service) resourceOf(ctx context.Context, workspaceID, typ, id string) (*store.Resource, error) {
	res, err := s.DB.ResourceOf(ctx, workspaceID, typ, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, resourceNotFound(typ, id)
	}
	return res, err
}

// roleOn is the caller's role on a resource: admin for workspace admins and the creator,
// otherwise the strongest grant that reaches them. Workspace voices are visible to every member.
func (s *Service) roleOn(ctx context.Context, c *access.Caller, res *store.Resource) (string, error) {
	if c.Role == access.RoleAdmin || (res.CreatorUserID != "" && res.CreatorUserID == c.UserID) {
		return "admin", nil
	}
	role, err := s.DB.SharedRole(ctx, c.WorkspaceID, res.Type, res.ID, c.UserID)
	if role == "" && res.Type == store.ResourceVoice {
		role = "viewer"
	}
	return role, err
}

// ErrNotResourceAdmin answers a share or unshare by someone without admin on the resource.
var ErrNotResourceAdmin = errs.Errorf(errs.Forbidden, "forbidden", "Only the resource's creator, its admins and workspace admins can change who it is shared with.")

// checkResourceAdmin lets through only callers with admin on the resource; one they cannot see
// at all is not found.
func (s *Service) checkResourceAdmin(ctx context.Context, c *access.Caller, res *store.Resource) error {
	role, err := s.roleOn(ctx, c, res)
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

// ResourceMetadata describes who a resource of the caller's workspace is shared with and with
// whom it could be; a resource the caller cannot see is not found.
func (s *Service) ResourceMetadata(ctx context.Context, c *access.Caller, typ, id string) (*ResourceMetadata, error) {
	res, err := s.resourceOf(ctx, c.WorkspaceID, typ, id)
	if err != nil {
		return nil, err
	}
	if role, err := s.roleOn(ctx, c, res); err != nil {
		return nil, err
	} else if role == "" {
		return nil, resourceNotFound(typ, res.ID)
	}
	ws := c.WorkspaceID
	shares, err := s.DB.ListShares(ctx, ws, typ, res.ID)
	if err != nil {
		return nil, err
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
	members, err := s.DB.ListMembers(ctx, ws)
	if err != nil {
		return nil, err
	}
	for _, m := range members {
		if !granted["user:"+m.UserID] {
			options = append(options, ShareOption{Name: m.Email, ID: m.UserID, Type: "user"})
		}
	}
	groups, err := s.DB.ListGroups(ctx, ws, "")
	if err != nil {
		return nil, err
	}
	for _, g := range groups {
		if !granted["group:"+g.ID] {
			options = append(options, ShareOption{Name: g.Name, ID: g.ID, Type: "group"})
		}
	}
	out := &ResourceMetadata{ResourceID: res.ID, ResourceType: typ, RoleToGroupIDs: roles, ShareOptions: options}
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
	return out, nil
}

// Principal names whom a grant is for: exactly one of a member's email, a group id ("default"
// for everyone) or a workspace API key id.
type Principal struct {
	UserEmail, GroupID, APIKeyID string
}

// shareTarget resolves the resource and the principal, both of the caller's workspace.
func (s *Service) shareTarget(ctx context.Context, c *access.Caller, typ, id string, p Principal, role string) (*store.Resource, store.Share, error) {
	sh := store.Share{Role: role}
	res, err := s.resourceOf(ctx, c.WorkspaceID, typ, id)
	if err != nil {
		return nil, sh, err
	}
	ws := c.WorkspaceID
	switch {
	case p.UserEmail != "":
		m, err := s.DB.MemberByEmail(ctx, ws, p.UserEmail)
		if errors.Is(err, store.ErrNotFound) {
			return nil, sh, memberNotFound(p.UserEmail)
		}
		if err != nil {
			return nil, sh, err
		}
		sh.PrincipalType, sh.PrincipalID = "user", m.UserID
	case p.GroupID != "":
		if p.GroupID == "default" {
			sh.PrincipalType, sh.PrincipalID = "default", "default"
			break
		}
		if _, err := s.DB.GroupByID(ctx, ws, p.GroupID); errors.Is(err, store.ErrNotFound) {
			return nil, sh, groupNotFound(p.GroupID)
		} else if err != nil {
			return nil, sh, err
		}
		sh.PrincipalType, sh.PrincipalID = "group", p.GroupID
	default:
		userID, err := s.DB.APIKeyUserOf(ctx, ws, p.APIKeyID)
		if errors.Is(err, store.ErrNotFound) {
			return nil, sh, errs.Errorf(errs.NotFound, "api_key_not_found", "API key '%s' was not found in this workspace.", p.APIKeyID)
		}
		if err != nil {
			return nil, sh, err
		}
		sh.PrincipalType, sh.PrincipalID = "user", userID
	}
	if err := s.checkResourceAdmin(ctx, c, res); err != nil {
		return nil, sh, err
	}
	return res, sh, nil
}

// Share grants (or changes) a role on a resource of the caller's workspace; only those with
// admin on it may, and the creator's own admin access cannot be changed.
func (s *Service) Share(ctx context.Context, c *access.Caller, typ, id string, p Principal, role string) (*store.Resource, store.Share, error) {
	res, sh, err := s.shareTarget(ctx, c, typ, id, p, role)
	if err != nil {
		return nil, sh, err
	}
	if sh.PrincipalType == "user" && sh.PrincipalID == res.CreatorUserID {
		return nil, sh, errs.Errorf(errs.Invalid, "creator_access", "The creator of a resource always keeps admin access to it.")
	}
	err = s.DB.ShareResource(ctx, c.WorkspaceID, res.Type, res.ID, sh, s.now())
	if errors.Is(err, store.ErrNotFound) {
		return nil, sh, resourceNotFound(res.Type, res.ID)
	}
	if err != nil {
		return nil, sh, err
	}
	return res, sh, nil
}

// Unshare removes a grant on a resource of the caller's workspace; only those with admin on it
// may, and never the creator's.
func (s *Service) Unshare(ctx context.Context, c *access.Caller, typ, id string, p Principal) (*store.Resource, store.Share, error) {
	res, sh, err := s.shareTarget(ctx, c, typ, id, p, "")
	if err != nil {
		return nil, sh, err
	}
	if sh.PrincipalType == "user" && sh.PrincipalID == res.CreatorUserID {
		return nil, sh, errs.Errorf(errs.Invalid, "creator_access", "You cannot remove permissions from the user who created the resource.")
	}
	if err := s.DB.UnshareResource(ctx, c.WorkspaceID, res.Type, res.ID, sh); err != nil {
		return nil, sh, err
	}
	return res, sh, nil
}

// ---- handlers --------------------------------------------------------------------------------

func (h *Handlers) resource(w http.ResponseWriter, r *http.Request) error {
	typ := r.URL.Query().Get("resource_type")
	var v errs.Validator
	validType(&v, "query", typ)
	if err := v.Err(); err != nil {
		return err
	}
	out, err := h.Svc.ResourceMetadata(r.Context(), caller(r), typ, r.PathValue("resource_id"))
	if err != nil {
		return err
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

// shareBody validates the body of share (needRole) and unshare.
func (h *Handlers) shareBody(r *http.Request, needRole bool) (typ string, p Principal, role string, err error) {
	var body shareBody
	if err := httpx.DecodeJSON(r, h.MaxBody, &body); err != nil {
		return "", p, "", err
	}
	var v errs.Validator
	if body.ResourceType != nil {
		typ = *body.ResourceType
	}
	validType(&v, "body", typ)
	if needRole {
		switch {
		case body.Role == nil:
			v.Add("body", "role", "missing", "Field required: admin, editor, commenter or viewer.")
		case !slices.Contains(ShareRoles, *body.Role):
			v.Add("body", "role", "enum", "Input should be 'admin', 'editor', 'commenter' or 'viewer'.")
		default:
			role = *body.Role
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
		return "", p, "", err
	}
	switch {
	case body.UserEmail != nil && strings.TrimSpace(*body.UserEmail) != "":
		p.UserEmail = normEmail(*body.UserEmail)
	case body.GroupID != nil && strings.TrimSpace(*body.GroupID) != "":
		p.GroupID = strings.TrimSpace(*body.GroupID)
	default:
		p.APIKeyID = strings.TrimSpace(*body.WorkspaceAPIKeyID)
	}
	return typ, p, role, nil
}

func (h *Handlers) share(w http.ResponseWriter, r *http.Request) error {
	typ, p, role, err := h.shareBody(r, true)
	if err != nil {
		return err
	}
	res, s, err := h.Svc.Share(r.Context(), caller(r), typ, r.PathValue("resource_id"), p, role)
	if err != nil {
		return err
	}
	h.record(r, audit.Event{Class: "sharing", Activity: "share", Target: res.ID,
		Details: audit.Details{"resource_type": res.Type, "principal_type": s.PrincipalType, "principal_id": s.PrincipalID, "role": s.Role}})
	httpx.OK(w)
	return nil
}

func (h *Handlers) unshare(w http.ResponseWriter, r *http.Request) error {
	typ, p, _, err := h.shareBody(r, false)
	if err != nil {
		return err
	}
	res, s, err := h.Svc.Unshare(r.Context(), caller(r), typ, r.PathValue("resource_id"), p)
	if err != nil {
		return err
	}
	h.record(r, audit.Event{Class: "sharing", Activity: "unshare", Target: res.ID,
		Details: audit.Details{"resource_type": res.Type, "principal_type": s.PrincipalType, "principal_id": s.PrincipalID}})
	httpx.OK(w)
	return nil
}
