package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"timbre/internal/store"
)

func TestAdminSetPlanAndListUsers(t *testing.T) {
	dir := t.TempDir()
	for _, email := range []string{"first@example.com", "second@example.com"} {
		if out, err := timbre(t, "admin", "create-user", "--email", email, "--password", "long enough pw", "--data", dir); err != nil {
			t.Fatalf("create-user: %v %s", err, out)
		}
	}
	out, err := timbre(t, "admin", "set-plan", "--email", "second@example.com", "--plan", "growing_business", "--period", "annual", "--data", dir)
	if err != nil || !strings.Contains(out, "growing_business") {
		t.Fatalf("set-plan: %v %s", err, out)
	}
	for _, bad := range [][]string{
		{"--email", "second@example.com", "--plan", "platinum"},
		{"--email", "second@example.com", "--plan", "pro", "--period", "weekly"},
		{"--email", "nobody@example.com", "--plan", "pro"},
		{"--plan", "pro"},
	} {
		if out, err := timbre(t, append(append([]string{"admin", "set-plan"}, bad...), "--data", dir)...); err == nil {
			t.Errorf("set-plan %v accepted: %s", bad, out)
		}
	}
	db, err := store.Open(context.Background(), "", filepath.Join(dir, "timbre.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	u, _ := db.UserByEmail(context.Background(), "second@example.com")
	w, err := db.Workspace(context.Background(), u.WorkspaceID, time.Now())
	if err != nil || w.Tier != "growing_business" || w.BillingPeriod != "annual_period" {
		t.Fatalf("workspace after set-plan: %+v %v", w, err)
	}

	out, err = timbre(t, "admin", "list-users", "--data", dir)
	if err != nil {
		t.Fatalf("list-users: %v %s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "EMAIL") {
		t.Fatalf("list-users printed:\n%s", out)
	}
	for i, want := range [][]string{{"first@example.com", "1", "free", "monthly"}, {"second@example.com", "1", "growing_business", "annual"}} {
		fields := strings.Fields(lines[i+1])
		if fields[0] != want[0] || !strings.Contains(lines[i+1], " "+want[1]+" ") || !strings.Contains(lines[i+1], want[2]) || !strings.Contains(lines[i+1], want[3]) {
			t.Errorf("row %d = %q, want %v", i+1, lines[i+1], want)
		}
	}
	t.Logf("\n%s", out)
}
