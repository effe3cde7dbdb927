package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"timbre/internal/jobs"
	"timbre/internal/store"
	"timbre/internal/testdb"
)

func quietLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{}, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

type testWriter struct{}

func (testWriter) Write(p []byte) (int, error) { return len(p), nil }

// ---- job kinds used by the tests ----

type EchoArgs struct {
	Msg string `json:"msg"`
}

func (EchoArgs) Kind() string { return "test_echo" }

type echoWorker struct {
	river.WorkerDefaults[EchoArgs]
	done chan string
}

func (w *echoWorker) Work(ctx context.Context, job *river.Job[EchoArgs]) error {
	w.done <- job.Args.Msg
	return nil
}

type FlakyArgs struct{}

func (FlakyArgs) Kind() string { return "test_flaky" }

type flakyWorker struct {
	river.WorkerDefaults[FlakyArgs]
	failures atomic.Int32
	calls    atomic.Int32
}

func (w *flakyWorker) Work(ctx context.Context, job *river.Job[FlakyArgs]) error {
	n := w.calls.Add(1)
	if n <= w.failures.Load() {
		return fmt.Errorf("flaky failure %d", n)
	}
	return nil
}

type TickArgs struct{}

func (TickArgs) Kind() string { return "test_tick" }

type tickWorker struct {
	river.WorkerDefaults[TickArgs]
	ticks atomic.Int32
}

func (w *tickWorker) Work(ctx context.Context, job *river.Job[TickArgs]) error {
	w.ticks.Add(1)
	return nil
}

// ChargeArgs does what a generation job does: charge and write history in one store transaction.
type ChargeArgs struct {
	WorkspaceID string `json:"workspace_id"`
	UserID      string `json:"user_id"`
}

func (ChargeArgs) Kind() string { return "test_charge" }

type chargeWorker struct {
	river.WorkerDefaults[ChargeArgs]
	db   *store.DB
	done chan error
}

func (w *chargeWorker) Work(ctx context.Context, job *river.Job[ChargeArgs]) error {
	err := w.db.InTx(ctx, func(tx *store.Tx) error {
		from, to, err := tx.Charge(ctx, job.Args.WorkspaceID, 10, -1, time.Now())
		if err != nil {
			return err
		}
		return tx.InsertHistory(ctx, &store.HistoryItem{
			ID: store.NewID(), WorkspaceID: job.Args.WorkspaceID, UserID: job.Args.UserID, RequestID: store.NewID(),
			VoiceID: "v", VoiceName: "V", VoiceCategory: "premade", ModelID: "m", Text: "from a job", Settings: "{}",
			DateUnix: time.Now().Unix(), CharFrom: from, CharTo: to, ContentType: "audio/mpeg", OutputFormat: "mp3_44100_128",
			Source: "TTS", State: store.StateCreated,
		})
	})
	w.done <- err
	return err
}

// ---- helpers ----

// fastRetry retries almost at once, so a retry test takes milliseconds, not River's seconds.
type fastRetry struct{}

func (fastRetry) NextRetry(*rivertype.JobRow) time.Time { return time.Now().Add(20 * time.Millisecond) }

func newClient(t *testing.T, db *store.DB, cfg jobs.Config) *jobs.Client {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = quietLogger()
	}
	if cfg.FetchPollInterval == 0 {
		cfg.FetchPollInterval = 50 * time.Millisecond
	}
	c, err := jobs.NewWithConfig(db, cfg)
	if err != nil {
		t.Fatalf("jobs.NewWithConfig: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("close jobs client: %v", err)
		}
	})
	return c
}

func migrate(t *testing.T, db *store.DB) {
	t.Helper()
	if err := jobs.Migrate(context.Background(), db, quietLogger()); err != nil {
		t.Fatal(err)
	}
}

