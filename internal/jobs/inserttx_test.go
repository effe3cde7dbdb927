package jobs_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"timbre/internal/jobs"
	"timbre/internal/store"
	"timbre/internal/testdb"
)

// TestInsertTx: a job inserted in a store transaction shares its fate. A transaction that fails
// leaves neither its history row nor its job; one that commits leaves both, and the job runs.
func TestInsertTx(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		migrate(t, db)
		u, ws, err := db.CreateUserWithWorkspace(ctx, "tx@example.com", "x", true, "free", time.Now())
		if err != nil {
			t.Fatal(err)
		}
		w := &echoWorker{done: make(chan string, 4)}
		workers := river.NewWorkers()
		river.AddWorker(workers, w)
		c := newClient(t, db, jobs.Config{Workers: workers, QueueWorkers: 2})

		row := func(text string) *store.HistoryItem {
			return &store.HistoryItem{ID: store.NewID(), WorkspaceID: ws.ID, UserID: u.ID, RequestID: store.NewID(),
				VoiceID: "voice1", VoiceName: "Rachel", VoiceCategory: "premade", ModelID: "eleven_multilingual_v2",
				Text: text, Settings: `{}`, DateUnix: time.Now().Unix(), Seq: time.Now().UnixNano(), CharTo: int64(len(text)),
				ContentType: "audio/mpeg", OutputFormat: "mp3_44100_128", Source: "TTS", State: store.StateCreated}
		}

		// Rolled back: the row and the job both vanish.
		failed := row("rolled back")
		var lostJob int64
		boom := errors.New("boom after the job was queued")
		err = db.InTx(ctx, func(tx *store.Tx) error {
			if err := tx.InsertHistory(ctx, failed); err != nil {
				return err
			}
			res, err := c.InsertTx(ctx, tx, EchoArgs{Msg: failed.ID}, nil)
			if err != nil {
				return err
			}
			lostJob = res.Job.ID
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("InTx = %v, want the callback's error", err)
		}
		if _, err := db.History(ctx, ws.ID, failed.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("rolled-back history row: %v, want ErrNotFound", err)
		}
		if _, err := c.JobGet(ctx, lostJob); !errors.Is(err, rivertype.ErrNotFound) {
			t.Fatalf("rolled-back job %d: %v, want not found", lostJob, err)
		}
		if n := depth(t, c); n != 0 {
			t.Fatalf("queue depth after rollback = %d, want 0", n)
		}

		// Committed: both are there, and the job runs.
		kept := row("committed")
		var keptJob int64
		err = db.InTx(ctx, func(tx *store.Tx) error {
			if err := tx.InsertHistory(ctx, kept); err != nil {
				return err
			}
			res, err := c.InsertManyTx(ctx, tx, []river.InsertManyParams{{Args: EchoArgs{Msg: kept.ID}}})
			if err != nil {
				return err
			}
			keptJob = res[0].Job.ID
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.History(ctx, ws.ID, kept.ID); err != nil {
			t.Fatalf("committed history row: %v", err)
		}
		if job, err := c.JobGet(ctx, keptJob); err != nil || job.Kind != (EchoArgs{}).Kind() {
			t.Fatalf("committed job: %+v %v", job, err)
		}
		start(t, c)
		select {
		case msg := <-w.done:
			if msg != kept.ID {
				t.Fatalf("the job that ran carried %q, want %q", msg, kept.ID)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the committed job never ran")
		}
	})
}
