package secret_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"timbre/internal/secret"
)

func TestLoadKey(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	k1, err := secret.LoadKey(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, secret.KeyFile))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("secret.key mode %v, want 0600", fi.Mode().Perm())
	}
	raw, _ := os.ReadFile(filepath.Join(dir, secret.KeyFile))
	if len(strings.TrimSpace(string(raw))) != 64 {
		t.Fatalf("secret.key holds %q, want 64 hex digits", raw)
	}
	k2, _ := secret.LoadKey(dir, "")
	if !bytes.Equal(k1, k2) || len(k1) != 32 {
		t.Fatal("the key changed between starts")
	}
	kEnv, err := secret.LoadKey(dir, strings.Repeat("ab", 32))
	if err != nil || bytes.Equal(kEnv, k1) || kEnv[0] != 0xab {
		t.Fatalf("TIMBRE_SECRET_KEY not used: %v", err)
	}
	kPass, err := secret.LoadKey(dir, "an operator passphrase")
	if err != nil || len(kPass) != 32 || bytes.Equal(kPass, k1) {
		t.Fatalf("passphrase: %v", err)
	}
	if _, err := secret.LoadKey(dir, "short"); err == nil {
		t.Fatal("a short key was accepted")
	}
	// A raw 32-byte file is read as it is.
	rawDir := t.TempDir()
	want := bytes.Repeat([]byte{9}, 32)
	os.WriteFile(filepath.Join(rawDir, secret.KeyFile), want, 0o600)
	if got, err := secret.LoadKey(rawDir, ""); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("raw key file: %x %v", got, err)
	}
}

func TestBox(t *testing.T) {
	box, err := secret.Load(t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	sealed, err := box.Seal("wsec_topsecret", "purpose-a")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(sealed, "topsecret") {
		t.Fatal("sealed text shows the secret")
	}
	if again, _ := box.Seal("wsec_topsecret", "purpose-a"); again == sealed {
		t.Fatal("sealing is deterministic (nonce reused)")
	}
	if got, err := box.Open(sealed, "purpose-a"); err != nil || got != "wsec_topsecret" {
		t.Fatalf("Open = %q, %v", got, err)
	}
	if _, err := box.Open(sealed, "purpose-b"); err == nil {
		t.Fatal("opened with another purpose")
	}
	other, _ := secret.NewBox(bytes.Repeat([]byte{7}, 32))
	if _, err := other.Open(sealed, "purpose-a"); err == nil {
		t.Fatal("another key opened the box")
	}
	for _, bad := range []string{"", "plain", "v1:!!!", "v1:AAAA"} {
		if _, err := box.Open(bad, "purpose-a"); err == nil {
			t.Errorf("Open(%q) succeeded", bad)
		}
	}
	if _, err := secret.NewBox(make([]byte, 16)); err == nil {
		t.Fatal("a 16-byte key was accepted")
	}
}

func TestDerive(t *testing.T) {
	key := bytes.Repeat([]byte{7}, 32)
	b, err := secret.NewBox(key)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := secret.NewBox(key)
	other, _ := secret.NewBox(bytes.Repeat([]byte{8}, 32))
	wm := b.Derive("watermark")
	switch {
	case len(wm) != 32:
		t.Fatalf("derived key is %d bytes", len(wm))
	case !bytes.Equal(wm, again.Derive("watermark")):
		t.Fatal("the same key and purpose derive different keys")
	case bytes.Equal(wm, b.Derive("other")), bytes.Equal(wm, other.Derive("watermark")):
		t.Fatal("another purpose or server key derives the same key")
	case bytes.Equal(wm, key):
		t.Fatal("the derived key is the server key")
	}
}