func start(t *testing.T, c *jobs.Client) {
	t.Helper()
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func waitFor(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func depth(t *testing.T, c *jobs.Client) int {
	t.Helper()
	n, err := c.QueueDepth(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// ---- tests ----

func TestMigrateIdempotent(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		migrate(t, db)
		migrate(t, db)
		c := newClient(t, db, jobs.Config{})
		if err := c.Migrate(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
}

func TestWorkerRunsJob(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		migrate(t, db)
		w := &echoWorker{done: make(chan string, 10)}
		workers := river.NewWorkers()
		river.AddWorker(workers, w)

		// An API-only process enqueues; nothing runs it yet.
		api, err := jobs.NewInsertOnly(db, quietLogger())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = api.Close() })
		if err := api.Start(ctx); err == nil {
			t.Fatal("insert-only client started")
		}
		res, err := api.Insert(ctx, EchoArgs{Msg: "hello"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := api.Insert(ctx, EchoArgs{Msg: "later"}, &river.InsertOpts{ScheduledAt: time.Now().Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
		if n := depth(t, api); n != 2 {
			t.Fatalf("queue depth = %d, want 2 (one available, one scheduled)", n)
		}

		// A worker process picks it up.
		c := newClient(t, db, jobs.Config{Workers: workers, QueueWorkers: 2})
		start(t, c)
		select {
		case msg := <-w.done:
			if msg != "hello" {
				t.Fatalf("worked %q", msg)
			}
		case <-time.After(15 * time.Second):
			t.Fatal("job not worked")
		}
		waitFor(t, "job completed", 10*time.Second, func() bool {
			j, err := c.JobGet(ctx, res.Job.ID)
			return err == nil && j.State == rivertype.JobStateCompleted
		})
		if n := depth(t, c); n != 1 {
			t.Fatalf("queue depth after work = %d, want 1 (the scheduled job)", n)
		}

		// Jobs inserted through the working client run too.
		if _, err := c.Insert(ctx, EchoArgs{Msg: "again"}, nil); err != nil {
			t.Fatal(err)
		}
		select {
		case msg := <-w.done:
			if msg != "again" {
				t.Fatalf("worked %q", msg)
			}
		case <-time.After(15 * time.Second):
			t.Fatal("second job not worked")
		}
		if err := c.Stop(ctx); err != nil {
			t.Fatal(err)
		}
	})
}

func TestFailingJobIsRetried(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		migrate(t, db)
		w := &flakyWorker{}
		w.failures.Store(2)
		workers := river.NewWorkers()
		river.AddWorker(workers, w)
		c := newClient(t, db, jobs.Config{Workers: workers, QueueWorkers: 1, RetryPolicy: fastRetry{}})
		start(t, c)
		res, err := c.Insert(ctx, FlakyArgs{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var job *rivertype.JobRow
		waitFor(t, "flaky job to complete", 20*time.Second, func() bool {
			job, err = c.JobGet(ctx, res.Job.ID)
			return err == nil && job.State == rivertype.JobStateCompleted
		})
		if job.Attempt != 3 || len(job.Errors) != 2 || w.calls.Load() != 3 {
			t.Fatalf("attempt %d, %d errors, %d calls; want 3, 2, 3", job.Attempt, len(job.Errors), w.calls.Load())
		}
		if job.Errors[0].Error != "flaky failure 1" {
			t.Fatalf("first error = %q", job.Errors[0].Error)
		}

		// A job that keeps failing is discarded after MaxAttempts.
		w.failures.Store(100)
		res, err = c.Insert(ctx, FlakyArgs{}, &river.InsertOpts{MaxAttempts: 2})
		if err != nil {
			t.Fatal(err)
		}
		waitFor(t, "job discarded", 20*time.Second, func() bool {
			job, err = c.JobGet(ctx, res.Job.ID)
			return err == nil && job.State == rivertype.JobStateDiscarded
		})
		if job.Attempt != 2 || len(job.Errors) != 2 {
			t.Fatalf("discarded job: attempt %d, %d errors; want 2, 2", job.Attempt, len(job.Errors))
		}
	})
}

func TestPeriodicJobFires(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		migrate(t, db)
		w := &tickWorker{}
		workers := river.NewWorkers()
		river.AddWorker(workers, w)
		c := newClient(t, db, jobs.Config{
			Workers: workers, QueueWorkers: 1,
			PeriodicJobs: []*river.PeriodicJob{river.NewPeriodicJob(
				river.PeriodicInterval(time.Second),
				func() (river.JobArgs, *river.InsertOpts) { return TickArgs{}, nil },
				&river.PeriodicJobOpts{RunOnStart: true},
			)},
		})
		start(t, c)
		// Once at start, then again a second later.
		waitFor(t, "periodic job to fire twice", 30*time.Second, func() bool { return w.ticks.Load() >= 2 })
	})
}

func TestAddPeriodicAfterStart(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		migrate(t, db)
		w := &tickWorker{}
		workers := river.NewWorkers()
		river.AddWorker(workers, w)
		c := newClient(t, db, jobs.Config{Workers: workers, QueueWorkers: 1})
		start(t, c)
		h, err := c.AddPeriodic(river.NewPeriodicJob(river.PeriodicInterval(time.Hour),
			func() (river.JobArgs, *river.InsertOpts) { return TickArgs{}, nil }, &river.PeriodicJobOpts{RunOnStart: true}))
		if err != nil {
			t.Fatal(err)
		}
		waitFor(t, "added periodic job to fire", 30*time.Second, func() bool { return w.ticks.Load() >= 1 })
		c.RemovePeriodic(h)
	})
}

// Jobs that write through the store while the API writes too: on SQLite River has its own
// connection, so neither waits on the other's connection and nothing deadlocks.
func TestJobsAndStoreShareTheDatabase(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		migrate(t, db)
		u, ws, err := db.CreateUserWithWorkspace(ctx, "jobs@example.com", "x", true, "free", time.Now())
		if err != nil {
			t.Fatal(err)
		}
		w := &chargeWorker{db: db, done: make(chan error, 100)}
		workers := river.NewWorkers()
		river.AddWorker(workers, w)
		c := newClient(t, db, jobs.Config{Workers: workers, QueueWorkers: 4})
		start(t, c)

		const n = 40
		var wg sync.WaitGroup
		errs := make(chan error, 2*n)
		wg.Add(2)
		go func() { // the API enqueues…
			defer wg.Done()
			for range n {
				if _, err := c.Insert(ctx, ChargeArgs{WorkspaceID: ws.ID, UserID: u.ID}, nil); err != nil {
					errs <- err
				}
			}
		}()
		go func() { // …and writes through the store at the same time.
			defer wg.Done()
			for i := range n {
				if err := db.AddMail(ctx, store.Mail{To: "x@example.com", Subject: fmt.Sprint(i)}); err != nil {
					errs <- err
				}
			}
		}()
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		deadline := time.After(60 * time.Second)
		for i := range n {
			select {
			case err := <-w.done:
				if err != nil {
					t.Fatalf("job %d: %v", i, err)
				}
			case <-deadline:
				t.Fatalf("only %d of %d jobs ran", i, n)
			}
		}
		got, err := db.Workspace(ctx, ws.ID, time.Now())
		if err != nil || got.CharacterCount != 10*n {
			t.Fatalf("count = %v %v, want %d", got, err, 10*n)
		}
		items, _, err := db.ListHistory(ctx, ws.ID, store.HistoryFilter{PageSize: 100})
		if err != nil || len(items) != n {
			t.Fatalf("history rows = %d %v, want %d", len(items), err, n)
		}
		waitFor(t, "queue to drain", 10*time.Second, func() bool { return depth(t, c) == 0 })
		stopCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if err := c.Stop(stopCtx); err != nil {
			t.Fatal(err)
		}
	})
}

func TestConfigErrors(t *testing.T) {
	db := testdb.SQLite(t)
	if _, err := jobs.New(db, quietLogger(), nil, 2); err == nil {
		t.Fatal("workers missing: no error")
	}
	_, err := jobs.NewWithConfig(db, jobs.Config{PeriodicJobs: []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(time.Minute),
		func() (river.JobArgs, *river.InsertOpts) { return TickArgs{}, nil }, nil)}})
	if err == nil {
		t.Fatal("periodic jobs on an insert-only client: no error")
	}
	c, err := jobs.NewInsertOnly(db, quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.AddPeriodic(nil); err == nil {
		t.Fatal("AddPeriodic on insert-only: no error")
	}
	// Before River's migrations, inserting fails cleanly rather than hanging.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := c.Insert(ctx, EchoArgs{}, nil); err == nil || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("insert before migrate: %v", err)
	}
}
