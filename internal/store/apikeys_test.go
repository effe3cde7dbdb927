package store_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"timbre/internal/store"
	"timbre/internal/testdb"
)

func ptr[T any](v T) *T { return &v }

func TestAPIKeyPermissionsAndUpdates(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		a, aw := newUser(t, db, "keys-a@example.com")
		_, bw := newUser(t, db, "keys-b@example.com")

		k := store.APIKey{ID: store.NewID(), WorkspaceID: aw.ID, UserID: a.ID, Name: "reader", Preview: "sk_r…0001", CreatedAt: t0.Unix(),
			Permissions: []string{"voices_read", "models_read"}, CharacterLimit: ptr(int64(500)), ThirdPartyDisableAllowed: ptr(false)}
		must(t, "create", db.CreateAPIKey(ctx, k, "sk_reader_secret"))
		all := store.APIKey{ID: store.NewID(), WorkspaceID: aw.ID, UserID: a.ID, Name: "all", Preview: "sk_a…0002", CreatedAt: t0.Unix() + 1}
		must(t, "create all", db.CreateAPIKey(ctx, all, "sk_all_secret"))

		got, err := db.APIKeyBySecret(ctx, "sk_reader_secret")
		must(t, "by secret", err)
		if !slices.Equal(got.Permissions, []string{"voices_read", "models_read"}) || got.AllPermissions() || got.CharacterLimit == nil || *got.CharacterLimit != 500 ||
			got.CharacterCount != 0 || got.IsDisabled || got.ThirdPartyDisableAllowed == nil || *got.ThirdPartyDisableAllowed || got.ServiceAccount ||
			got.KeyHash != store.HashToken("sk_reader_secret") {
			t.Fatalf("key read back %+v", got)
		}
		gotAll, _ := db.APIKeyBySecret(ctx, "sk_all_secret")
		if !gotAll.AllPermissions() || gotAll.CharacterLimit != nil || gotAll.ThirdPartyDisableAllowed != nil {
			t.Fatalf("key without permissions given = %+v, want all and no limit", gotAll)
		}

		// Update each field; another workspace cannot touch it.
		wantErr(t, "update from other workspace", db.UpdateAPIKey(ctx, bw.ID, a.ID, k.ID, store.APIKeyUpdate{Name: ptr("stolen")}), store.ErrNotFound)
		_, err = db.APIKeyByID(ctx, bw.ID, k.ID)
		wantErr(t, "by id from other workspace", err, store.ErrNotFound)
		must(t, "update", db.UpdateAPIKey(ctx, aw.ID, a.ID, k.ID, store.APIKeyUpdate{Name: ptr("renamed"), Permissions: []string{"text_to_speech"},
			ClearCharacterLimit: true, Disabled: ptr(true), DisableReason: "self_disabled", ClearThirdParty: true}))
		got, _ = db.APIKeyByID(ctx, aw.ID, k.ID)
		if got.Name != "renamed" || !slices.Equal(got.Permissions, []string{"text_to_speech"}) || got.CharacterLimit != nil || !got.IsDisabled ||
			got.DisableReason != "self_disabled" || got.ThirdPartyDisableAllowed != nil {
			t.Fatalf("after update %+v", got)
		}
		must(t, "enable", db.UpdateAPIKey(ctx, aw.ID, a.ID, k.ID, store.APIKeyUpdate{Disabled: ptr(false), CharacterLimit: ptr(int64(9))}))
		got, _ = db.APIKeyByID(ctx, aw.ID, k.ID)
		if got.IsDisabled || got.DisableReason != "" || got.CharacterLimit == nil || *got.CharacterLimit != 9 || got.Name != "renamed" {
			t.Fatalf("after enable %+v", got)
		}
		must(t, "empty update", db.UpdateAPIKey(ctx, aw.ID, a.ID, k.ID, store.APIKeyUpdate{}))
		wantErr(t, "empty update of a missing key", db.UpdateAPIKey(ctx, aw.ID, a.ID, "missing", store.APIKeyUpdate{}), store.ErrNotFound)

		// The secret is stored only as its hash.
		for _, row := range rawRows(t, db, `SELECT * FROM api_keys`) {
			for col, v := range row {
				if strings.Contains(v, "sk_reader_secret") || strings.Contains(v, "sk_all_secret") {
					t.Fatalf("api_keys.%s holds a plaintext secret", col)
				}
			}
		}
	})
}

