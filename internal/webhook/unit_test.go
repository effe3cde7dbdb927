package webhook_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"timbre/internal/webhook"
)

func TestSignAndVerify(t *testing.T) {
	now := time.Unix(1_760_000_000, 0)
	body := []byte(`{"type":"speech_to_text_transcription","data":{"x":1}}`)
	h := webhook.Sign("wsec_secret", now, body)
	if !strings.HasPrefix(h, "t=1760000000,v0=") || len(h) != len("t=1760000000,v0=")+64 {
		t.Fatalf("header %q is not t=<unix>,v0=<64 hex>", h)
	}
	// A receiver's independent computation: HMAC-SHA256 over "<t>.<body>".
	if err := webhook.Verify("wsec_secret", body, h, 0, now.Add(time.Minute)); err != nil {
		t.Fatalf("valid signature refused: %v", err)
	}
	cases := []struct {
		name, secret, header string
		body                 []byte
		at                   time.Time
		want                 error
	}{
		{"tampered body", "wsec_secret", h, []byte(`{"type":"x"}`), now, webhook.ErrBadSignature},
		{"wrong secret", "wsec_other", h, body, now, webhook.ErrBadSignature},
		{"too old", "wsec_secret", h, body, now.Add(31 * time.Minute), webhook.ErrStaleTimestamp},
		{"from the future", "wsec_secret", h, body, now.Add(-31 * time.Minute), webhook.ErrStaleTimestamp},
		{"missing", "wsec_secret", "", body, now, webhook.ErrNoSignature},
		{"no v0", "wsec_secret", "t=1760000000", body, now, webhook.ErrNoSignature},
		{"timestamp swapped", "wsec_secret", strings.Replace(h, "t=1760000000", "t=1760000001", 1), body, now, webhook.ErrBadSignature},
	}
	for _, c := range cases {
		if err := webhook.Verify(c.secret, c.body, c.header, 0, c.at); !errors.Is(err, c.want) {
			t.Errorf("%s: Verify = %v, want %v", c.name, err, c.want)
		}
	}
	// While a secret rotates, any v0 may match.
	both := h[:strings.Index(h, ",")] + ",v0=" + strings.Repeat("0", 64) + h[strings.Index(h, ","):]
	if err := webhook.Verify("wsec_secret", body, both, 0, now); err != nil {
		t.Fatalf("second v0 not accepted: %v", err)
	}
}

func TestGuardBlocksInternalAddresses(t *testing.T) {
	var g webhook.Guard
	blocked := []string{"127.0.0.1", "127.8.9.10", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254", "169.254.0.1",
		"100.64.0.1", "100.127.255.254", "0.0.0.0", "224.0.0.1", "255.255.255.255", "::1", "::", "fc00::1", "fd00:ec2::254", "fe80::1",
		"ff02::1", "::ffff:127.0.0.1", "::ffff:169.254.169.254"}
	for _, s := range blocked {
		if !g.Blocked(netip.MustParseAddr(s)) {
			t.Errorf("%s is not blocked", s)
		}
	}
	for _, s := range []string{"93.184.216.34", "8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:4700::1111"} {
		if g.Blocked(netip.MustParseAddr(s)) {
			t.Errorf("public %s is blocked", s)
		}
	}
	allow, err := webhook.ParseCIDRs("127.0.0.1, 10.5.0.0/16")
	if err != nil {
		t.Fatal(err)
	}
	g2 := webhook.Guard{Allow: allow}
	if g2.Blocked(netip.MustParseAddr("127.0.0.1")) || g2.Blocked(netip.MustParseAddr("10.5.3.4")) {
		t.Error("allowed ranges still blocked")
	}
	if !g2.Blocked(netip.MustParseAddr("127.0.0.2")) || !g2.Blocked(netip.MustParseAddr("10.6.0.1")) {
		t.Error("allow list opened more than it lists")
	}
	if (&webhook.Guard{AllowPrivate: true}).Blocked(netip.MustParseAddr("169.254.169.254")) {
		t.Error("AllowPrivate still blocks")
	}
	if _, err := webhook.ParseCIDRs("10.0.0.0/33"); err == nil {
		t.Error("bad CIDR accepted")
	}

	ctx := context.Background()
	for _, u := range []string{"https://127.0.0.1/hook", "https://[::1]:8443/x", "https://169.254.169.254/latest/meta-data", "https://10.0.0.5/",
		"https://localhost/x", "https://api.localhost/x", "http://93.184.216.34/", "ftp://93.184.216.34/", "javascript:alert(1)", "https:///nohost", "not a url",
		"https://[fd00:ec2::254]/"} {
		if err := g.CheckURL(ctx, u); err == nil {
			t.Errorf("CheckURL(%q) accepted", u)
		}
	}
	if err := g.CheckURL(ctx, "https://93.184.216.34/hook"); err != nil {
		t.Errorf("public https URL refused: %v", err)
	}
	if err := (&webhook.Guard{AllowHTTP: true}).CheckURL(ctx, "http://93.184.216.34/hook"); err != nil {
		t.Errorf("http refused although allowed: %v", err)
	}
}

// TestGuardRefusesAtDialTime proves the check runs on the address actually dialled: a loopback
// server is unreachable through the guarded client unless the operator allows loopback.
func TestGuardRefusesAtDialTime(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	// A host name that resolves to loopback, so the refusal happens after DNS, not on the literal.
	u := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)

	_, err := (&webhook.Guard{AllowHTTP: true}).Client(5*time.Second).Post(u, "application/json", strings.NewReader("{}"))
	if !errors.Is(err, webhook.ErrBlockedAddress) {
		t.Fatalf("dial to loopback: err = %v, want ErrBlockedAddress", err)
	}
	if hits.Load() != 0 {
		t.Fatal("the request reached the server")
	}
	allow, _ := webhook.ParseCIDRs("127.0.0.1/32,::1/128")
	resp, err := (&webhook.Guard{AllowHTTP: true, Allow: allow}).Client(5*time.Second).Post(u, "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatalf("allowed loopback refused: %v", err)
	}
	resp.Body.Close()
	if hits.Load() != 1 {
		t.Fatalf("hits = %d, want 1", hits.Load())
	}
}

func TestSecretKeyAndBox(t *testing.T) {
	dir := t.TempDir()
	k1, err := webhook.LoadKey(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, webhook.SecretKeyFile))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("secret.key mode %v, want 0600", fi.Mode().Perm())
	}
	k2, _ := webhook.LoadKey(dir, "")
	if string(k1) != string(k2) || len(k1) != 32 {
		t.Fatal("the key changed between starts")
	}
	kEnv, err := webhook.LoadKey(dir, strings.Repeat("ab", 32))
	if err != nil || string(kEnv) == string(k1) || kEnv[0] != 0xab {
		t.Fatalf("TIMBRE_SECRET_KEY not used: %v", err)
	}
	if _, err := webhook.LoadKey(dir, "short"); err == nil {
		t.Fatal("a short key was accepted")
	}

	box, _ := webhook.NewBox(k1)
	sealed, err := box.Seal("wsec_topsecret")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(sealed, "topsecret") {
		t.Fatal("sealed text shows the secret")
	}
	again, _ := box.Seal("wsec_topsecret")
	if again == sealed {
		t.Fatal("sealing is deterministic (nonce reused)")
	}
	if got, err := box.Open(sealed); err != nil || got != "wsec_topsecret" {
		t.Fatalf("Open = %q, %v", got, err)
	}
	other, _ := webhook.NewBox(kEnv)
	if _, err := other.Open(sealed); err == nil {
		t.Fatal("another key opened the box")
	}
}
