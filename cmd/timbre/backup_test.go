package main

import (
	"bytes"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"timbre/internal/testdb"
)

// historyRows reads id → (state, blob_key) of every history row of the SQLite file at path.
func historyRows(t *testing.T, path string) map[string][2]string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT id, state, blob_key FROM history`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][2]string{}
	for rows.Next() {
		var id, state, key string
		if err := rows.Scan(&id, &state, &key); err != nil {
			t.Fatal(err)
		}
		out[id] = [2]string{state, key}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestBackupUnderWriteLoadAndRestore backs up a running server's data directory while speech
// requests keep adding history rows and audio, restores it into a fresh directory, and checks
// that every row of the backup moment is there with its audio, byte for byte, and that a server
// on the restored directory serves it.
func TestBackupUnderWriteLoadAndRestore(t *testing.T) {
	dir := t.TempDir()
	if _, err := timbre(t, "admin", "create-user", "--email", "ops@example.com", "--password", "long enough pw", "--data", dir); err != nil {
		t.Fatal(err)
	}
	if _, err := timbre(t, "admin", "set-plan", "--email", "ops@example.com", "--plan", "pro", "--data", dir); err != nil {
		t.Fatal(err)
	}
	out, err := timbre(t, "admin", "create-api-key", "--email", "ops@example.com", "--name", "k", "--data", dir)
	if err != nil {
		t.Fatal(err)
	}
	key := strings.TrimSpace(out[strings.LastIndex(strings.TrimSpace(out), "\n")+1:])
	srv := startServer(t, "--data", dir)

	speak := func(i int) error {
		req, _ := http.NewRequest("POST", srv.base+"/v1/text-to-speech/EXAVITQu4vr4xnSDxMaL?output_format=pcm_16000",
			strings.NewReader(fmt.Sprintf(`{"text":"Backup load sentence number %d."}`, i)))
		req.Header.Set("xi-api-key", key)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		defer res.Body.Close()
		if _, err := io.Copy(io.Discard, res.Body); err != nil {
			return err
		}
		if res.StatusCode != 200 {
			return fmt.Errorf("status %d", res.StatusCode)
		}
		return nil
	}
	for i := range 5 {
		if err := speak(i); err != nil {
			t.Fatal(err)
		}
	}
	// The write load: requests until told to stop.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var done atomic.Int64
	for g := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if err := speak(1000*(g+1) + i); err != nil {
					t.Error(err)
					return
				}
				done.Add(1)
			}
		}()
	}
	time.Sleep(500 * time.Millisecond)

	srcDB := filepath.Join(dir, "timbre.db")
	before := historyRows(t, srcDB) // every row here must be in the backup
	archive := filepath.Join(t.TempDir(), "backup.tar.gz")
	out, err = timbre(t, "backup", "--out", archive, "--data", dir)
	if err != nil {
		t.Fatalf("backup: %v %s", err, out)
	}
	atBackup := done.Load()
	time.Sleep(300 * time.Millisecond)
	close(stop)
	wg.Wait()
	after := historyRows(t, srcDB)
	t.Logf("%s; %d rows before, %d after, %d requests done by the end of the backup", strings.TrimSpace(out), len(before), len(after), atBackup)
	if len(after) <= len(before) {
		t.Fatalf("no writes while backing up (%d rows before, %d after)", len(before), len(after))
	}

	// Restoring over a running server's directory is refused.
	if out, err := timbre(t, "restore", "--in", archive, "--data", dir, "--force"); err == nil || !strings.Contains(err.Error(), "running") {
		t.Fatalf("restore over a running server: %v %s", err, out)
	}
	fresh := filepath.Join(t.TempDir(), "restored")
	if out, err := timbre(t, "restore", "--in", archive, "--data", fresh); err != nil {
		t.Fatalf("restore: %v %s", err, out)
	}
	if out, err := timbre(t, "restore", "--in", archive, "--data", fresh); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("restore into a non-empty directory: %v %s", err, out)
	}
	if out, err := timbre(t, "restore", "--in", archive, "--data", fresh, "--force"); err != nil {
		t.Fatalf("restore --force: %v %s", err, out)
	}

	restored := historyRows(t, filepath.Join(fresh, "timbre.db"))
	for id, row := range before {
		got, ok := restored[id]
		if !ok {
			t.Errorf("history row %s (%s before the backup) is missing", id, row[0])
			continue
		}
		if row[0] == "created" && got != row {
			t.Errorf("history row %s: %v, before the backup %v", id, got, row)
		}
	}
	for id, row := range restored {
		if _, ok := after[id]; !ok {
			t.Errorf("restored row %s never existed", id)
		}
		if row[0] != "created" {
			continue // in flight at the backup moment: its audio came later
		}
		want, err := os.ReadFile(filepath.Join(dir, "blobs", row[1]))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(fresh, "blobs", row[1]))
		if err != nil || !bytes.Equal(got, want) || len(got) == 0 {
			t.Errorf("audio of row %s: %d bytes restored (%v), %d in the source", id, len(got), err, len(want))
		}
	}
	if _, err := os.Stat(filepath.Join(fresh, "secret.key")); err != nil {
		t.Errorf("server key not restored: %v", err)
	}

	// A server on the restored directory knows the key and serves the audio.
	restoredSrv := startServer(t, "--data", fresh)
	for id, row := range restored {
		if row[0] != "created" {
			continue
		}
		req, _ := http.NewRequest("GET", restoredSrv.base+"/v1/history/"+id+"/audio", nil)
		req.Header.Set("xi-api-key", key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		want, _ := os.ReadFile(filepath.Join(dir, "blobs", row[1]))
		if res.StatusCode != 200 || !bytes.Equal(body, want) {
			t.Fatalf("GET audio of %s on the restored server: %d, %d bytes (want %d)", id, res.StatusCode, len(body), len(want))
		}
		break
	}
}

func TestBackupRefusesPostgres(t *testing.T) {
	_, url := testdb.PostgresWithURL(t)
	out, err := timbre(t, "backup", "--out", filepath.Join(t.TempDir(), "x.tar.gz"), "--database-url", url, "--data", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "pg_dump") {
		t.Fatalf("backup of PostgreSQL: %v %s", err, out)
	}
}
