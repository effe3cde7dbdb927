package testdb

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"timbre/internal/store"
)

// historyCols are the history columns SeedHistory fills (the table's NOT NULL ones and a few more).
var historyCols = []string{"id", "workspace_id", "user_id", "request_id", "voice_id", "voice_name", "voice_category",
	"model_id", "text", "settings", "date_unix", "seq", "char_from", "char_to", "content_type", "output_format",
	"source", "state", "blob_key"}

// seedBatchRows keeps a statement under SQLite's and PostgreSQL's parameter limits (19 × 500 = 9,500).
const seedBatchRows = 500

// seedTxRows is how many rows one transaction commits.
const seedTxRows = 25_000

// SeedHistory bulk-inserts n created history rows into a workspace (which must exist), fast:
// one COPY on PostgreSQL; on SQLite multi-row INSERTs of 500 rows, 25,000 rows a transaction,
// straight to the database. Row i
// (0-based) has seq seqStart+i and date start+i seconds, so newest-first order is the reverse of
// the returned ids. Voices, models and sources vary so filters have something to select.
func SeedHistory(tb testing.TB, db *store.DB, workspaceID, userID string, n int, seqStart int64, start time.Time) []string {
	tb.Helper()
	ctx := context.Background()
	ids := make([]string, n)
	for i := range ids {
		ids[i] = store.NewID()
	}
	voices := []string{"Rachel", "Adam", "Bella", "Antoni", "Elli"}
	models := []string{"eleven_multilingual_v2", "eleven_flash_v2_5", "eleven_turbo_v2_5"}
	row := func(i int) []any {
		v := i % len(voices)
		source := "TTS"
		if i%10 == 9 {
			source = "STS"
		}
		text := fmt.Sprintf("Seeded generation %d: the quick brown fox jumps over the lazy dog while %s reads it aloud.", i, voices[v])
		return []any{ids[i], workspaceID, userID, "req_" + ids[i], "voice_" + strconv.Itoa(v), voices[v], "premade",
			models[i%len(models)], text, `{"stability":0.5,"similarity_boost":0.75}`, start.Unix() + int64(i), seqStart + int64(i),
			int64(i * 100), int64(i*100 + len(text)), "audio/mpeg", "mp3_44100_128", source, store.StateCreated, "history/" + ids[i] + ".mp3"}
	}
	if db.Dialect == store.Postgres {
		// COPY: one round trip per buffer instead of a statement per 500 rows.
		next := 0
		_, err := db.PG.CopyFrom(ctx, pgx.Identifier{"history"}, historyCols, pgx.CopyFromFunc(func() ([]any, error) {
			if next == n {
				return nil, nil
			}
			next++
			return row(next - 1), nil
		}))
		if err != nil {
			tb.Fatalf("testdb: seed history: %v", err)
		}
	}
	for txStart := 0; db.Dialect == store.SQLite && txStart < n; txStart += seedTxRows {
		txEnd := min(txStart+seedTxRows, n)
		err := seedTx(ctx, db, func(exec func(q string, args []any) error) error {
			for b := txStart; b < txEnd; b += seedBatchRows {
				e := min(b+seedBatchRows, txEnd)
				args := make([]any, 0, (e-b)*len(historyCols))
				for i := b; i < e; i++ {
					args = append(args, row(i)...)
				}
				if err := exec(insertSQL(db.Dialect, e-b), args); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			tb.Fatalf("testdb: seed history: %v", err)
		}
	}
	// PostgreSQL's autovacuum would analyze a table after such a load; do it now so plans are the
	// ones production sees. (SQLite has no automatic ANALYZE, so it is left without statistics.)
	if db.Dialect == store.Postgres {
		if _, err := db.PG.Exec(ctx, "ANALYZE history"); err != nil {
			tb.Fatalf("testdb: analyze: %v", err)
		}
	}
	return ids
}

func insertSQL(d store.Dialect, rows int) string {
	var b strings.Builder
	b.WriteString("INSERT INTO history (" + strings.Join(historyCols, ", ") + ") VALUES ")
	p := 0
	for r := range rows {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for c := range historyCols {
			if c > 0 {
				b.WriteString(", ")
			}
			p++
			if d == store.Postgres {
				b.WriteString("$" + strconv.Itoa(p))
			} else {
				b.WriteByte('?')
			}
		}
		b.WriteByte(')')
	}
	return b.String()
}

// seedTx runs fn in one transaction straight on the database's connections.
func seedTx(ctx context.Context, db *store.DB, fn func(exec func(q string, args []any) error) error) error {
	if db.Dialect == store.Postgres {
		tx, err := db.PG.Begin(ctx)
		if err != nil {
			return err
		}
		defer tx.Rollback(ctx) //nolint:errcheck
		if err := fn(func(q string, args []any) error { _, err := tx.Exec(ctx, q, args...); return err }); err != nil {
			return err
		}
		return tx.Commit(ctx)
	}
	tx, err := db.SQLiteDB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck
	if err := fn(func(q string, args []any) error { _, err := tx.ExecContext(ctx, q, args...); return err }); err != nil {
		return err
	}
	return tx.Commit()
}
