// Package store keeps Timbre's state in SQLite (default, pure Go) or PostgreSQL. Queries are
// written once with ? placeholders and rebound for PostgreSQL (Dialect.rebind); SQL that differs
// between the databases lives in the Dialect; every method is exercised by the
// conformance suite against both databases.
package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"timbre/internal/errs"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	_ "modernc.org/sqlite"
)

//go:embed migrations
var migrations embed.FS

// DB is an open database. For SQLite, writes go through one connection (SQLite allows one writer)
// and reads through a pool; for PostgreSQL both are the same pool.
type DB struct {
	Dialect Dialect
	read    *sql.DB
	write   *sql.DB
	// PG is the pgx pool behind a PostgreSQL database (River's driver wants it); nil for SQLite.
	PG *pgxpool.Pool
	// SQLiteDB is the write connection of a SQLite database; nil for PostgreSQL. It holds one
	// connection, so anything else that writes often (the job queue) should open its own with
	// OpenSQLite(SQLitePath) rather than queue behind, and in front of, the store's writes.
	SQLiteDB *sql.DB
	// SQLitePath is the file of a SQLite database; empty for PostgreSQL.
	SQLitePath string

	readStmts, writeStmts *stmtCache // SQLite only; nil for PostgreSQL
}

// ErrNotFound is returned when a row does not exist in the caller's workspace.
var ErrNotFound = errs.New(errs.NotFound, "not_found", "Not found")

// Open connects to PostgreSQL when url starts with postgres://, else opens the SQLite file at
// sqlitePath (creating its directory). It does not migrate: call Migrate.
func Open(ctx context.Context, url, sqlitePath string) (*DB, error) {
	if strings.HasPrefix(url, "postgres://") || strings.HasPrefix(url, "postgresql://") {
		cfg, err := pgxpool.ParseConfig(url)
		if err != nil {
			return nil, fmt.Errorf("open postgres: %w", err)
		}
		// pgxpool's default (max(4, CPUs)) is too small once River shares the pool: its LISTEN
		// connection is held for good, and its producers, elector and completer take more. A
		// pool_max_conns in the URL still wins.
		if !strings.Contains(url, "pool_max_conns") {
			cfg.MaxConns = max(cfg.MaxConns, int32(min(4*runtime.NumCPU(), 32)), 10)
		}
		pool, err := pgxpool.NewWithConfig(ctx, cfg)
		if err != nil {
			return nil, fmt.Errorf("open postgres: %w", err)
		}
		if err := pool.Ping(ctx); err != nil {
			pool.Close()
			return nil, fmt.Errorf("reach postgres: %w", err)
		}
		db := stdlib.OpenDBFromPool(pool)
		return &DB{Dialect: Postgres, read: db, write: db, PG: pool}, nil
	}
	if dir := filepath.Dir(sqlitePath); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	}
	dsn := SQLiteDSN(sqlitePath)
	write, err := OpenSQLite(sqlitePath)
	if err != nil {
		return nil, err
	}
	read, err := sql.Open("sqlite", dsn)
	if err != nil {
		write.Close()
		return nil, err
	}
	read.SetMaxOpenConns(8)
	// Keep them all: database/sql keeps 2 idle by default, so under load the others were closed
	// after each use and reopened for the next, each time applying the pragmas, reading the
	// schema and preparing every cached statement again.
	read.SetMaxIdleConns(8)
	if err := write.PingContext(ctx); err != nil {
		write.Close()
		read.Close()
		return nil, fmt.Errorf("open sqlite %s: %w", sqlitePath, err)
	}
	return &DB{Dialect: SQLite, read: read, write: write, SQLiteDB: write, SQLitePath: sqlitePath,
		readStmts: newStmtCache(read), writeStmts: newStmtCache(write)}, nil
}

// SQLiteDSN is the modernc.org/sqlite data source name the store uses for the file at path: WAL,
// a 10 s busy timeout, foreign keys on, and BEGIN IMMEDIATE for every transaction (so two writer
// connections queue on the busy timeout instead of failing a read-to-write lock upgrade).
func SQLiteDSN(path string) string {
	return "file:" + path + "?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_pragma=foreign_keys(ON)&_pragma=synchronous(NORMAL)&_txlock=immediate"
}

