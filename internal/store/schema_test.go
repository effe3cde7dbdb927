package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/stdlib"

	"timbre/internal/store"
	"timbre/internal/testdb"
)

// schema is a database's tables as its catalog describes them, in terms both databases share:
// table → sorted descriptions of its columns, primary key, indexes, foreign keys and checks.
type schema map[string][]string

// intendedDifferences are the schema differences the two migration trees mean to have, each with
// its reason. Keep it tiny: every other difference fails TestMigrationTreesAgree.
var intendedDifferences = map[string]string{
	"table history: PostgreSQL has index (<expression>), SQLite does not":                       historySearch,
	"table history_fts: only in SQLite":                                                         historySearch,
	"table history_fts_config: only in SQLite":                                                  historySearch,
	"table history_fts_data: only in SQLite":                                                    historySearch,
	"table history_fts_docsize: only in SQLite":                                                 historySearch,
	"table history_fts_idx: only in SQLite":                                                     historySearch,
	"table history_fts_pending: only in SQLite":                                                 historySearch,
	"table history: SQLite has column out_of_order int NOT NULL DEFAULT …, PostgreSQL does not": historySearchOrder,
	"table history: SQLite has index (workspace_id, seq) WHERE …, PostgreSQL does not":          historySearchOrder,
}

const historySearch = "History search is an FTS5 trigram index on SQLite (a virtual table and its shadow tables) and pg_trgm GIN indexes on PostgreSQL (LOWER(text), LOWER(voice_name)): each database's own full-text machinery."

const historySearchOrder = "SQLite walks the trigram index's matches newest first by rowid, which is seq order except for the rows marked out_of_order (kept by a trigger, read from their own partial index); PostgreSQL's planner takes the GIN bitmap or the ordered page index by its statistics and needs neither."

// TestMigrationTreesAgree migrates a SQLite and a PostgreSQL database and compares their schemas,
// read from the databases' own catalogs: tables, columns (mapped type, nullability, whether they
// have a default), primary keys, indexes (columns, uniqueness, partial or not), foreign keys
// (columns, target, ON DELETE) and the number of CHECK constraints. It names every difference.
func TestMigrationTreesAgree(t *testing.T) {
	lite := readSQLiteSchema(t, testdb.SQLite(t))
	pg := readPostgresSchema(t, testdb.Postgres(t))
	if len(lite) < 10 {
		t.Fatalf("read only %d SQLite tables: %v", len(lite), lite)
	}
	diffs := schemaDiffs(lite, pg)
	for _, d := range diffs {
		if _, ok := intendedDifferences[d]; !ok {
			t.Error(d)
		}
	}
	for d := range intendedDifferences {
		if !slices.Contains(diffs, d) {
			t.Errorf("intended difference no longer found (drop it from the list): %s", d)
		}
	}
}

// schemaDiffs names every description one schema has and the other lacks.
func schemaDiffs(lite, pg schema) []string {
	var diffs []string
	for _, table := range unionKeys(lite, pg) {
		l, p := lite[table], pg[table]
		switch {
		case l == nil:
			diffs = append(diffs, fmt.Sprintf("table %s: only in PostgreSQL", table))
			continue
		case p == nil:
			diffs = append(diffs, fmt.Sprintf("table %s: only in SQLite", table))
			continue
		}
		for _, d := range l {
			if !slices.Contains(p, d) {
				diffs = append(diffs, fmt.Sprintf("table %s: SQLite has %s, PostgreSQL does not", table, d))
			}
		}
		for _, d := range p {
			if !slices.Contains(l, d) {
				diffs = append(diffs, fmt.Sprintf("table %s: PostgreSQL has %s, SQLite does not", table, d))
			}
		}
	}
	return diffs
}