func TestServiceAccounts(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		a, aw := newUser(t, db, "sa-a@example.com")
		_, bw := newUser(t, db, "sa-b@example.com")
		sa := store.ServiceAccount{UserID: store.NewID(), WorkspaceID: aw.ID, Name: "CI bot", Role: "editor", CreatedAt: t0.Unix()}
		must(t, "create", db.CreateServiceAccount(ctx, sa, 2))
		sa2 := store.ServiceAccount{UserID: store.NewID(), WorkspaceID: aw.ID, Name: "Admin bot", Role: "admin", CreatedAt: t0.Unix() + 1}
		must(t, "create 2", db.CreateServiceAccount(ctx, sa2, 2))
		wantErr(t, "third over a limit of 2", db.CreateServiceAccount(ctx, store.ServiceAccount{UserID: store.NewID(), WorkspaceID: aw.ID, Name: "x", Role: "editor"}, 2), store.ErrLimitReached)

		list, err := db.ListServiceAccounts(ctx, aw.ID)
		must(t, "list", err)
		if len(list) != 2 || list[0] != sa || list[1] != sa2 {
			t.Fatalf("service accounts %+v", list)
		}
		if l, _ := db.ListServiceAccounts(ctx, bw.ID); len(l) != 0 {
			t.Fatalf("b sees %+v", l)
		}
		if role, err := db.Role(ctx, aw.ID, sa.UserID); err != nil || role != "editor" {
			t.Fatalf("membership %q %v", role, err)
		}
		u, err := db.UserByID(ctx, sa.UserID)
		must(t, "user row", err)
		if u.PasswordHash != "" || u.WorkspaceID != aw.ID || !strings.HasSuffix(u.Email, ".invalid") {
			t.Fatalf("service account user %+v", u)
		}
		_, err = db.ServiceAccountByID(ctx, aw.ID, a.ID)
		wantErr(t, "a person is not a service account", err, store.ErrNotFound)
		_, err = db.ServiceAccountByID(ctx, bw.ID, sa.UserID)
		wantErr(t, "other workspace", err, store.ErrNotFound)

		// Keys: listed with the service account, not among the users' keys; deletes scoped.
		k := store.APIKey{ID: store.NewID(), WorkspaceID: aw.ID, UserID: sa.UserID, Name: "ci", Preview: "sk_c…0003", CreatedAt: t0.Unix(),
			Permissions: []string{"text_to_speech"}, ServiceAccount: true}
		must(t, "create key", db.CreateAPIKey(ctx, k, "sk_sa_secret"))
		if l, _ := db.ListAPIKeys(ctx, aw.ID); len(l) != 0 {
			t.Fatalf("user keys list holds the service account's: %+v", l)
		}
		if l, _ := db.ListServiceAccountAPIKeys(ctx, aw.ID, sa.UserID); len(l) != 1 || l[0].ID != k.ID || !l[0].ServiceAccount {
			t.Fatalf("service account keys %+v", l)
		}
		if l, _ := db.ListServiceAccountAPIKeys(ctx, aw.ID, sa2.UserID); len(l) != 0 {
			t.Fatalf("other service account's keys %+v", l)
		}
		wantErr(t, "user-key delete of a service account key", db.DeleteAPIKey(ctx, aw.ID, k.ID), store.ErrNotFound)
		wantErr(t, "delete from other workspace", db.DeleteServiceAccountAPIKey(ctx, bw.ID, sa.UserID, k.ID), store.ErrNotFound)
		wantErr(t, "delete as another service account", db.DeleteServiceAccountAPIKey(ctx, aw.ID, sa2.UserID, k.ID), store.ErrNotFound)

		// Deleting the account takes its membership, keys and user row; other workspaces cannot.
		wantErr(t, "delete from other workspace", db.DeleteServiceAccount(ctx, bw.ID, sa.UserID), store.ErrNotFound)
		wantErr(t, "delete a person", db.DeleteServiceAccount(ctx, aw.ID, a.ID), store.ErrNotFound)
		must(t, "delete", db.DeleteServiceAccount(ctx, aw.ID, sa.UserID))
		_, err = db.APIKeyBySecret(ctx, "sk_sa_secret")
		wantErr(t, "key after delete", err, store.ErrNotFound)
		for _, q := range []string{`SELECT COUNT(*) AS n FROM users WHERE id = ?`, `SELECT COUNT(*) AS n FROM workspace_members WHERE user_id = ?`, `SELECT COUNT(*) AS n FROM api_keys WHERE user_id = ?`} {
			if n := rawCount(t, db, q, sa.UserID); n != 0 {
				t.Fatalf("%s: %d rows left", q, n)
			}
		}
		if _, err := db.UserByID(ctx, a.ID); err != nil {
			t.Fatalf("the person was touched: %v", err)
		}
	})
}

