package store_test

import (
	"context"
	"errors"
	"testing"

	"timbre/internal/store"
	"timbre/internal/testdb"
)

// TestPronunciationDictionaryStore: versions chain (a stale change is refused), old versions
// stay readable, dictionaries are found only in their workspace and by those who may see them,
// and the list pages by name or time.
func TestPronunciationDictionaryStore(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		u, w := newUser(t, db, "dict@example.com")
		_, other := newUser(t, db, "dict-other@example.com")
		admin := store.DictionaryViewer{UserID: u.ID, Admin: true}
		for i, name := range []string{"b", "a", "c"} {
			d := &store.PronunciationDictionary{ID: "d" + name, WorkspaceID: w.ID, CreatedBy: u.ID, Name: name, CreatedAt: int64(100 + i)}
			v := &store.PronunciationVersion{ID: "v1" + name, DictionaryID: d.ID, WorkspaceID: w.ID, Rules: "[]", CreatedAt: d.CreatedAt}
			must(t, "InsertPronunciationDictionary", db.InTx(ctx, func(tx *store.Tx) error { return tx.InsertPronunciationDictionary(ctx, d, v) }))
		}
		v2 := &store.PronunciationVersion{ID: "v2a", DictionaryID: "da", WorkspaceID: w.ID, Rules: `[{"x":1}]`, RulesNum: 1, CreatedAt: 200}
		must(t, "AddPronunciationVersion", db.InTx(ctx, func(tx *store.Tx) error { return tx.AddPronunciationVersion(ctx, v2, "v1a") }))
		stale := &store.PronunciationVersion{ID: "v3a", DictionaryID: "da", WorkspaceID: w.ID, Rules: `[]`, CreatedAt: 201}
		if err := db.InTx(ctx, func(tx *store.Tx) error { return tx.AddPronunciationVersion(ctx, stale, "v1a") }); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("a change on a stale version: %v", err)
		}
		d, err := db.PronunciationDictionary(ctx, w.ID, "da", admin)
		if err != nil || d.LatestVersionID != "v2a" || d.LatestRulesNum != 1 {
			t.Fatalf("dictionary %+v, %v", d, err)
		}
		if _, err := db.PronunciationVersion(ctx, w.ID, "da", "v1a"); err != nil {
			t.Errorf("the old version: %v", err)
		}
		if _, err := db.PronunciationVersion(ctx, w.ID, "da", "v3a"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("the refused version was kept: %v", err)
		}
		if _, err := db.PronunciationDictionary(ctx, other.ID, "da", admin); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("another workspace found it: %v", err)
		}
		if _, err := db.PronunciationVersion(ctx, other.ID, "da", "v1a"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("another workspace found a version: %v", err)
		}
		if _, err := db.PronunciationDictionary(ctx, w.ID, "da", store.DictionaryViewer{UserID: "someone-else"}); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("a member it is not shared with found it: %v", err)
		}
		archived := int64(300)
		must(t, "UpdatePronunciationDictionary", db.UpdatePronunciationDictionary(ctx, w.ID, "db", nil, &archived, false))
		page, err := db.ListPronunciationDictionaries(ctx, w.ID, admin, store.DictionaryPage{ByName: true, Ascending: true, Limit: 10})
		if err != nil || len(page) != 2 || page[0].Name != "a" || page[1].Name != "c" {
			t.Fatalf("by name without archived: %+v, %v", page, err)
		}
		key := "101"
		page, err = db.ListPronunciationDictionaries(ctx, w.ID, admin, store.DictionaryPage{IncludeArchived: true, AfterKey: &key, AfterID: "da", Limit: 10})
		if err != nil || len(page) != 1 || page[0].ID != "db" {
			t.Fatalf("newest first after a: %+v, %v", page, err)
		}
	})
}
