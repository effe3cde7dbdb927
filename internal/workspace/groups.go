package workspace

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"timbre/internal/access"
	"timbre/internal/audit"
	"timbre/internal/errs"
	"timbre/internal/httpx"
	"timbre/internal/store"
)

// GroupPermissions are the API's WorkspaceGroupPermission values.
var GroupPermissions = []string{"text_to_speech", "speech_to_speech", "speech_to_text", "voice_lab", "sound_effects", "projects",
	"voiceover_studio", "dubbing", "audio_native", "conversational_ai", "conversational_ai_read", "voice_isolator", "ai_speech_classifier",
	"synthid_detector", "add_voice_from_voice_library", "create_instant_voice_clone", "create_professional_voice_clone", "create_user_api_key",
	"publish_studio_project", "music", "image_video_generation", "flows", "templates", "share_voice_externally", "publish_voice_to_voice_library",
	"view_fiat_balance", "workspace_analytics_full_read", "service_accounts_manage", "webhooks_manage", "group_members_manage",
	"workspace_members_invite", "workspace_members_remove", "terms_of_service_accept", "audit_log_read", "conversation_privacy_manage",
	"copy_resources_cross_workspace", "voice_design"}

// ---- service ---------------------------------------------------------------------------------

func groupNotFound(id string) error {
	return errs.Errorf(errs.NotFound, "group_not_found", "Group '%s' was not found in this workspace.", id)
}

func groupNameTaken(name string) error {
	return errs.Errorf(errs.Conflict, "group_name_taken", "This workspace already has a group named '%s'.", name)
}

// CreateGroup creates a group of the workspace; names are unique in a workspace.
// perms nil leaves the group without permissions.
func (s *Service) CreateGroup(ctx context.Context, workspaceID, name string, perms *[]string) (*store.Group, error) {
	g := store.Group{ID: store.NewID(), WorkspaceID: workspaceID, Name: name, Permissions: []string{}, MemberEmails: []string{}, CreatedAt: s.now().Unix()}
	if perms != nil {
		g.Permissions = *perms
	}
	err := s.DB.CreateGroup(ctx, &g)
	if store.IsUniqueViolation(err) {
		return nil, groupNameTaken(g.Name)
	}
	if err != nil {
		return nil, err
	}
	return &g, nil
}

// UpdateGroup renames a group (name not nil) and replaces its permissions (perms not nil).
func (s *Service) UpdateGroup(ctx context.Context, workspaceID, id string, name *string, perms []string) error {
	err := s.DB.UpdateGroup(ctx, workspaceID, id, name, perms)
	if store.IsUniqueViolation(err) {
		return groupNameTaken(*name)
	}
	if errors.Is(err, store.ErrNotFound) {
		return groupNotFound(id)
	}
	return err
}

// Group reads a group of the workspace with its members' emails.
func (s *Service) Group(ctx context.Context, workspaceID, id string) (*store.Group, error) {
	gs, err := s.DB.ListGroups(ctx, workspaceID, "")
	if err != nil {
		return nil, err
	}
	for _, g := range gs {
		if g.ID == id {
			return &g, nil
		}
	}
	return nil, groupNotFound(id)
}

// DeleteGroup deletes a group of the workspace.
func (s *Service) DeleteGroup(ctx context.Context, workspaceID, id string) error {
	err := s.DB.DeleteGroup(ctx, workspaceID, id)
	if errors.Is(err, store.ErrNotFound) {
		return groupNotFound(id)
	}
	return err
}

// groupMember resolves a group and a member (by email), both of the caller's workspace, and
// keeps a delegate within their own access (checkGroupChange).
func (s *Service) groupMember(ctx context.Context, c *access.Caller, groupID, email string, removing bool) (*store.Group, *store.Member, error) {
	g, err := s.DB.GroupByID(ctx, c.WorkspaceID, groupID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil, groupNotFound(groupID)
	}
	if err != nil {
		return nil, nil, err
	}
	m, err := s.DB.MemberByEmail(ctx, c.WorkspaceID, email)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil, memberNotFound(email)
	}
	if err != nil {
		return nil, nil, err
	}
	if err := checkGroupChange(c, g, m, removing); err != nil {
		return nil, nil, err
	}
	return g, m, nil
}

// AddGroupMember puts the member with the email into a group of the caller's workspace.
func (s *Service) AddGroupMember(ctx context.Context, c *access.Caller, groupID, email string) (*store.Group, *store.Member, error) {
	g, m, err := s.groupMember(ctx, c, groupID, email, false)
	if err != nil {
		return nil, nil, err
	}
	err = s.DB.AddGroupMember(ctx, c.WorkspaceID, g.ID, m.UserID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil, groupNotFound(g.ID)
	}
	if err != nil {
		return nil, nil, err
	}
	return g, m, nil
}

// RemoveGroupMember takes the member with the email out of a group of the caller's workspace.
func (s *Service) RemoveGroupMember(ctx context.Context, c *access.Caller, groupID, email string) (*store.Group, *store.Member, error) {
	g, m, err := s.groupMember(ctx, c, groupID, email, true)
	if err != nil {
		return nil, nil, err
	}
	err = s.DB.RemoveGroupMember(ctx, c.WorkspaceID, g.ID, m.UserID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil, errs.Errorf(errs.NotFound, "member_not_found", "%s is not a member of the group '%s'.", m.Email, g.Name)
	}
	if err != nil {
		return nil, nil, err
	}
	return g, m, nil
}

// ---- handlers --------------------------------------------------------------------------------

