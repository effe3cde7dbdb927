// Package jobs runs background work on River, in the same database as the store: riverpgxv5 on
// the store's pgx pool for PostgreSQL, riversqlite for SQLite.
//
// SQLite: River gets its own single-connection *sql.DB on the store's file (store.OpenSQLite,
// same pragmas, BEGIN IMMEDIATE, 10 s busy timeout) rather than the store's one writer
// connection. River's polling, completion and maintenance queries then never queue in front of
// the store's writes inside Go's pool, River's reads run beside them under WAL, and the two
// writers take turns on SQLite's file lock. Worker code runs outside any River transaction, so a
// job may use the store freely. A job that belongs to rows the store writes is inserted with
// InsertTx in the store's own transaction (on the store's connection, so no second writer waits),
// and commits or rolls back with those rows. What callers must not do on SQLite is call Insert
// from inside store.(*DB).InTx (or hold a River transaction while writing through the store): the
// second writer waits for the first, which waits for it; with separate connections that ends in
// "database is locked" after the busy timeout instead of hanging for ever.
package jobs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"

	"timbre/internal/store"
)

// Config configures a Client. The zero value (plus a DB) is an insert-only client.
type Config struct {
	Logger *slog.Logger
	// Workers holds the job kinds this process can run. Required when QueueWorkers > 0.
	Workers *river.Workers
	// QueueWorkers is how many jobs of the default queue run at once; 0 makes an insert-only
	// client (API-only processes), which can enqueue but never works jobs.
	QueueWorkers int
	// Queues adds named queues (name → concurrent jobs) besides river.QueueDefault.
	Queues map[string]int
	// PeriodicJobs are enqueued on their schedules by whichever process is River's leader.
	PeriodicJobs []*river.PeriodicJob
	// FetchPollInterval is how often idle workers look for new jobs (River's default: 1 s). SQLite
	// has no LISTEN/NOTIFY, so this is the pickup latency of jobs inserted by other processes there.
	FetchPollInterval time.Duration
	// RetryPolicy decides when failed jobs run again (River's default: attempt⁴ seconds + jitter).
	RetryPolicy river.ClientRetryPolicy
	// MaxAttempts is how often a job runs before it is discarded (River's default: 25).
	MaxAttempts int
	// JobTimeout bounds one run of a job (River's default: 1 minute; -1 for none).
	JobTimeout time.Duration
	// ErrorHandler sees job errors and panics.
	ErrorHandler river.ErrorHandler
	// ID names this process among River clients (River's default: host name and start time).
	ID string
}

// riverClient is what this package uses of river.Client, whose type parameter differs by driver.
type riverClient interface {
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
	StopAndCancel(ctx context.Context) error
	Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
	InsertMany(ctx context.Context, params []river.InsertManyParams) ([]*rivertype.JobInsertResult, error)
	JobGet(ctx context.Context, id int64) (*rivertype.JobRow, error)
	JobCancel(ctx context.Context, id int64) (*rivertype.JobRow, error)
	PeriodicJobs() *river.PeriodicJobBundle
	Subscribe(kinds ...river.EventKind) (<-chan *river.Event, func())
}

var (
	_ riverClient = (*river.Client[pgx.Tx])(nil)
	_ riverClient = (*river.Client[*sql.Tx])(nil)
)

// Client is a River client on the store's database.
type Client struct {
	db *store.DB
	rc riverClient
	// txc inserts jobs in a store transaction (a *sql.Tx): on SQLite the client itself; on
	// PostgreSQL an insert-only client on riverdatabasesql, since the store's transactions are
	// database/sql ones on pgx's stdlib, which riverpgxv5 (wanting a pgx.Tx) cannot take.
	txc        *river.Client[*sql.Tx]
	sqlite     *sql.DB // River's own SQLite connection (owned); nil for PostgreSQL
	logger     *slog.Logger
	insertOnly bool

	mu      sync.Mutex
	started bool
	closed  bool
}

// New returns a client that works the default queue with queueWorkers concurrent jobs of the kinds
// in workers (queueWorkers 0: insert-only). Call Migrate before Start.
func New(db *store.DB, logger *slog.Logger, workers *river.Workers, queueWorkers int) (*Client, error) {
	return NewWithConfig(db, Config{Logger: logger, Workers: workers, QueueWorkers: queueWorkers})
}

// NewInsertOnly returns a client that can enqueue jobs but never runs them (API-only processes).
func NewInsertOnly(db *store.DB, logger *slog.Logger) (*Client, error) {
	return NewWithConfig(db, Config{Logger: logger})
}

