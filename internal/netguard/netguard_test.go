package netguard_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"timbre/internal/netguard"
)

func TestBlocksInternalAddresses(t *testing.T) {
	var g netguard.Guard
	blocked := []string{"127.0.0.1", "127.8.9.10", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254", "169.254.0.1",
		"100.64.0.1", "100.127.255.254", "0.0.0.0", "224.0.0.1", "255.255.255.255", "::1", "::", "fc00::1", "fd00:ec2::254", "fe80::1",
		"ff02::1", "::ffff:127.0.0.1", "::ffff:169.254.169.254", "64:ff9b::a00:1", "198.18.0.1"}
	for _, s := range blocked {
		if !g.Blocked(netip.MustParseAddr(s)) {
			t.Errorf("%s is not blocked", s)
		}
		var nilGuard *netguard.Guard
		if !nilGuard.Blocked(netip.MustParseAddr(s)) {
			t.Errorf("nil guard: %s is not blocked", s)
		}
	}
	for _, s := range []string{"93.184.216.34", "8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:4700::1111"} {
		if g.Blocked(netip.MustParseAddr(s)) {
			t.Errorf("public %s is blocked", s)
		}
	}
	allow, err := netguard.ParseCIDRs("127.0.0.1, 10.5.0.0/16")
	if err != nil {
		t.Fatal(err)
	}
	g2 := netguard.Guard{Allow: allow}
	if g2.Blocked(netip.MustParseAddr("127.0.0.1")) || g2.Blocked(netip.MustParseAddr("10.5.3.4")) {
		t.Error("allowed ranges still blocked")
	}
	if !g2.Blocked(netip.MustParseAddr("127.0.0.2")) || !g2.Blocked(netip.MustParseAddr("10.6.0.1")) {
		t.Error("allow list opened more than it lists")
	}
	if (&netguard.Guard{AllowPrivate: true}).Blocked(netip.MustParseAddr("169.254.169.254")) {
		t.Error("AllowPrivate still blocks")
	}
	if _, err := netguard.ParseCIDRs("10.0.0.0/33"); err == nil {
		t.Error("bad CIDR accepted")
	}
}

func TestCheckHost(t *testing.T) {
	ctx := context.Background()
	var g netguard.Guard
	for _, h := range []string{"127.0.0.1", "::1", "[::1]", "169.254.169.254", "10.0.0.5", "localhost", "api.localhost", "LOCALHOST.", "fd00:ec2::254"} {
		if err := g.CheckHost(ctx, h); !errors.Is(err, netguard.ErrBlocked) {
			t.Errorf("CheckHost(%q) = %v, want ErrBlocked", h, err)
		}
	}
	if err := g.CheckHost(ctx, "93.184.216.34"); err != nil {
		t.Errorf("public address refused: %v", err)
	}
	allow, _ := netguard.ParseCIDRs("127.0.0.1")
	if err := (&netguard.Guard{Allow: allow}).CheckHost(ctx, "localhost"); err != nil {
		t.Errorf("allowed loopback refused: %v", err)
	}
}

// TestRefusesAtDialTime proves the check runs on the address actually dialled: a loopback
// server is unreachable through the guarded client unless the operator allows loopback.
func TestRefusesAtDialTime(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, "/done", http.StatusFound)
		}
	}))
	defer srv.Close()
	// A host name that resolves to loopback, so the refusal happens after DNS, not on the literal.
	u := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)

	_, err := (&netguard.Guard{}).Client(netguard.ClientOptions{Timeout: 5 * time.Second}).Post(u, "application/json", strings.NewReader("{}"))
	if !errors.Is(err, netguard.ErrBlocked) {
		t.Fatalf("dial to loopback: err = %v, want ErrBlocked", err)
	}
	if hits.Load() != 0 {
		t.Fatal("the request reached the server")
	}
	allow, _ := netguard.ParseCIDRs("127.0.0.1/32,::1/128")
	g := &netguard.Guard{Allow: allow}
	resp, err := g.Client(netguard.ClientOptions{Timeout: 5 * time.Second}).Post(u, "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatalf("allowed loopback refused: %v", err)
	}
	resp.Body.Close()
	if hits.Load() != 1 {
		t.Fatalf("hits = %d, want 1", hits.Load())
	}
	// Redirects: none followed by default, followed when asked.
	resp, err = g.Client(netguard.ClientOptions{}).Get(u + "/redirect")
	if err != nil || resp.StatusCode != http.StatusFound {
		t.Fatalf("redirect without following: %v %v", resp, err)
	}
	resp.Body.Close()
	resp, err = g.Client(netguard.ClientOptions{MaxRedirects: 3}).Get(u + "/redirect")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("redirect followed: %v %v", resp, err)
	}
	resp.Body.Close()
}

// The numeric host forms the system resolver accepts (inet_aton) are read as the addresses a
// dial would reach, so a webhook URL cannot name loopback or metadata as a bare number.
func TestCheckHostNumericForms(t *testing.T) {
	ctx := context.Background()
	var g netguard.Guard
	for _, h := range []string{"2130706433", "0x7f.1", "127.1", "0177.0.0.1", "0x7f000001", "0X7F.0.0.1", "127.0.1", "10.1", "169.254.43518",
		"0xa9.0xfe.0xa9.0xfe", "0", "127.1."} {
		if err := g.CheckHost(ctx, h); !errors.Is(err, netguard.ErrBlocked) {
			t.Errorf("CheckHost(%q) = %v, want ErrBlocked", h, err)
		}
	}
	// Public addresses written the same ways stay allowed: 8.8.8.8.
	for _, h := range []string{"134744072", "0x8.0x8.0x8.0x8", "8.526344", "010.010.010.010"} {
		if err := g.CheckHost(ctx, h); err != nil {
			t.Errorf("CheckHost(%q) = %v, want nil", h, err)
		}
	}
}