// OpenSQLite opens one more single-connection writer on the SQLite file at path, with the store's
// settings (SQLiteDSN). The job queue uses it: its writes and the store's then take turns on
// SQLite's file lock (waiting up to the busy timeout) and its reads run beside them under WAL.
func OpenSQLite(path string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", SQLiteDSN(path))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// Close releases the connections.
func (db *DB) Close() error {
	db.readStmts.close()
	db.writeStmts.close()
	err := db.write.Close()
	if db.read != db.write {
		err = errors.Join(err, db.read.Close())
	}
	if db.PG != nil {
		db.PG.Close()
	}
	return err
}

// Ping checks the database answers (readiness).
func (db *DB) Ping(ctx context.Context) error { return db.read.PingContext(ctx) }

// Migrate applies every pending migration of the database's dialect.
func (db *DB) Migrate(ctx context.Context) error {
	sub, err := fs.Sub(migrations, "migrations/"+string(db.Dialect))
	if err != nil {
		return err
	}
	p, err := goose.NewProvider(db.Dialect.goose(), db.write, sub)
	if err != nil {
		return err
	}
	_, err = p.Up(ctx)
	return err
}

// Tx is a write transaction; its methods mirror the store's writes that must commit together.
type Tx struct {
	db     *DB
	tx     *sql.Tx
	missed []string // queries run without a cached statement (see stmt)
}

// SQL is the transaction's database/sql handle, for writes that must commit with the store's
// but go through another library (the job queue's InsertTx).
func (tx *Tx) SQL() *sql.Tx { return tx.tx }

// InTx runs fn in one write transaction, committing when fn returns nil.
func (db *DB) InTx(ctx context.Context, fn func(tx *Tx) error) error {
	sqlTx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	tx := &Tx{db: db, tx: sqlTx}
	defer func() {
		for _, q := range tx.missed { // the write connection is free again
			db.writeStmts.get(ctx, q)
		}
	}()
	if err := fn(tx); err != nil {
		_ = sqlTx.Rollback()
		return err
	}
	return sqlTx.Commit()
}

func (db *DB) exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	if st := db.writeStmts.get(ctx, q); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return db.write.ExecContext(ctx, db.rebind(q), args...)
}

func (db *DB) queryRow(ctx context.Context, q string, args ...any) *sql.Row {
	if st := db.readStmts.get(ctx, q); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return db.read.QueryRowContext(ctx, db.rebind(q), args...)
}

func (db *DB) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if st := db.readStmts.get(ctx, q); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return db.read.QueryContext(ctx, db.rebind(q), args...)
}

func (tx *Tx) exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	if st := tx.stmt(q); st != nil {
		return tx.tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	}
	return tx.tx.ExecContext(ctx, tx.db.rebind(q), args...)
}

func (tx *Tx) queryRow(ctx context.Context, q string, args ...any) *sql.Row {
	if st := tx.stmt(q); st != nil {
		return tx.tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
	}
	return tx.tx.QueryRowContext(ctx, tx.db.rebind(q), args...)
}

func (tx *Tx) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if st := tx.stmt(q); st != nil {
		return tx.tx.StmtContext(ctx, st).QueryContext(ctx, args...)
	}
	return tx.tx.QueryContext(ctx, tx.db.rebind(q), args...)
}

// stmt returns the cached statement for q, if there is one. It cannot prepare one: that takes
// the write connection, which this transaction holds. InTx prepares what was missing afterwards.
func (tx *Tx) stmt(q string) *sql.Stmt {
	st, ok := tx.db.writeStmts.peek(q)
	if !ok && tx.db.writeStmts != nil {
		tx.missed = append(tx.missed, q)
	}
	return st
}

// stmtCache keeps SQLite's prepared statements by query text. modernc's SQLite parses and plans
// a statement each time one is prepared, and a request's small indexed queries cost less to run
// than that (the stream route spent ~40 % of its database time in the parser). A *sql.Stmt is
// prepared once per connection and reused from then on, inside transactions too
// (sql.Tx.StmtContext uses the statement already prepared on the transaction's connection).
// PostgreSQL has no cache here: pgx keeps one per connection itself.
type stmtCache struct {
	db     *sql.DB
	mu     sync.Mutex
	m      map[string]*sql.Stmt
	closed bool
}

// maxCachedStmts bounds a cache: queries assembled at run time (filters, lists of ids) could
// otherwise grow it without end. Past it, queries are prepared each time, as without a cache.
const maxCachedStmts = 500

func newStmtCache(db *sql.DB) *stmtCache {
	return &stmtCache{db: db, m: map[string]*sql.Stmt{}}
}

// peek returns the prepared statement for q if it is cached.
func (c *stmtCache) peek(q string) (*sql.Stmt, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	st, ok := c.m[q]
	return st, ok
}

// get returns the prepared statement for q, or nil when the caller should run q without one
// (no cache, cache full or closed, or q failed to prepare: running it reports the error).
func (c *stmtCache) get(ctx context.Context, q string) *sql.Stmt {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	st, ok := c.m[q]
	full := c.closed || len(c.m) >= maxCachedStmts
	c.mu.Unlock()
	if ok || full {
		return st
	}
	st, err := c.db.PrepareContext(ctx, q)
	if err != nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if prev, ok := c.m[q]; ok || c.closed || len(c.m) >= maxCachedStmts {
		st.Close() // another goroutine was quicker, or the cache filled up or closed
		return prev
	}
	c.m[q] = st
	return st
}

func (c *stmtCache) close() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	for q, st := range c.m {
		st.Close()
		delete(c.m, q)
	}
}

// notFound maps sql.ErrNoRows to ErrNotFound.
func notFound(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	return err
}

// affected returns ErrNotFound when an update or delete touched no row.
func affected(res sql.Result, err error) error {
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

// rowScanner is what *sql.Row and *sql.Rows share.
type rowScanner = interface{ Scan(...any) error }

// collect reads every row of a query with scan: `return collect(scanX)(db.query(…))`.
func collect[T any](scan func(rowScanner) (*T, error)) func(*sql.Rows, error) ([]T, error) {
	return func(rows *sql.Rows, err error) ([]T, error) {
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var out []T
		for rows.Next() {
			x, err := scan(rows)
			if err != nil {
				return nil, err
			}
			out = append(out, *x)
		}
		return out, rows.Err()
	}
}