// NewWithConfig returns a client configured by cfg.
func NewWithConfig(db *store.DB, cfg Config) (*Client, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	rcfg := &river.Config{
		Logger:            cfg.Logger,
		FetchPollInterval: cfg.FetchPollInterval,
		RetryPolicy:       cfg.RetryPolicy,
		MaxAttempts:       cfg.MaxAttempts,
		JobTimeout:        cfg.JobTimeout,
		ErrorHandler:      cfg.ErrorHandler,
		ID:                cfg.ID,
	}
	if cfg.FetchPollInterval > 0 && cfg.FetchPollInterval < river.FetchCooldownDefault {
		rcfg.FetchCooldown = cfg.FetchPollInterval // River wants cooldown <= poll interval
	}
	insertOnly := cfg.QueueWorkers <= 0
	if insertOnly {
		if len(cfg.PeriodicJobs) > 0 {
			return nil, errors.New("jobs: periodic jobs need a client that works jobs (QueueWorkers > 0)")
		}
		// An insert-only client still validates job kinds against Workers when given.
		rcfg.Workers = cfg.Workers
	} else {
		if cfg.Workers == nil {
			return nil, errors.New("jobs: Workers is required when QueueWorkers > 0")
		}
		rcfg.Workers = cfg.Workers
		rcfg.PeriodicJobs = cfg.PeriodicJobs
		rcfg.Queues = map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: cfg.QueueWorkers}}
		for name, n := range cfg.Queues {
			if n <= 0 {
				return nil, fmt.Errorf("jobs: queue %q needs at least one worker", name)
			}
			rcfg.Queues[name] = river.QueueConfig{MaxWorkers: n}
		}
	}

	c := &Client{db: db, logger: cfg.Logger, insertOnly: insertOnly}
	switch db.Dialect {
	case store.Postgres:
		if db.PG == nil {
			return nil, errors.New("jobs: PostgreSQL store without a pgx pool")
		}
		rc, err := river.NewClient(riverpgxv5.New(db.PG), rcfg)
		if err != nil {
			return nil, fmt.Errorf("jobs: %w", err)
		}
		txc, err := river.NewClient(riverdatabasesql.New(nil), &river.Config{Logger: cfg.Logger, MaxAttempts: cfg.MaxAttempts, Workers: cfg.Workers})
		if err != nil {
			return nil, fmt.Errorf("jobs: %w", err)
		}
		c.rc, c.txc = rc, txc
	case store.SQLite:
		conn, err := sqliteConn(db)
		if err != nil {
			return nil, err
		}
		rc, err := river.NewClient(riversqlite.New(conn), rcfg)
		if err != nil {
			conn.Close()
			return nil, fmt.Errorf("jobs: %w", err)
		}
		c.rc, c.txc, c.sqlite = rc, rc, conn
	default:
		return nil, fmt.Errorf("jobs: unknown dialect %q", db.Dialect)
	}
	return c, nil
}

func sqliteConn(db *store.DB) (*sql.DB, error) {
	if db.SQLitePath == "" {
		return nil, errors.New("jobs: SQLite store without SQLitePath")
	}
	conn, err := store.OpenSQLite(db.SQLitePath)
	if err != nil {
		return nil, fmt.Errorf("jobs: open sqlite for river: %w", err)
	}
	return conn, nil
}

// Migrate applies River's own migrations (its tables live beside the store's).
func (c *Client) Migrate(ctx context.Context) error {
	return migrate(ctx, c.db, c.sqlite, c.logger)
}

// Migrate applies River's migrations to db without making a client (for `timbre migrate`).
func Migrate(ctx context.Context, db *store.DB, logger *slog.Logger) error {
	if db.Dialect != store.SQLite {
		return migrate(ctx, db, nil, logger)
	}
	conn, err := sqliteConn(db)
	if err != nil {
		return err
	}
	defer conn.Close()
	return migrate(ctx, db, conn, logger)
}

func migrate(ctx context.Context, db *store.DB, sqliteDB *sql.DB, logger *slog.Logger) error {
	if logger == nil {
		logger = slog.Default()
	}
	var err error
	switch db.Dialect {
	case store.Postgres:
		var m *rivermigrate.Migrator[pgx.Tx]
		if m, err = rivermigrate.New(riverpgxv5.New(db.PG), &rivermigrate.Config{Logger: logger}); err == nil {
			_, err = m.Migrate(ctx, rivermigrate.DirectionUp, nil)
		}
	case store.SQLite:
		var m *rivermigrate.Migrator[*sql.Tx]
		if m, err = rivermigrate.New(riversqlite.New(sqliteDB), &rivermigrate.Config{Logger: logger}); err == nil {
			_, err = m.Migrate(ctx, rivermigrate.DirectionUp, nil)
		}
	default:
		err = fmt.Errorf("unknown dialect %q", db.Dialect)
	}
	if err != nil {
		return fmt.Errorf("jobs: migrate river: %w", err)
	}
	return nil
}

