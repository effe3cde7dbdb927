package app_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"timbre/internal/access"
	"timbre/internal/store"
)

// TestDelegatedInvitesStayWithinAccess: a delegate whose groups limit their features cannot
// invite an unlimited editor (only into a group that limits too), and no delegate can replace
// the role and groups of a pending invitation an admin made.
func TestDelegatedInvitesStayWithinAccess(t *testing.T) {
	for _, d := range []store.Dialect{store.SQLite, store.Postgres} {
		t.Run(string(d), func(t *testing.T) {
			e := newEnv(t, d)
			if err := e.app.DB.SetTier(context.Background(), e.user.WorkspaceID, "enterprise"); err != nil {
				t.Fatal(err)
			}
			limited := e.addMember("limited-inviter@example.com", access.RoleEditor)
			e.group("Inviting speakers", []string{"text_to_speech", "workspace_members_invite"}, limited)
			speakers := e.group("Speakers", []string{"text_to_speech"})
			plain := e.group("Sharing circle", []string{})

			wantRefused(t, e.do("POST", "/v1/workspace/invites/add", limited.key, map[string]any{"email": "free-editor@example.com"}),
				http.StatusForbidden, "beyond_delegated_access")
			wantRefused(t, e.do("POST", "/v1/workspace/invites/add", limited.key, map[string]any{"email": "free-editor@example.com", "group_ids": []string{plain}}),
				http.StatusForbidden, "beyond_delegated_access")
			mustOK(t, e.do("POST", "/v1/workspace/invites/add", limited.key, map[string]any{"email": "speaker-invitee@example.com", "group_ids": []string{speakers}}))

			// The admin invites an admin; the delegate's invite to the same address is refused
			// and the admin's invitation keeps its role.
			mustOK(t, e.do("POST", "/v1/workspace/invites/add", e.key, map[string]any{"email": "future-admin@example.com", "seat_type": "workspace_admin"}))
			wantRefused(t, e.do("POST", "/v1/workspace/invites/add", limited.key, map[string]any{"email": "future-admin@example.com", "group_ids": []string{speakers}}),
				http.StatusConflict, "invite_pending")
			invites, err := e.app.DB.ListInvites(context.Background(), e.user.WorkspaceID, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, in := range invites {
				if in.Email == "future-admin@example.com" {
					found = true
					if in.Role != access.RoleAdmin || len(in.GroupIDs) != 0 || in.InvitedBy != e.user.ID {
						t.Fatalf("the admin's invitation after the delegate's attempt: %+v", in)
					}
				}
			}
			if !found {
				t.Fatal("the admin's invitation is gone")
			}
			// The admin may still re-send (replace) their own invitation.
			mustOK(t, e.do("POST", "/v1/workspace/invites/add", e.key, map[string]any{"email": "future-admin@example.com", "seat_type": "workspace_admin"}))
		})
	}
}
