package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"timbre/internal/store"
	"timbre/internal/voice"
)

func TestAdminSetPlanAndListUsers(t *testing.T) {
	dir := t.TempDir()
	for _, email := range []string{"first@example.com", "second@example.com"} {
		if out, err := timbre(t, "admin", "create-user", "--email", email, "--password", "long enough pw", "--data", dir); err != nil {
			t.Fatalf("create-user: %v %s", err, out)
		}
	}
	out, err := timbre(t, "admin", "set-plan", "--email", "second@example.com", "--plan", "growing_business", "--period", "annual", "--extra-pvc-slots", "2", "--data", dir)
	if err != nil || !strings.Contains(out, "growing_business") || !strings.Contains(out, "3 professional voices") {
		t.Fatalf("set-plan: %v %s", err, out)
	}
	for _, bad := range [][]string{
		{"--email", "second@example.com", "--plan", "platinum"},
		{"--email", "second@example.com", "--plan", "pro", "--period", "weekly"},
		{"--email", "second@example.com", "--plan", "pro", "--extra-pvc-slots", "-5"},
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
	if err != nil || w.Tier != "growing_business" || w.BillingPeriod != "annual_period" || w.ExtraProVoiceSlots != 2 {
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

// TestAdminVoiceSafety: voice-safety sets, changes and clears a voice's safety_control in the
// database; bad arguments and unknown voices are refused and change nothing.
func TestAdminVoiceSafety(t *testing.T) {
	dir := t.TempDir()
	if out, err := timbre(t, "admin", "create-user", "--email", "owner@example.com", "--password", "long enough pw", "--data", dir); err != nil {
		t.Fatalf("create-user: %v %s", err, out)
	}
	ctx := context.Background()
	db, err := store.Open(ctx, "", filepath.Join(dir, "timbre.db"))
	if err != nil {
		t.Fatal(err)
	}
	u, _ := db.UserByEmail(ctx, "owner@example.com")
	if err := db.InTx(ctx, func(tx *store.Tx) error {
		return tx.CreateVoice(ctx, store.Voice{ID: "SafetyVoice000000001", WorkspaceID: u.WorkspaceID, Name: "Clone", Category: "cloned",
			Labels: "{}", Engine: "flite", EngineVoice: "rms", Language: "en", Prosody: "{}", CreatedAt: time.Now().Unix()})
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	control := func() string {
		db, err := store.Open(ctx, "", filepath.Join(dir, "timbre.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		s, err := db.VoiceSafetyOf(ctx, "SafetyVoice000000001")
		if err != nil {
			t.Fatal(err)
		}
		return s.Control
	}
	for _, c := range []struct{ set, want string }{{"captcha", "CAPTCHA"}, {"BAN", "BAN"}, {"none", "NONE"}, {"ban", "BAN"}} {
		out, err := timbre(t, "admin", "voice-safety", "--voice", "SafetyVoice000000001", "--set", c.set, "--data", dir)
		if err != nil || !strings.Contains(out, "safety_control "+c.want) {
			t.Fatalf("voice-safety --set %s: %v %s", c.set, err, out)
		}
		if got := control(); got != c.want {
			t.Fatalf("after --set %s the voice's control is %s", c.set, got)
		}
	}
	for _, bad := range [][]string{
		{"--voice", "SafetyVoice000000001", "--set", "mute"},
		{"--voice", "SafetyVoice000000001"},
		{"--set", "captcha"},
		{"--voice", "NoSuchVoice", "--set", "captcha"},
	} {
		if out, err := timbre(t, append(append([]string{"admin", "voice-safety"}, bad...), "--data", dir)...); err == nil {
			t.Errorf("voice-safety %v accepted: %s", bad, out)
		}
	}
	if got := control(); got != "BAN" {
		t.Fatalf("refused commands changed the control to %s", got)
	}
}

// TestAdminPVCVerify: an operator approves a professional voice's manual verification; an
// unknown voice or a voice that is not professional is refused.
func TestAdminPVCVerify(t *testing.T) {
	dir := t.TempDir()
	if out, err := timbre(t, "admin", "create-user", "--email", "ops@example.com", "--password", "long enough pw", "--data", dir); err != nil {
		t.Fatalf("create-user: %v %s", err, out)
	}
	ctx := context.Background()
	db, err := store.Open(ctx, "", filepath.Join(dir, "timbre.db"))
	if err != nil {
		t.Fatal(err)
	}
	u, _ := db.UserByEmail(ctx, "ops@example.com")
	st := voice.ParsePVC("")
	st.Language, st.ManualRequested = "en", true
	pvcJSON, _ := json.Marshal(st)
	err = db.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.CreateVoice(ctx, store.Voice{ID: "pvcvoice000000000001", WorkspaceID: u.WorkspaceID, Name: "P", Category: "professional",
			Labels: "{}", Engine: "flite", EngineVoice: "slt", Language: "en", PVC: string(pvcJSON)}); err != nil {
			return err
		}
		return tx.CreateVoice(ctx, store.Voice{ID: "ivcvoice000000000001", WorkspaceID: u.WorkspaceID, Name: "I", Category: "cloned",
			Labels: "{}", Engine: "flite", EngineVoice: "slt", Language: "en"})
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"nosuchvoice", "ivcvoice000000000001"} {
		if out, err := timbre(t, "admin", "pvc-verify", "--email", "ops@example.com", "--voice-id", bad, "--data", dir); err == nil {
			t.Errorf("pvc-verify %s accepted: %s", bad, out)
		}
	}
	if out, err := timbre(t, "admin", "pvc-verify", "--email", "ops@example.com", "--voice-id", "pvcvoice000000000001", "--data", dir); err != nil {
		t.Fatalf("pvc-verify: %v %s", err, out)
	}
	db, err = store.Open(ctx, "", filepath.Join(dir, "timbre.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	v, err := db.Voice(ctx, u.WorkspaceID, "pvcvoice000000000001")
	if err != nil || !voice.ParsePVC(v.PVC).Verified {
		t.Fatalf("after pvc-verify: %+v %v", v, err)
	}
}

// TestAdminVoiceFeature: voice-feature features a published library voice and stops featuring
// it; an unpublished voice and bad arguments are refused.
func TestAdminVoiceFeature(t *testing.T) {
	dir := t.TempDir()
	if out, err := timbre(t, "admin", "create-user", "--email", "owner@example.com", "--password", "long enough pw", "--data", dir); err != nil {
		t.Fatalf("create-user: %v %s", err, out)
	}
	ctx := context.Background()
	open := func() *store.DB {
		db, err := store.Open(ctx, "", filepath.Join(dir, "timbre.db"))
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	db := open()
	u, _ := db.UserByEmail(ctx, "owner@example.com")
	for _, id := range []string{"FeatureVoice00000001", "PrivateVoice00000001"} {
		if err := db.InTx(ctx, func(tx *store.Tx) error {
			return tx.CreateVoice(ctx, store.Voice{ID: id, WorkspaceID: u.WorkspaceID, Name: "Clone", Category: "cloned",
				Labels: "{}", Engine: "flite", EngineVoice: "rms", Language: "en", Prosody: "{}", CreatedAt: time.Now().Unix()})
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.UpsertVoiceShare(ctx, store.VoiceShare{VoiceID: "FeatureVoice00000001", WorkspaceID: u.WorkspaceID, PublicOwnerID: "owner",
		Status: "enabled", DateUnix: time.Now().Unix()}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	featured := func() []store.LibraryVoice {
		db := open()
		defer db.Close()
		vs, _, err := db.ListLibrary(ctx, store.LibraryFilter{Featured: true})
		if err != nil {
			t.Fatal(err)
		}
		return vs
	}
	if out, err := timbre(t, "admin", "voice-feature", "--voice", "FeatureVoice00000001", "--set", "on", "--data", dir); err != nil || !strings.Contains(out, "featured on") {
		t.Fatalf("voice-feature on: %v %s", err, out)
	}
	if vs := featured(); len(vs) != 1 || vs[0].ID != "FeatureVoice00000001" || !vs[0].Share.Featured {
		t.Fatalf("featured after on: %+v", vs)
	}
	for _, bad := range [][]string{
		{"--voice", "PrivateVoice00000001", "--set", "on"},
		{"--voice", "FeatureVoice00000001", "--set", "yes"},
		{"--set", "on"},
	} {
		if out, err := timbre(t, append(append([]string{"admin", "voice-feature"}, bad...), "--data", dir)...); err == nil {
			t.Errorf("voice-feature %v accepted: %s", bad, out)
		}
	}
	if out, err := timbre(t, "admin", "voice-feature", "--voice", "FeatureVoice00000001", "--set", "off", "--data", dir); err != nil {
		t.Fatalf("voice-feature off: %v %s", err, out)
	}
	if vs := featured(); len(vs) != 0 {
		t.Fatalf("featured after off: %+v", vs)
	}
}
