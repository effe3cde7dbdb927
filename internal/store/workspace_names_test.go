package store_test

import (
	"context"
	"sync"
	"testing"

	"timbre/internal/store"
	"timbre/internal/testdb"
)

func TestWorkspaceNamesStore(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		u, ws := newUser(t, db, "names@example.com")
		v, other := newUser(t, db, "other-names@example.com")
		if ws.Name != "names@example.com's workspace" {
			t.Fatalf("sign-up's workspace name = %q", ws.Name)
		}

		// The survey's first name replaces the email in the default name, for the owner only.
		must(t, "survey", db.CompleteOnboardingSurvey(ctx, u.ID, "Ada", `{}`))
		if w, _ := db.Workspace(ctx, ws.ID, t0); w.Name != "Ada's workspace" {
			t.Errorf("after survey: %q", w.Name)
		}
		if w, _ := db.Workspace(ctx, other.ID, t0); w.Name != "other-names@example.com's workspace" {
			t.Errorf("neighbour's workspace renamed: %q", w.Name)
		}
		// A name the user chose is kept by a later survey.
		must(t, "rename", db.RenameWorkspace(ctx, ws.ID, "Studio Ada"))
		must(t, "survey again", db.CompleteOnboardingSurvey(ctx, u.ID, "Ada B", `{}`))
		if w, _ := db.Workspace(ctx, ws.ID, t0); w.Name != "Studio Ada" {
			t.Errorf("chosen name replaced: %q", w.Name)
		}
		wantErr(t, "rename missing", db.RenameWorkspace(ctx, "nope", "x"), store.ErrNotFound)

		must(t, "first name", db.SetFirstName(ctx, u.ID, "Adele"))
		if got, _ := db.UserByID(ctx, u.ID); got.FirstName != "Adele" {
			t.Errorf("first name = %q", got.FirstName)
		}
		wantErr(t, "first name of nobody", db.SetFirstName(ctx, "nobody", "x"), store.ErrNotFound)

		// New workspaces: owned by the user, who is their admin; at most maxOwned (the sign-up
		// workspace counts), even when created at once.
		const maxOwned = 4
		var wg sync.WaitGroup
		errs := make([]error, 6)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = db.CreateWorkspace(ctx, u.ID, "Team", "free", maxOwned, t0)
			}()
		}
		wg.Wait()
		made, refused := 0, 0
		for _, err := range errs {
			switch err {
			case nil:
				made++
			case store.ErrLimitReached:
				refused++
			default:
				t.Fatalf("CreateWorkspace: %v", err)
			}
		}
		if made != maxOwned-1 || refused != len(errs)-made {
			t.Fatalf("made %d, refused %d: want %d made", made, refused, maxOwned-1)
		}
		ms, err := db.UserWorkspaces(ctx, u.ID)
		must(t, "UserWorkspaces", err)
		if len(ms) != maxOwned {
			t.Fatalf("%d workspaces", len(ms))
		}
		for _, m := range ms {
			if m.Role != "admin" || !m.IsOwner || m.Tier != "free" {
				t.Errorf("membership %+v", m)
			}
		}
		if ms, _ := db.UserWorkspaces(ctx, v.ID); len(ms) != 1 {
			t.Errorf("neighbour has %d workspaces", len(ms))
		}
		if _, err := db.CreateWorkspace(ctx, "nobody", "x", "free", maxOwned, t0); err != store.ErrNotFound {
			t.Errorf("workspace for nobody: %v", err)
		}
	})
}
