package server

import (
	"net/http/httptest"
	"net/netip"
	"testing"
)

func TestClientAddrBehindTrustedProxies(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("127.0.0.1/32")}
	cases := []struct {
		name, peer, xff, want string
		trusted               []netip.Prefix
	}{
		{"no proxies configured", "10.1.2.3:5000", "203.0.113.7", "10.1.2.3:5000", nil},
		{"trusted proxy", "10.1.2.3:5000", "203.0.113.7", "203.0.113.7:0", trusted},
		{"chain of trusted proxies", "10.1.2.3:5000", "203.0.113.7, 10.9.9.9", "203.0.113.7:0", trusted},
		{"client-forged first hop is ignored", "10.1.2.3:5000", "1.1.1.1, 203.0.113.7", "203.0.113.7:0", trusted},
		{"untrusted peer keeps its address", "198.51.100.4:5000", "203.0.113.7", "198.51.100.4:5000", trusted},
		{"malformed header keeps the proxy", "10.1.2.3:5000", "not-an-ip", "10.1.2.3:5000", trusted},
		{"no header keeps the proxy", "10.1.2.3:5000", "", "10.1.2.3:5000", trusted},
		{"ipv6 client", "127.0.0.1:80", "2001:db8::1", "[2001:db8::1]:0", trusted},
	}
	for _, c := range cases {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = c.peer
		if c.xff != "" {
			r.Header.Set("X-Forwarded-For", c.xff)
		}
		clientAddr(r, c.trusted)
		if r.RemoteAddr != c.want {
			t.Errorf("%s: RemoteAddr %q, want %q", c.name, r.RemoteAddr, c.want)
		}
	}
}