func TestAPIKeyQuotaConcurrent(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		u, w := newUser(t, db, "keyquota@example.com")
		const workers, per, fit = 20, 30, 6
		k := store.APIKey{ID: store.NewID(), WorkspaceID: w.ID, UserID: u.ID, Name: "capped", Preview: "sk_q…0004", CreatedAt: t0.Unix(),
			Permissions: []string{"text_to_speech"}, CharacterLimit: ptr(int64(fit*per + per/2))}
		must(t, "create", db.CreateAPIKey(ctx, k, "sk_quota_secret"))
		var wg sync.WaitGroup
		var mu sync.Mutex
		ok, refused := 0, 0
		var other []error
		start := make(chan struct{})
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				err := db.InTx(ctx, func(tx *store.Tx) error {
					if _, _, err := tx.Charge(ctx, w.ID, per, -1, t0); err != nil {
						return err
					}
					return tx.ChargeAPIKey(ctx, w.ID, k.ID, per)
				})
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					ok++
				case errors.Is(err, store.ErrKeyQuotaExceeded):
					refused++
				default:
					other = append(other, err)
				}
			}()
		}
		close(start)
		wg.Wait()
		if len(other) > 0 {
			t.Fatalf("unexpected errors: %v", other)
		}
		t.Logf("key quota %d, %d charges of %d: %d accepted, %d refused", fit*per+per/2, workers, per, ok, refused)
		if ok != fit || refused != workers-fit {
			t.Fatalf("accepted %d, refused %d; want %d and %d", ok, refused, fit, workers-fit)
		}
		got, _ := db.APIKeyByID(ctx, w.ID, k.ID)
		ws, _ := db.Workspace(ctx, w.ID, t0)
		if got.CharacterCount != fit*per || ws.CharacterCount != fit*per {
			t.Fatalf("key count %d, workspace count %d; want both %d (refused charges roll back the workspace's too)", got.CharacterCount, ws.CharacterCount, fit*per)
		}
		must(t, "usage", db.InTx(ctx, func(tx *store.Tx) error {
			limit, used, err := tx.APIKeyUsage(ctx, w.ID, k.ID)
			if err == nil && (limit == nil || *limit != fit*per+per/2 || used != fit*per) {
				t.Errorf("usage %v %d", limit, used)
			}
			return err
		}))
		// A refund gives characters back; a deleted key is not charged.
		must(t, "refund", db.InTx(ctx, func(tx *store.Tx) error { return tx.RefundAPIKey(ctx, w.ID, k.ID, per) }))
		if got, _ := db.APIKeyByID(ctx, w.ID, k.ID); got.CharacterCount != (fit-1)*per {
			t.Fatalf("after refund %d", got.CharacterCount)
		}
		must(t, "charge a missing key", db.InTx(ctx, func(tx *store.Tx) error { return tx.ChargeAPIKey(ctx, w.ID, "missing", per) }))

		// The key's count belongs to the workspace period: a new period starts it at zero.
		next := t0.AddDate(0, 1, 1)
		if got, _ := db.Workspace(ctx, w.ID, next); got.CharacterCount != 0 {
			t.Fatalf("workspace count after rollover %d", got.CharacterCount)
		}
		if got, _ := db.APIKeyByID(ctx, w.ID, k.ID); got.CharacterCount != 0 {
			t.Fatalf("key count after rollover %d", got.CharacterCount)
		}
		must(t, "charge in the new period", db.InTx(ctx, func(tx *store.Tx) error {
			if _, _, err := tx.Charge(ctx, w.ID, per, -1, next); err != nil {
				return err
			}
			return tx.ChargeAPIKey(ctx, w.ID, k.ID, per)
		}))
		if got, _ := db.APIKeyByID(ctx, w.ID, k.ID); got.CharacterCount != per {
			t.Fatalf("key count in the new period %d, want %d", got.CharacterCount, per)
		}
	})
}