// Start begins working jobs (and, on the leader, enqueuing periodic jobs). Work stops when ctx
// is cancelled or Stop is called. An insert-only client cannot start.
func (c *Client) Start(ctx context.Context) error {
	if c.insertOnly {
		return errors.New("jobs: an insert-only client does not work jobs")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errors.New("jobs: client closed")
	}
	if err := c.rc.Start(ctx); err != nil {
		return fmt.Errorf("jobs: start: %w", err)
	}
	c.started = true
	return nil
}

// Stop waits for running jobs to finish and stops; if ctx ends first, running jobs are cancelled
// and Stop waits a moment more for them to return.
func (c *Client) Stop(ctx context.Context) error {
	c.mu.Lock()
	started := c.started
	c.started = false
	c.mu.Unlock()
	if !started {
		return nil
	}
	err := c.rc.Stop(ctx)
	if err != nil && ctx.Err() != nil {
		hard, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return errors.Join(err, c.rc.StopAndCancel(hard))
	}
	return err
}

// Close stops the client if it is running and releases River's SQLite connection. The store
// itself stays open.
func (c *Client) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := c.Stop(ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed && c.sqlite != nil {
		err = errors.Join(err, c.sqlite.Close())
	}
	c.closed = true
	return err
}

// Insert enqueues a job (opts may be nil).
func (c *Client) Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error) {
	return c.rc.Insert(ctx, args, opts)
}

// InsertMany enqueues several jobs in one transaction.
func (c *Client) InsertMany(ctx context.Context, params []river.InsertManyParams) ([]*rivertype.JobInsertResult, error) {
	return c.rc.InsertMany(ctx, params)
}

// InsertTx enqueues a job in the store transaction tx: the job exists if and only if tx commits,
// so rows and the job that works on them are never found one without the other.
func (c *Client) InsertTx(ctx context.Context, tx *store.Tx, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error) {
	return c.txc.InsertTx(ctx, tx.SQL(), args, opts)
}

// InsertManyTx enqueues several jobs in the store transaction tx (see InsertTx).
func (c *Client) InsertManyTx(ctx context.Context, tx *store.Tx, params []river.InsertManyParams) ([]*rivertype.JobInsertResult, error) {
	return c.txc.InsertManyTx(ctx, tx.SQL(), params)
}

// JobGet returns a job by id (rivertype.ErrNotFound when there is none).
func (c *Client) JobGet(ctx context.Context, id int64) (*rivertype.JobRow, error) {
	return c.rc.JobGet(ctx, id)
}

// JobCancel cancels a job that has not finished.
func (c *Client) JobCancel(ctx context.Context, id int64) (*rivertype.JobRow, error) {
	return c.rc.JobCancel(ctx, id)
}

// Subscribe returns a channel of the client's job events (only for a client that works jobs) and
// a function that ends the subscription.
func (c *Client) Subscribe(kinds ...river.EventKind) (<-chan *river.Event, func()) {
	return c.rc.Subscribe(kinds...)
}

// AddPeriodic adds a periodic job to a running or not yet started client that works jobs.
func (c *Client) AddPeriodic(job *river.PeriodicJob) (rivertype.PeriodicJobHandle, error) {
	if c.insertOnly {
		return 0, errors.New("jobs: an insert-only client runs no periodic jobs")
	}
	return c.rc.PeriodicJobs().AddSafely(job)
}

// RemovePeriodic removes a periodic job added with AddPeriodic (or Config.PeriodicJobs).
func (c *Client) RemovePeriodic(h rivertype.PeriodicJobHandle) {
	if !c.insertOnly {
		c.rc.PeriodicJobs().Remove(h)
	}
}

// Dialect says which database the jobs live in.
func (c *Client) Dialect() store.Dialect { return c.db.Dialect }

// QueueDepth counts jobs waiting to run in any queue: available, scheduled and retryable.
func (c *Client) QueueDepth(ctx context.Context) (int, error) {
	const q = `SELECT COUNT(*) FROM river_job WHERE state IN ('available', 'scheduled', 'retryable')`
	var n int
	var err error
	if c.db.Dialect == store.Postgres {
		err = c.db.PG.QueryRow(ctx, q).Scan(&n)
	} else {
		err = c.sqlite.QueryRowContext(ctx, q).Scan(&n)
	}
	if err != nil {
		return 0, fmt.Errorf("jobs: queue depth: %w", err)
	}
	return n, nil
}
