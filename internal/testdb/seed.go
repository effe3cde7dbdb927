package testdb

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"timbre/internal/store"
)

// seedChunkRows is how many rows one statement (and transaction) adds on SQLite, so the
// write-ahead log is checkpointed as the load goes instead of growing by the whole table.
const seedChunkRows = 100_000

// SeedHistory bulk-inserts n created history rows into a workspace (which must exist), fast: the
// database makes the rows itself (INSERT … SELECT from generate_series on PostgreSQL, from a
// recursive counter on SQLite), so nothing crosses the connection per row. Row i (0-based) has
// seq seqStart+i and date start+i seconds, so newest-first order is the reverse of the returned
// ids. Voices, models and sources vary so filters have something to select. SQLite's search index
// follows through its triggers; PostgreSQL's trigram indexes are built again after a large seed.
func SeedHistory(tb testing.TB, db *store.DB, workspaceID, userID string, n int, seqStart int64, start time.Time) []string {
	tb.Helper()
	ctx := context.Background()
	// An id is a random prefix and the row's number: unique across calls, and made by the
	// database from the same rule.
	prefix := store.RandomString(8)
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("%s%012d", prefix, i)
	}
	args := []any{prefix, workspaceID, userID, start.Unix(), seqStart}
	if db.Dialect == store.Postgres {
		seedPostgres(tb, db, seedInsert("$1 || lpad(i::text, 12, '0')")+` FROM generate_series(0, $6::bigint - 1) AS i`, append(args, n), n >= 10_000)
		// Autovacuum would vacuum and analyze the table after such a load; do it now so plans and
		// visibility are the ones production sees.
		if _, err := db.PG.Exec(ctx, "VACUUM ANALYZE history"); err != nil {
			tb.Fatalf("testdb: analyze: %v", err)
		}
		return ids
	}
	q := `WITH RECURSIVE c(i) AS (SELECT ?6 UNION ALL SELECT i + 1 FROM c WHERE i + 1 < ?7) ` +
		strings.ReplaceAll(seedInsert("$1 || printf('%012d', i)"), "$", "?") + ` FROM c`
	for from := 0; from < n; from += seedChunkRows {
		if _, err := db.SQLiteDB.ExecContext(ctx, q, append(args, from, min(from+seedChunkRows, n))...); err != nil {
			tb.Fatalf("testdb: seed history: %v", err)
		}
	}
	return ids
}

// seedInsert is the INSERT … SELECT of seed rows from a source of row numbers i ($1 the id
// prefix, $2 the workspace, $3 the user, $4 the first date, $5 the first seq); id is the
// dialect's expression of row i's id.
func seedInsert(id string) string {
	voice := `CASE i % 5 WHEN 0 THEN 'Rachel' WHEN 1 THEN 'Adam' WHEN 2 THEN 'Bella' WHEN 3 THEN 'Antoni' ELSE 'Elli' END`
	text := `'Seeded generation ' || i || ': the quick brown fox jumps over the lazy dog while ' || ` + voice + ` || ' reads it aloud.'`
	return `INSERT INTO history (id, workspace_id, user_id, request_id, voice_id, voice_name, voice_category,
	model_id, text, settings, date_unix, seq, char_from, char_to, content_type, output_format, source, state, blob_key)
SELECT ` + id + `, $2, $3, 'req_' || ` + id + `, 'voice_' || (i % 5), ` + voice + `, 'premade',
	CASE i % 3 WHEN 0 THEN 'eleven_multilingual_v2' WHEN 1 THEN 'eleven_flash_v2_5' ELSE 'eleven_turbo_v2_5' END,
	` + text + `, '{"stability":0.5,"similarity_boost":0.75}', $4 + i, $5 + i, i * 100, i * 100 + LENGTH(` + text + `),
	'audio/mpeg', 'mp3_44100_128', CASE i % 10 WHEN 9 THEN 'STS' ELSE 'TTS' END, '` + store.StateCreated + `', 'history/' || ` + id + ` || '.mp3'`
}

// seedPostgres runs the seed's INSERT; when rebuild, history's trigram (GIN) indexes are dropped
// before it and built again after: they take each insert at once (no pending list, migration
// 00018), which made a million-row seed take many minutes, and one build of each is much quicker.
func seedPostgres(tb testing.TB, db *store.DB, insert string, args []any, rebuild bool) {
	ctx := context.Background()
	conn, err := db.PG.Acquire(ctx)
	if err != nil {
		tb.Fatalf("testdb: seed history: %v", err)
	}
	defer conn.Release()
	var defs, names []string
	if !rebuild {
		if _, err := conn.Exec(ctx, insert, args...); err != nil {
			tb.Fatalf("testdb: seed history: %v", err)
		}
		return
	}
	rows, err := conn.Query(ctx, `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'history' AND indexdef LIKE '% USING gin %'`)
	if err == nil {
		for rows.Next() {
			var name, def string
			if err = rows.Scan(&name, &def); err != nil {
				break
			}
			names, defs = append(names, name), append(defs, def)
		}
		rows.Close()
		err = cmp.Or(err, rows.Err())
	}
	for _, name := range names {
		if err == nil {
			_, err = conn.Exec(ctx, "DROP INDEX "+pgx.Identifier{name}.Sanitize())
		}
	}
	if err == nil {
		_, err = conn.Exec(ctx, insert, args...)
	}
	if err == nil {
		_, err = conn.Exec(ctx, "SET maintenance_work_mem = '256MB'")
	}
	for _, def := range defs {
		if err == nil {
			_, err = conn.Exec(ctx, def)
		}
	}
	if err == nil {
		_, err = conn.Exec(ctx, "RESET maintenance_work_mem")
	}
	if err != nil {
		tb.Fatalf("testdb: seed history: %v", err)
	}
}
