package workspace

import "timbre/internal/store"

// The JSON bodies the workspace routes answer with; api/ documents them.

// workspaceEntry is one workspace of GET /api/workspaces.
type workspaceEntry struct {
	WorkspaceID string `json:"workspace_id"`
	Name        string `json:"name"`
	Tier        string `json:"tier"`
	Role        string `json:"role"`
	SeatType    string `json:"seat_type"`
	IsOwner     bool   `json:"is_owner"`
	IsLocked    bool   `json:"is_locked"`
	IsCurrent   bool   `json:"is_current"`
}

type workspacesResponse struct {
	Workspaces         []workspaceEntry `json:"workspaces"`
	CurrentWorkspaceID string           `json:"current_workspace_id"`
}

type switchResponse struct {
	Status      string `json:"status"`
	WorkspaceID string `json:"workspace_id"`
}

type canAccessSettingsResponse struct {
	CanAccessWorkspaceSettings bool `json:"can_access_workspace_settings"`
}

type accessResponse struct {
	Role     string   `json:"role"`
	Features []string `json:"features"`
	Duties   []string `json:"duties"`
}

type isAdminResponse struct {
	IsAdmin bool `json:"is_admin"`
}

type optOutResponse struct {
	Status         string `json:"status"`
	Message        string `json:"message"`
	TrainingOptOut bool   `json:"training_opt_out"`
}

type renameResponse struct {
	WorkspaceID string `json:"workspace_id"`
	Name        string `json:"name"`
}

type createdWorkspaceResponse struct {
	WorkspaceID string `json:"workspace_id"`
	Name        string `json:"name"`
	Tier        string `json:"tier"`
	Role        string `json:"role"`
	IsCurrent   bool   `json:"is_current"`
}

// memberResponse is one member of GET /v1/workspace/members.
type memberResponse struct {
	UserID    string  `json:"user_id"`
	Email     string  `json:"email"`
	FirstName *string `json:"first_name"` // null when the member gave none
	SeatType  string  `json:"seat_type"`
	IsOwner   bool    `json:"is_owner"`
	IsLocked  bool    `json:"is_locked"`
}

func memberJSON(m store.Member) memberResponse {
	return memberResponse{UserID: m.UserID, Email: m.Email, FirstName: orNull(m.FirstName), SeatType: SeatOfRole(m.Role),
		IsOwner: m.IsOwner, IsLocked: m.IsLocked}
}

// inviteEntry is one pending invitation of GET /api/workspace/invites.
type inviteEntry struct {
	Email           string   `json:"email"`
	SeatType        string   `json:"seat_type"`
	GroupIDs        []string `json:"group_ids"`
	InvitedByUserID string   `json:"invited_by_user_id"`
	CreatedAtUnix   int64    `json:"created_at_unix"`
	ExpiresAtUnix   int64    `json:"expires_at_unix"`
}

type invitesResponse struct {
	Invites []inviteEntry `json:"invites"`
}

type invitePeekResponse struct {
	WorkspaceName string `json:"workspace_name"`
	Email         string `json:"email"`
	SeatType      string `json:"seat_type"`
	ExpiresAtUnix int64  `json:"expires_at_unix"`
}

type inviteAcceptedResponse struct {
	Status          string `json:"status"`
	WorkspaceID     string `json:"workspace_id"`
	SeatType        string `json:"seat_type"`
	SessionSwitched bool   `json:"session_switched"`
}

// groupResponse is a group as the /v1/workspace/groups routes show it; the SCIM and usage-limit
// fields are the reference API's, which this server does not offer (always null or false).
type groupResponse struct {
	Name            string   `json:"name"`
	ID              string   `json:"id"`
	Members         []string `json:"members"`
	Permissions     []string `json:"permissions"`
	GroupUsageLimit *int64   `json:"group_usage_limit"`
	GroupPVCLimit   *int64   `json:"group_pvc_limit"`
	CharacterCount  *int64   `json:"character_count"`
	IsSCIMSynced    bool     `json:"is_scim_synced"`
	SCIMGroup       *string  `json:"scim_group"`
	SCIMFrozen      bool     `json:"scim_frozen"`
}

func groupJSON(g store.Group) groupResponse {
	perms := g.Permissions
	if perms == nil {
		perms = []string{}
	}
	return groupResponse{Name: g.Name, ID: g.ID, Members: g.MemberEmails, Permissions: perms}
}

// groupMatch is one result of GET /v1/workspace/groups/search.
type groupMatch struct {
	Name          string   `json:"name"`
	ID            string   `json:"id"`
	MembersEmails []string `json:"members_emails"`
}

// settingsResponse is the workspace's security settings as GET /api/workspace/settings shows them.
type settingsResponse struct {
	SessionInactivityTimeout *int64                  `json:"session_inactivity_timeout"`
	MFARequiredForUsers      bool                    `json:"mfa_required_for_users"`
	TrainingOptOut           trainingOptOutSetting   `json:"training_opt_out"`
	UserAutoProvisioning     autoProvisioningSetting `json:"user_auto_provisioning"`
}

type trainingOptOutSetting struct {
	TrainingOptOut bool   `json:"training_opt_out"`
	TimestampUnix  *int64 `json:"timestamp_unix"`
}

type autoProvisioningSetting struct {
	Enabled            bool    `json:"enabled"`
	EnabledAtUnix      *int64  `json:"enabled_at_unix"`
	EnabledByUserEmail *string `json:"enabled_by_user_email"`
}

func settingsJSON(st *store.WorkspaceSettings) settingsResponse {
	return settingsResponse{
		SessionInactivityTimeout: st.SessionInactivityTimeout,
		MFARequiredForUsers:      st.MFARequiredForUsers,
		TrainingOptOut:           trainingOptOutSetting{TrainingOptOut: st.TrainingOptOut, TimestampUnix: st.TrainingOptOutAtUnix},
		UserAutoProvisioning: autoProvisioningSetting{Enabled: st.UserAutoProvisioningEnabled,
			EnabledAtUnix: st.UserAutoProvisioningAtUnix, EnabledByUserEmail: orNull(st.UserAutoProvisioningByEmail)},
	}
}

// orNull is s, or JSON null when s is empty.
func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
