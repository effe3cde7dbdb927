package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// Guard keeps deliveries away from addresses inside the operator's network (SSRF): loopback,
// private, link-local (and so cloud metadata), unique-local, CGNAT, unspecified, multicast and
// reserved addresses are refused, unless the operator allows them. It is checked when a webhook
// is saved and again when a delivery dials, against the address DNS actually returned.
type Guard struct {
	// AllowPrivate lets webhooks reach every address (TIMBRE_WEBHOOK_ALLOW_PRIVATE=1).
	AllowPrivate bool
	// Allow lists ranges that are reachable although they would be refused
	// (TIMBRE_WEBHOOK_ALLOW_CIDRS, comma-separated).
	Allow []netip.Prefix
	// AllowHTTP accepts http:// URLs; otherwise https is required (TIMBRE_WEBHOOK_ALLOW_HTTP=1).
	AllowHTTP bool
	// Resolver looks names up when a webhook is saved (net.DefaultResolver when nil).
	Resolver *net.Resolver
}

// ParseCIDRs reads a comma-separated list of CIDRs or single addresses.
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
				return nil, fmt.Errorf("webhook allow list: %q: %w", f, err)
			}
			out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(f)
		if err != nil {
			return nil, fmt.Errorf("webhook allow list: %q: %w", f, err)
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

// Blocked says whether deliveries may not go to ip.
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

// ErrBlockedAddress is what a dial to a refused address fails with.
var ErrBlockedAddress = errors.New("webhook: the address is not reachable from this server (private, loopback, link-local or reserved)")

// CheckURL validates a webhook URL when it is saved; the message suits a 422 on webhook_url.
func (g *Guard) CheckURL(ctx context.Context, raw string) error {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" || u.Opaque != "" {
		return errors.New("The webhook URL must be an absolute http(s) URL.")
	}
	switch u.Scheme {
	case "https":
	case "http":
		if g == nil || !g.AllowHTTP {
			return errors.New("The webhook URL must use https.")
		}
	default:
		return errors.New("The webhook URL must use https.")
	}
	host := u.Hostname()
	if host == "" {
		return errors.New("The webhook URL must name a host.")
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if g.Blocked(ip) {
			return errors.New("The webhook URL points to a private, loopback, link-local or reserved address, which this server does not call.")
		}
		return nil
	}
	lower := strings.ToLower(strings.TrimSuffix(host, "."))
	if lower == "localhost" || strings.HasSuffix(lower, ".localhost") {
		if g.Blocked(netip.MustParseAddr("127.0.0.1")) {
			return errors.New("The webhook URL points to a private, loopback, link-local or reserved address, which this server does not call.")
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
		return nil // unresolvable now; the dial-time check still applies to whatever it resolves to later
	}
	for _, a := range addrs {
		if g.Blocked(a) {
			return errors.New("The webhook URL's host resolves to a private, loopback, link-local or reserved address, which this server does not call.")
		}
	}
	return nil
}

// control runs after DNS resolution, before each connect: it refuses blocked addresses.
func (g *Guard) control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return ErrBlockedAddress
	}
	if g.Blocked(ap.Addr()) {
		return fmt.Errorf("%w: %s", ErrBlockedAddress, ap.Addr())
	}
	return nil
}

// Client returns an HTTP client for deliveries: it dials only addresses the guard allows
// (checked on the resolved IP of every connection), uses no proxy from the environment, follows
// no redirects, and gives up after timeout.
func (g *Guard) Client(timeout time.Duration) *http.Client {
	d := &net.Dialer{Timeout: 10 * time.Second, Control: g.control}
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           d.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          50,
		IdleConnTimeout:       60 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: timeout,
	}
	return &http.Client{
		Transport:     tr,
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
