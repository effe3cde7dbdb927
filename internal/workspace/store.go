package workspace

import (
	"context"
	"time"

	"timbre/internal/audit"
	"timbre/internal/store"
)

// Store is what the workspace area needs of the database (*store.DB has it all). Keeping it
// narrow lets store.DB be cut into smaller stores later without touching this package.
// InTx still hands out the whole *store.Tx: sign-up accepts an invite inside its transaction.
type Store interface {
	audit.Writer

	// Workspaces and their settings.
	Workspace(ctx context.Context, id string, now time.Time) (*store.Workspace, error)
	UserWorkspaces(ctx context.Context, userID string) ([]store.Membership, error)
	SetSessionWorkspace(ctx context.Context, token, userID, workspaceID string) error
	CreateWorkspace(ctx context.Context, ownerID, name, tier string, maxOwned int, now time.Time) (*store.Workspace, error)
	RenameWorkspace(ctx context.Context, workspaceID, name string) error
	WorkspaceSettings(ctx context.Context, workspaceID string) (*store.WorkspaceSettings, error)
	SetTrainingOptOut(ctx context.Context, workspaceID string, optOut bool, now time.Time) error
	SetSessionInactivityTimeout(ctx context.Context, workspaceID string, seconds *int64) error
	SetMFARequired(ctx context.Context, workspaceID string, required bool) error

	// Users, members and seats.
	UserByID(ctx context.Context, id string) (*store.User, error)
	UserMFA(ctx context.Context, userID string) (*store.MFA, error)
	ListMembers(ctx context.Context, workspaceID string) ([]store.Member, error)
	MemberByEmail(ctx context.Context, workspaceID, email string) (*store.Member, error)
	MemberByID(ctx context.Context, workspaceID, userID string) (*store.Member, error)
	UpdateMember(ctx context.Context, workspaceID, userID string, role *string, locked *bool) error
	RemoveMember(ctx context.Context, workspaceID, userID string) error
	SeatsUsed(ctx context.Context, workspaceID string, now time.Time) (members, pending int, err error)

	// Invitations (InTx for sign-up, which accepts inside its own transaction).
	CreateInvites(ctx context.Context, workspaceID string, invites []store.NewInvite, rule store.SeatRule, now time.Time) error
	ListInvites(ctx context.Context, workspaceID string, now time.Time) ([]store.Invite, error)
	InviteByCode(ctx context.Context, code string, now time.Time) (*store.Invite, error)
	DeleteInvite(ctx context.Context, workspaceID, email string) error
	AcceptInvite(ctx context.Context, code, userID, sessionToken string, rule store.SeatRule, now time.Time, check func(*store.Invite) error) (*store.Invite, error)
	InTx(ctx context.Context, fn func(tx *store.Tx) error) error

	// Groups.
	ListGroups(ctx context.Context, workspaceID, nameLike string) ([]store.Group, error)
	GroupByID(ctx context.Context, workspaceID, id string) (*store.Group, error)
	CountGroups(ctx context.Context, workspaceID string, ids []string) (int, error)
	CreateGroup(ctx context.Context, g *store.Group) error
	UpdateGroup(ctx context.Context, workspaceID, id string, name *string, perms []string) error
	DeleteGroup(ctx context.Context, workspaceID, id string) error
	AddGroupMember(ctx context.Context, workspaceID, groupID, userID string) error
	RemoveGroupMember(ctx context.Context, workspaceID, groupID, userID string) error

	// Resources and their shares.
	ResourceOf(ctx context.Context, workspaceID, typ, id string) (*store.Resource, error)
	SharedRole(ctx context.Context, workspaceID, typ, id, userID string) (string, error)
	ListShares(ctx context.Context, workspaceID, typ, id string) ([]store.Share, error)
	ShareResource(ctx context.Context, workspaceID, typ, id string, s store.Share, now time.Time) error
	UnshareResource(ctx context.Context, workspaceID, typ, id string, s store.Share) error
	APIKeyUserOf(ctx context.Context, workspaceID, keyID string) (string, error)
}

var _ Store = (*store.DB)(nil)
