package store_test

import (
	"context"
	"errors"
	"testing"

	"timbre/internal/store"
	"timbre/internal/testdb"
)

// TestVoiceLibraryStore: published voices are listed across workspaces with their filters, a
// copy's row counts on the original, withdrawn voices leave the list, PublishedVoice finds only
// enabled ones; collections are scoped by workspace and filter ListVoices; deleting a voice
// takes it out of its collections.
func TestVoiceLibraryStore(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		_, a := newUser(t, db, "lib-a@example.com")
		_, b := newUser(t, db, "lib-b@example.com")
		must(t, "voices", db.InTx(ctx, func(tx *store.Tx) error {
			for _, v := range []store.Voice{
				{ID: "la", WorkspaceID: a.ID, Name: "Narrator", Category: "cloned", Labels: `{"accent":"british","gender":"male","use_case":"audiobook"}`, Prosody: "{}", Language: "en"},
				{ID: "lb", WorkspaceID: a.ID, Name: "Host", Category: "generated", Labels: `{"accent":"american","gender":"female"}`, Prosody: "{}", Language: "en"},
			} {
				if err := tx.CreateVoice(ctx, v); err != nil {
					return err
				}
			}
			return nil
		}))
		must(t, "share la", db.UpsertVoiceShare(ctx, store.VoiceShare{VoiceID: "la", WorkspaceID: a.ID, PublicOwnerID: "pa", Status: "enabled", Description: "Deep stories", FreeUsersAllowed: true, NoticePeriod: 30, DateUnix: 100}))
		must(t, "share lb", db.UpsertVoiceShare(ctx, store.VoiceShare{VoiceID: "lb", WorkspaceID: a.ID, PublicOwnerID: "pa", Status: "enabled", LiveModeration: true, DateUnix: 200}))
		// Another workspace cannot take over A's sharing row.
		must(t, "hijack", db.UpsertVoiceShare(ctx, store.VoiceShare{VoiceID: "la", WorkspaceID: b.ID, PublicOwnerID: "pb", Status: "disabled", DateUnix: 1}))
		if s, err := db.VoiceShare(ctx, a.ID, "la"); err != nil || s.Status != "enabled" || s.NoticePeriod != 30 || s.Description != "Deep stories" {
			t.Fatalf("VoiceShare: %+v %v", s, err)
		}
		if _, err := db.VoiceShare(ctx, b.ID, "la"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another workspace reads A's sharing: %v", err)
		}
		ids := func(f store.LibraryFilter) []string {
			t.Helper()
			got, _, err := db.ListLibrary(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, v := range got {
				out = append(out, v.ID)
			}
			return out
		}
		for name, c := range map[string]struct {
			f    store.LibraryFilter
			want string
		}{
			"all, newest first": {store.LibraryFilter{}, "[lb la]"},
			"gender":            {store.LibraryFilter{Gender: "Male"}, "[la]"},
			"accent":            {store.LibraryFilter{Accent: "american"}, "[lb]"},
			"use cases":         {store.LibraryFilter{UseCases: []string{"podcast", "audiobook"}}, "[la]"},
			"search":            {store.LibraryFilter{Search: "stories"}, "[la]"},
			"notice":            {store.LibraryFilter{MinNoticeDays: 7}, "[la]"},
			"no live":           {store.LibraryFilter{ExcludeLiveModerated: true}, "[la]"},
			"category":          {store.LibraryFilter{Category: "generated"}, "[lb]"},
			"owner":             {store.LibraryFilter{OwnerID: "nobody"}, "[]"},
			"ids":               {store.LibraryFilter{VoiceIDs: []string{"la"}}, "[la]"},
			"page":              {store.LibraryFilter{Limit: 1, Offset: 1}, "[la]"},
		} {
			if got := ids(c.f); fmtIDs(got) != c.want {
				t.Errorf("%s: %v, want %s", name, got, c.want)
			}
		}
		// B copies la: its row, and the original's count, in one transaction.
		must(t, "copy", db.InTx(ctx, func(tx *store.Tx) error {
			if err := tx.CreateVoice(ctx, store.Voice{ID: "lc", WorkspaceID: b.ID, Name: "Mine", Category: "cloned", Labels: "{}", Prosody: "{}"}); err != nil {
				return err
			}
			return tx.InsertVoiceCopy(ctx, store.VoiceShare{VoiceID: "lc", WorkspaceID: b.ID, PublicOwnerID: "pa", Status: "copied", OriginalVoiceID: "la", DateUnix: 300})
		}))
		if got := ids(store.LibraryFilter{Sort: "cloned_by_count"}); fmtIDs(got) != "[la lb]" {
			t.Errorf("by copies: %v", got)
		}
		if c, err := db.CopiedVoiceIDs(ctx, b.ID, []string{"la", "lb"}); err != nil || !c["la"] || c["lb"] {
			t.Fatalf("CopiedVoiceIDs: %v %v", c, err)
		}
		if lv, err := db.LibraryVoiceByOwner(ctx, "pa", "la"); err != nil || lv.Share.ClonedByCount != 1 || lv.Name != "Narrator" {
			t.Fatalf("LibraryVoiceByOwner: %+v %v", lv, err)
		}
		if _, err := db.LibraryVoiceByOwner(ctx, "pa", "lc"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a copy is not a library voice: %v", err)
		}
		if vs, n, _ := db.ListVoices(ctx, b.ID, store.VoiceFilter{VoiceType: "community"}); n != 1 || vs[0].ID != "lc" {
			t.Fatalf("community voices: %d", n)
		}
		must(t, "withdraw", db.UpsertVoiceShare(ctx, store.VoiceShare{VoiceID: "lb", WorkspaceID: a.ID, PublicOwnerID: "pa", Status: "disabled", DateUnix: 200}))
		if got := ids(store.LibraryFilter{}); fmtIDs(got) != "[la]" {
			t.Errorf("after withdrawal: %v", got)
		}
		if _, err := db.PublishedVoice(ctx, "lb"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a withdrawn voice is public: %v", err)
		}
		if v, err := db.PublishedVoice(ctx, "la"); err != nil || v.WorkspaceID != a.ID {
			t.Fatalf("PublishedVoice: %+v %v", v, err)
		}

		// Collections.
		must(t, "collection", db.CreateVoiceCollection(ctx, store.VoiceCollection{ID: "k1", WorkspaceID: b.ID, Title: "Picks", Icon: "x", CreatedAt: 1}))
		must(t, "collect", db.AddVoiceToCollection(ctx, b.ID, "k1", "lc", 2))
		must(t, "collect again", db.AddVoiceToCollection(ctx, b.ID, "k1", "lc", 3))
		if _, n, _ := db.ListVoices(ctx, b.ID, store.VoiceFilter{CollectionID: "k1"}); n != 1 {
			t.Fatalf("voices in the collection: %d", n)
		}
		if _, n, _ := db.ListVoices(ctx, a.ID, store.VoiceFilter{CollectionID: "k1"}); n != 0 {
			t.Fatalf("another workspace filters by B's collection: %d", n)
		}
		if _, err := db.VoiceCollection(ctx, a.ID, "k1"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another workspace reads the collection: %v", err)
		}
		if err := db.UpdateVoiceCollection(ctx, store.VoiceCollection{ID: "k1", WorkspaceID: a.ID, Title: "Stolen"}); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another workspace renames the collection: %v", err)
		}
		must(t, "rename", db.UpdateVoiceCollection(ctx, store.VoiceCollection{ID: "k1", WorkspaceID: b.ID, Title: "Best", Icon: "y"}))
		if cs, err := db.VoiceCollections(ctx, b.ID); err != nil || len(cs) != 1 || cs[0].Title != "Best" || cs[0].Icon != "y" {
			t.Fatalf("VoiceCollections: %+v %v", cs, err)
		}
		must(t, "delete voice", db.InTx(ctx, func(tx *store.Tx) error { return tx.DeleteVoice(ctx, b.ID, "lc") }))
		if err := db.RemoveVoiceFromCollection(ctx, b.ID, "k1", "lc"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a deleted voice stays in its collection: %v", err)
		}
		if err := db.DeleteVoiceCollection(ctx, a.ID, "k1"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("another workspace deletes the collection: %v", err)
		}
		must(t, "delete collection", db.DeleteVoiceCollection(ctx, b.ID, "k1"))
	})
}

func fmtIDs(ids []string) string {
	s := "["
	for i, id := range ids {
		if i > 0 {
			s += " "
		}
		s += id
	}
	return s + "]"
}
