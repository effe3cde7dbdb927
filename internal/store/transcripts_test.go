package store_test

import (
	"context"
	"errors"
	"testing"

	"timbre/internal/store"
	"timbre/internal/testdb"
)

func TestTranscriptsListEditScopedByWorkspace(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		_, wsA := newUser(t, db, "a@example.com")
		_, wsB := newUser(t, db, "b@example.com")
		insert := func(ws, id string, at int64, state string) {
			t.Helper()
			must(t, "insert", db.InTx(ctx, func(tx *store.Tx) error {
				if err := tx.InsertTranscript(ctx, &store.Transcript{ID: id, WorkspaceID: ws, ModelID: "scribe_v1", FileName: id + ".mp3",
					State: store.TranscriptProcessing, DurationSecs: 2.5, CreatedAt: at, AudioKey: "stt/" + ws + "/" + id + ".mp3", AudioContentType: "audio/mpeg"}); err != nil {
					return err
				}
				if state == store.TranscriptProcessing {
					return nil
				}
				if err := tx.FinishTranscript(ctx, ws, id, state, "eng", `{"text":"hello there"}`, "", at+1); err != nil {
					return err
				}
				return tx.SetTranscriptPreview(ctx, ws, id, "hello there")
			}))
		}
		insert(wsA.ID, "t1", 100, store.TranscriptCompleted)
		insert(wsA.ID, "t3", 200, store.TranscriptCompleted)
		insert(wsA.ID, "t2", 200, store.TranscriptProcessing) // same second: the id breaks the tie
		insert(wsB.ID, "tb", 300, store.TranscriptCompleted)

		page, more, err := db.ListTranscripts(ctx, wsA.ID, nil, 2)
		must(t, "list", err)
		if len(page) != 2 || !more || page[0].ID != "t3" || page[1].ID != "t2" {
			t.Fatalf("first page = %+v, more %v", page, more)
		}
		if page[0].Result != "" || page[0].Preview != "hello there" || page[0].AudioKey != "stt/"+wsA.ID+"/t3.mp3" || page[0].FileName != "t3.mp3" {
			t.Fatalf("summary row = %+v", page[0])
		}
		cur, ok := store.ParseTranscriptCursor(store.TranscriptCursor{CreatedAt: page[1].CreatedAt, ID: page[1].ID}.String())
		if !ok {
			t.Fatal("cursor does not parse back")
		}
		page, more, err = db.ListTranscripts(ctx, wsA.ID, &cur, 2)
		must(t, "list after", err)
		if len(page) != 1 || more || page[0].ID != "t1" {
			t.Fatalf("second page = %+v, more %v", page, more)
		}
		for _, bad := range []string{"", "x", "12", "_t1", "-1_t1", "abc_t1"} {
			if _, ok := store.ParseTranscriptCursor(bad); ok {
				t.Fatalf("cursor %q parsed", bad)
			}
		}

		// Edits: only completed transcriptions of the workspace.
		must(t, "edit", db.EditTranscript(ctx, wsA.ID, "t1", `{"text":"Hello there."}`, `{"speaker_0":"Ann"}`, "Hello there.", 500))
		got, err := db.Transcript(ctx, wsA.ID, "t1")
		must(t, "get", err)
		if got.EditedResult != `{"text":"Hello there."}` || got.SpeakerNames != `{"speaker_0":"Ann"}` || got.Preview != "Hello there." || got.EditedAt != 500 || got.Result != `{"text":"hello there"}` {
			t.Fatalf("edited row = %+v", got)
		}
		wantErr(t, "edit from B", db.EditTranscript(ctx, wsB.ID, "t1", "{}", "{}", "", 1), store.ErrNotFound)
		wantErr(t, "edit processing", db.EditTranscript(ctx, wsA.ID, "t2", "{}", "{}", "", 1), store.ErrNotFound)
		if err := db.InTx(ctx, func(tx *store.Tx) error { return tx.SetTranscriptPreview(ctx, wsB.ID, "t1", "x") }); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("B set A's preview: %v", err)
		}
		if page, _, _ := db.ListTranscripts(ctx, wsB.ID, nil, 10); len(page) != 1 || page[0].ID != "tb" {
			t.Fatalf("B's list = %+v", page)
		}
	})
}