func (h *Handlers) groups(w http.ResponseWriter, r *http.Request) error {
	gs, err := h.Svc.DB.ListGroups(r.Context(), caller(r).WorkspaceID, "")
	if err != nil {
		return err
	}
	out := make(map[string]groupResponse, len(gs))
	for _, g := range gs {
		out[g.ID] = groupJSON(g)
	}
	httpx.WriteJSON(w, http.StatusOK, out)
	return nil
}

func (h *Handlers) searchGroups(w http.ResponseWriter, r *http.Request) error {
	name := strings.TrimSpace(r.URL.Query().Get("name"))
	if name == "" {
		return errs.Field("query", "name", "missing", "Field required: the name of the group to search for.")
	}
	gs, err := h.Svc.DB.ListGroups(r.Context(), caller(r).WorkspaceID, name)
	if err != nil {
		return err
	}
	out := make([]groupMatch, 0, len(gs))
	for _, g := range gs {
		out = append(out, groupMatch{Name: g.Name, ID: g.ID, MembersEmails: g.MemberEmails})
	}
	httpx.WriteJSON(w, http.StatusOK, out)
	return nil
}

type groupBody struct {
	Name        *string   `json:"name"`
	Permissions *[]string `json:"permissions"`
}

func (b *groupBody) validate(v *errs.Validator, create bool) {
	if b.Name != nil {
		n := strings.TrimSpace(*b.Name)
		b.Name = &n
	}
	switch {
	case b.Name == nil && create, b.Name != nil && *b.Name == "":
		v.Add("body", "name", "missing", "Please give the group a name.")
	case b.Name != nil && utf8.RuneCountInString(*b.Name) > MaxGroupName:
		v.Add("body", "name", "string_too_long", "The name must be at most 100 characters.")
	}
	if b.Permissions != nil {
		for _, p := range *b.Permissions {
			if !slices.Contains(GroupPermissions, p) {
				v.Add("body", "permissions", "enum", "'"+p+"' is not a group permission.")
			}
		}
		*b.Permissions = slices.Compact(slices.Sorted(slices.Values(*b.Permissions)))
	}
}

func (h *Handlers) createGroup(w http.ResponseWriter, r *http.Request) error {
	var body groupBody
	if err := httpx.DecodeJSON(r, h.MaxBody, &body); err != nil {
		return err
	}
	var v errs.Validator
	body.validate(&v, true)
	if err := v.Err(); err != nil {
		return err
	}
	g, err := h.Svc.CreateGroup(r.Context(), caller(r).WorkspaceID, *body.Name, body.Permissions)
	if err != nil {
		return err
	}
	h.record(r, audit.Event{Class: "group", Activity: "create", Target: g.ID, Details: audit.Details{"name": g.Name, "permissions": g.Permissions}})
	httpx.WriteJSON(w, http.StatusCreated, groupJSON(*g))
	return nil
}

func (h *Handlers) updateGroup(w http.ResponseWriter, r *http.Request) error {
	var body groupBody
	if err := httpx.DecodeJSON(r, h.MaxBody, &body); err != nil {
		return err
	}
	var v errs.Validator
	body.validate(&v, false)
	if err := v.Err(); err != nil {
		return err
	}
	c := caller(r)
	id := r.PathValue("group_id")
	var perms []string
	if body.Permissions != nil {
		perms = *body.Permissions
		if perms == nil {
			perms = []string{}
		}
	}
	if err := h.Svc.UpdateGroup(r.Context(), c.WorkspaceID, id, body.Name, perms); err != nil {
		return err
	}
	details := audit.Details{}
	if body.Name != nil {
		details["name"] = *body.Name
	}
	if body.Permissions != nil {
		details["permissions"] = perms
	}
	h.record(r, audit.Event{Class: "group", Activity: "update", Target: id, Details: details})
	g, err := h.Svc.Group(r.Context(), c.WorkspaceID, id)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, groupJSON(*g))
	return nil
}

func (h *Handlers) deleteGroup(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("group_id")
	if err := h.Svc.DeleteGroup(r.Context(), caller(r).WorkspaceID, id); err != nil {
		return err
	}
	h.record(r, audit.Event{Class: "group", Activity: "delete", Target: id})
	httpx.OK(w)
	return nil
}

// groupMemberEmail reads the {email} body of the group membership routes.
func (h *Handlers) groupMemberEmail(r *http.Request) (string, error) {
	var body struct {
		Email *string `json:"email"`
	}
	if err := httpx.DecodeJSON(r, h.MaxBody, &body); err != nil {
		return "", err
	}
	if body.Email == nil || strings.TrimSpace(*body.Email) == "" {
		return "", errs.Field("body", "email", "missing", "Field required: the email of the workspace member.")
	}
	return normEmail(*body.Email), nil
}

func (h *Handlers) addGroupMember(w http.ResponseWriter, r *http.Request) error {
	email, err := h.groupMemberEmail(r)
	if err != nil {
		return err
	}
	g, m, err := h.Svc.AddGroupMember(r.Context(), caller(r), r.PathValue("group_id"), email)
	if err != nil {
		return err
	}
	h.record(r, audit.Event{Class: "group", Activity: "add_member", Target: g.ID, Details: audit.Details{"user_id": m.UserID, "email": m.Email}})
	httpx.OK(w)
	return nil
}

func (h *Handlers) removeGroupMember(w http.ResponseWriter, r *http.Request) error {
	email, err := h.groupMemberEmail(r)
	if err != nil {
		return err
	}
	g, m, err := h.Svc.RemoveGroupMember(r.Context(), caller(r), r.PathValue("group_id"), email)
	if err != nil {
		return err
	}
	h.record(r, audit.Event{Class: "group", Activity: "remove_member", Target: g.ID, Details: audit.Details{"user_id": m.UserID, "email": m.Email}})
	httpx.OK(w)
	return nil
}