// TestSchemaDiffsNameDrift: the comparison notices a column, an index and a foreign key that
// only one database has.
func TestSchemaDiffsNameDrift(t *testing.T) {
	lite := readSQLiteSchema(t, testdb.SQLite(t))
	db := testdb.Postgres(t)
	ctx := context.Background()
	for _, q := range []string{
		`ALTER TABLE users ADD COLUMN nickname TEXT`,
		`DROP INDEX sessions_user`,
		`ALTER TABLE api_keys ALTER COLUMN last_used_unix TYPE INTEGER`,
	} {
		if _, err := db.PG.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	got := slices.DeleteFunc(schemaDiffs(lite, readPostgresSchema(t, db)), func(d string) bool {
		_, intended := intendedDifferences[d]
		return intended
	})
	want := []string{
		"table users: PostgreSQL has column nickname text, SQLite does not",
		"table sessions: SQLite has index (user_id), PostgreSQL does not",
		"table api_keys: SQLite has column last_used_unix int, PostgreSQL does not",
		"table api_keys: PostgreSQL has column last_used_unix int32, SQLite does not",
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("differences:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func unionKeys(a, b schema) []string {
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// mappedType names a column type by what it stores. SQLite has no boolean: the SQLite tree keeps
// booleans as 0/1 INTEGER, so PostgreSQL's boolean maps to int like its 64-bit integers. A 32-bit
// PostgreSQL integer stays distinct: SQLite's INTEGER holds 64 bits, which it could not.
func mappedType(dialect store.Dialect, declared string) string {
	t := strings.ToLower(strings.TrimSpace(declared))
	switch {
	case dialect == store.SQLite && strings.Contains(t, "int"), t == "bigint", t == "boolean":
		return "int"
	case t == "integer", t == "smallint":
		return "int32"
	case t == "text", strings.HasPrefix(t, "character varying"), strings.HasPrefix(t, "varchar"):
		return "text"
	case t == "blob", t == "bytea":
		return "bytes"
	case t == "real", t == "double precision", t == "float":
		return "real"
	}
	return "?" + t
}

func queryStrings(t *testing.T, db *sql.DB, q string, args ...any) [][]string {
	t.Helper()
	rows, err := db.QueryContext(context.Background(), q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = v.String
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

var checkRE = regexp.MustCompile(`(?i)\bcheck\s*\(`)

func readSQLiteSchema(t *testing.T, db *store.DB) schema {
	conn := db.SQLiteDB
	s := schema{}
	for _, tr := range queryStrings(t, conn, `SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'goose_db_version'`) {
		table, ddl := tr[0], tr[1]
		var desc []string
		pkCols := map[int]string{}
		for _, c := range queryStrings(t, conn, `SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info(?)`, table) {
			notNull := c[2] == "1" || c[4] != "0" // SQLite lets a non-integer primary key hold NULL; the tree never stores one
			desc = append(desc, columnDesc(c[0], mappedType(store.SQLite, c[1]), notNull, c[3] != ""))
			if c[4] != "0" {
				var n int
				fmt.Sscan(c[4], &n)
				pkCols[n] = c[0]
			}
		}
		if len(pkCols) > 0 {
			var cols []string
			for i := 1; i <= len(pkCols); i++ {
				cols = append(cols, pkCols[i])
			}
			desc = append(desc, "primary key ("+strings.Join(cols, ", ")+")")
		}
		for _, ix := range queryStrings(t, conn, `SELECT name, "unique", origin, partial FROM pragma_index_list(?)`, table) {
			if ix[2] == "pk" {
				continue
			}
			var cols []string
			for _, c := range queryStrings(t, conn, `SELECT name FROM pragma_index_info(?) ORDER BY seqno`, ix[0]) {
				if c[0] == "" {
					c[0] = "<expression>"
				}
				cols = append(cols, c[0])
			}
			desc = append(desc, indexDesc(cols, ix[1] == "1", ix[3] == "1"))
		}
		fks := map[string]*[4]string{} // id → from, table, to, on delete
		var ids []string
		for _, fk := range queryStrings(t, conn, `SELECT id, "table", "from", "to", on_delete FROM pragma_foreign_key_list(?) ORDER BY id, seq`, table) {
			to := fk[3]
			if to == "" { // REFERENCES t without columns: t's primary key
				to = strings.Join(sqlitePK(t, conn, fk[1]), ", ")
			}
			if f, ok := fks[fk[0]]; ok {
				f[0] += ", " + fk[2]
				f[2] += ", " + to
				continue
			}
			fks[fk[0]] = &[4]string{fk[2], fk[1], to, fk[4]}
			ids = append(ids, fk[0])
		}
		for _, id := range ids {
			f := fks[id]
			desc = append(desc, fkDesc(f[0], f[1], f[2], f[3]))
		}
		if n := len(checkRE.FindAllString(ddl, -1)); n > 0 {
			desc = append(desc, fmt.Sprintf("%d CHECK constraint(s)", n))
		}
		slices.Sort(desc)
		s[table] = desc
	}
	return s
}

func sqlitePK(t *testing.T, conn *sql.DB, table string) []string {
	var cols []string
	for _, c := range queryStrings(t, conn, `SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk`, table) {
		cols = append(cols, c[0])
	}
	return cols
}

func readPostgresSchema(t *testing.T, db *store.DB) schema {
	conn := stdlib.OpenDBFromPool(db.PG) // closed with the store's pool
	s := schema{}
	for _, tr := range queryStrings(t, conn, `SELECT table_name FROM information_schema.tables
		WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> 'goose_db_version'`) {
		s[tr[0]] = nil
	}
	for _, c := range queryStrings(t, conn, `SELECT table_name, column_name, data_type, is_nullable, column_default
		FROM information_schema.columns WHERE table_schema = current_schema()`) {
		if _, ok := s[c[0]]; ok {
			s[c[0]] = append(s[c[0]], columnDesc(c[1], mappedType(store.Postgres, c[2]), c[3] == "NO", c[4] != ""))
		}
	}
	// Constraints: primary keys, foreign keys and checks. Columns come in key order.
	for _, c := range queryStrings(t, conn, `SELECT rel.relname, con.contype,
			(SELECT string_agg(a.attname, ', ' ORDER BY k.ord) FROM unnest(con.conkey) WITH ORDINALITY k(attnum, ord)
				JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum),
			ref.relname,
			(SELECT string_agg(a.attname, ', ' ORDER BY k.ord) FROM unnest(con.confkey) WITH ORDINALITY k(attnum, ord)
				JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.attnum),
			con.confdeltype
		FROM pg_constraint con
		JOIN pg_class rel ON rel.oid = con.conrelid
		JOIN pg_namespace ns ON ns.oid = rel.relnamespace AND ns.nspname = current_schema()
		LEFT JOIN pg_class ref ON ref.oid = con.confrelid
		WHERE con.contype IN ('p', 'f')`) {
		if _, ok := s[c[0]]; !ok {
			continue
		}
		switch c[1] {
		case "p":
			s[c[0]] = append(s[c[0]], "primary key ("+c[2]+")")
		case "f":
			onDelete := map[string]string{"a": "NO ACTION", "r": "RESTRICT", "c": "CASCADE", "n": "SET NULL", "d": "SET DEFAULT"}[c[5]]
			s[c[0]] = append(s[c[0]], fkDesc(c[2], c[3], c[4], onDelete))
		}
	}
	for _, c := range queryStrings(t, conn, `SELECT rel.relname, COUNT(*) FROM pg_constraint con
		JOIN pg_class rel ON rel.oid = con.conrelid
		JOIN pg_namespace ns ON ns.oid = rel.relnamespace AND ns.nspname = current_schema()
		WHERE con.contype = 'c' GROUP BY rel.relname`) {
		if _, ok := s[c[0]]; ok {
			s[c[0]] = append(s[c[0]], c[1]+" CHECK constraint(s)")
		}
	}
	// Indexes other than the primary key's; unique constraints are indexes here as in SQLite.
	for _, ix := range queryStrings(t, conn, `SELECT rel.relname, i.indisunique, i.indpred IS NOT NULL,
			(SELECT string_agg(COALESCE(a.attname, '<expression>'), ', ' ORDER BY k.ord)
				FROM unnest(i.indkey::int2[]) WITH ORDINALITY k(attnum, ord)
				LEFT JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum AND k.attnum > 0)
		FROM pg_index i
		JOIN pg_class rel ON rel.oid = i.indrelid
		JOIN pg_namespace ns ON ns.oid = rel.relnamespace AND ns.nspname = current_schema()
		WHERE NOT i.indisprimary`) {
		if _, ok := s[ix[0]]; ok {
			s[ix[0]] = append(s[ix[0]], indexDesc(strings.Split(ix[3], ", "), ix[1] == "true", ix[2] == "true"))
		}
	}
	for table := range s {
		slices.Sort(s[table])
	}
	return s
}

func columnDesc(name, typ string, notNull, hasDefault bool) string {
	d := "column " + name + " " + typ
	if notNull {
		d += " NOT NULL"
	}
	if hasDefault {
		d += " DEFAULT …"
	}
	return d
}

func indexDesc(cols []string, unique, partial bool) string {
	d := "index (" + strings.Join(cols, ", ") + ")"
	if unique {
		d = "unique " + d
	}
	if partial {
		d += " WHERE …"
	}
	return d
}

func fkDesc(from, table, to, onDelete string) string {
	return fmt.Sprintf("foreign key (%s) → %s(%s) ON DELETE %s", from, table, to, strings.ToUpper(onDelete))
}
