// Package netguard keeps the server's outgoing requests to addresses chosen by users (webhook
// URLs, OIDC issuers) away from the operator's own network (SSRF): loopback, private,
// link-local (and so cloud metadata), unique-local, CGNAT, unspecified, multicast and reserved
// addresses are refused unless the operator allows them. The check runs on the address a
// connection actually dials, after DNS, so a name that resolves inside cannot slip through.
package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Guard is the address policy. The zero value (and a nil *Guard) refuses every internal address.
type Guard struct {
	// AllowPrivate lets requests reach every address.
	AllowPrivate bool
	// Allow lists ranges that are reachable although they would be refused.
	Allow []netip.Prefix
	// Resolver looks names up for CheckHost (net.DefaultResolver when nil).
	Resolver *net.Resolver
}

// ErrBlocked is what a dial to, or a check of, a refused address fails with.
var ErrBlocked = errors.New("the address is not reachable from this server (private, loopback, link-local or reserved)")

// ParseCIDRs reads a comma-separated list of CIDRs or single addresses (an operator's allow list).
func ParseCIDRs(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if !strings.Contains(f, "/") {
			a, err := netip.ParseAddr(f)
			if err != nil {
				return nil, fmt.Errorf("allow list: %q: %w", f, err)
			}
			out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(f)
		if err != nil {
			return nil, fmt.Errorf("allow list: %q: %w", f, err)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

var blockedRanges = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{
		"0.0.0.0/8",      // "this network", unspecified
		"10.0.0.0/8",     // private
		"100.64.0.0/10",  // CGNAT
		"127.0.0.0/8",    // loopback
		"169.254.0.0/16", // link-local, cloud metadata 169.254.169.254
		"172.16.0.0/12",  // private
		"192.0.0.0/24",   // IETF protocol assignments
		"192.168.0.0/16", // private
		"198.18.0.0/15",  // benchmarking
		"224.0.0.0/4",    // multicast
		"240.0.0.0/4",    // reserved, broadcast
		"::/128",         // unspecified
		"::1/128",        // loopback
		"fc00::/7",       // unique local, AWS metadata fd00:ec2::254
		"fe80::/10",      // link-local
		"ff00::/8",       // multicast
		"64:ff9b::/96",   // NAT64 (would reach IPv4 through a translator)
		"2001:db8::/32",  // documentation
	} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

// Blocked says whether requests may not go to ip.
func (g *Guard) Blocked(ip netip.Addr) bool {
	ip = ip.Unmap()
	if g != nil {
		if g.AllowPrivate {
			return false
		}
		for _, p := range g.Allow {
			if p.Contains(ip) {
				return false
			}
		}
	}
	if !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsUnspecified() || ip.IsMulticast() ||
		ip.IsLinkLocalMulticast() || ip.IsInterfaceLocalMulticast() {
		return true
	}
	for _, p := range blockedRanges {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// CheckHost is the early check when a URL is saved: an address literal, "localhost" or a name
// that resolves (now) to a refused address fails with an error wrapping ErrBlocked. A name that
// does not resolve now passes; the dial-time check still applies to whatever it resolves to later.
func (g *Guard) CheckHost(ctx context.Context, host string) error {
	ip, err := netip.ParseAddr(strings.Trim(host, "[]"))
	if err != nil {
		ip, err = parseLegacyIPv4(host)
	}
	if err == nil {
		if g.Blocked(ip) {
			return fmt.Errorf("%w: %s", ErrBlocked, ip)
		}
		return nil
	}
	lower := strings.ToLower(strings.TrimSuffix(host, "."))
	if lower == "localhost" || strings.HasSuffix(lower, ".localhost") {
		if g.Blocked(netip.MustParseAddr("127.0.0.1")) {
			return fmt.Errorf("%w: %s", ErrBlocked, host)
		}
		return nil
	}
	res := net.DefaultResolver
	if g != nil && g.Resolver != nil {
		res = g.Resolver
	}
	lctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	addrs, err := res.LookupNetIP(lctx, "ip", host)
	if err != nil {
		return nil
	}
	for _, a := range addrs {
		if g.Blocked(a) {
			return fmt.Errorf("%w: %s resolves to %s", ErrBlocked, host, a)
		}
	}
	return nil
}

// parseLegacyIPv4 reads the IPv4 forms that inet_aton, and so the system resolver behind a
// dial, accepts besides dotted quads: one to four parts, each decimal, octal (leading 0) or hex
// (0x), the last part filling the remaining bytes — 2130706433, 0x7f.1, 127.1 and 0177.0.0.1
// are all 127.0.0.1.
func parseLegacyIPv4(host string) (netip.Addr, error) {
	parts := strings.Split(strings.TrimSuffix(host, "."), ".")
	if len(parts) > 4 {
		return netip.Addr{}, errors.New("not an IPv4 address")
	}
	var vals []uint64
	for _, p := range parts {
		base, digits := 10, p
		switch {
		case len(p) > 1 && (p[:2] == "0x" || p[:2] == "0X"):
			base, digits = 16, p[2:]
		case len(p) > 1 && p[0] == '0':
			base, digits = 8, p[1:]
		}
		if digits == "" && base != 16 || strings.ContainsAny(digits, "+-_") {
			return netip.Addr{}, errors.New("not an IPv4 address")
		}
		v, err := strconv.ParseUint(digits, base, 32)
		if digits == "" { // "0x" alone is 0 to inet_aton
			v, err = 0, nil
		}
		if err != nil {
			return netip.Addr{}, errors.New("not an IPv4 address")
		}
		vals = append(vals, v)
	}
	last := len(vals) - 1
	var n uint64
	for i, v := range vals[:last] {
		if v > 0xff {
			return netip.Addr{}, errors.New("not an IPv4 address")
		}
		n |= v << (8 * (3 - i))
	}
	if vals[last] >= 1<<(8*(4-last)) {
		return netip.Addr{}, errors.New("not an IPv4 address")
	}
	n |= vals[last]
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), nil
}

// control runs after DNS resolution, before each connect: it refuses blocked addresses.
func (g *Guard) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrBlocked, address)
	}
	if g.Blocked(ap.Addr()) {
		return fmt.Errorf("%w: %s", ErrBlocked, ap.Addr())
	}
	return nil
}

// Dialer returns a dialer that connects only to addresses the guard allows.
func (g *Guard) Dialer() *net.Dialer {
	return &net.Dialer{Timeout: 10 * time.Second, Control: g.control}
}

// ClientOptions shape Client.
type ClientOptions struct {
	// Timeout bounds a whole request (0 = 20 s).
	Timeout time.Duration
	// MaxRedirects is how many redirects are followed (each to an address the guard checks
	// again at dial time); 0 follows none and returns the redirect response.
	MaxRedirects int
}

// Client returns an HTTP client that dials only addresses the guard allows (checked on the
// resolved address of every connection) and uses no proxy from the environment, which would
// otherwise be the address dialled.
func (g *Guard) Client(o ClientOptions) *http.Client {
	if o.Timeout <= 0 {
		o.Timeout = 20 * time.Second
	}
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           g.Dialer().DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          50,
		IdleConnTimeout:       60 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: o.Timeout,
	}
	return &http.Client{
		Transport: tr,
		Timeout:   o.Timeout,
		CheckRedirect: func(_ *http.Request, via []*http.Request) error {
			if len(via) > o.MaxRedirects {
				return http.ErrUseLastResponse
			}
			return nil
		},
	}
}
