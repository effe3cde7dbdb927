package sso

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// A workspace admin chooses the OIDC issuer the server fetches (discovery, keys, token), so those
// requests must not reach the server's own network. The guard refuses, after DNS resolution,
// loopback, private, link-local (with the cloud metadata address), CGNAT, unspecified and
// multicast addresses.
//
// TODO(integration): the webhooks area has the same guard for deliveries; share one.

var blockedPrefixes = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{"100.64.0.0/10", "fc00::/7", "fd00:ec2::254/128", "169.254.169.254/32", "0.0.0.0/8"} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

// publicAddr says whether ip is a public unicast address.
func publicAddr(ip netip.Addr) bool {
	ip = ip.Unmap()
	if !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsMulticast() || ip.IsUnspecified() || ip.IsInterfaceLocalMulticast() {
		return false
	}
	for _, p := range blockedPrefixes {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

// guardedClient returns an HTTP client whose connections only reach public addresses.
func guardedClient() *http.Client {
	d := &net.Dialer{
		Timeout: 10 * time.Second,
		Control: func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("sso: refusing to dial %s: %w", address, err)
			}
			if !publicAddr(ap.Addr()) {
				return fmt.Errorf("sso: refusing to dial %s: not a public address", address)
			}
			return nil
		},
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = d.DialContext
	tr.Proxy = nil
	return &http.Client{Transport: tr, Timeout: 20 * time.Second,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 5 {
				return http.ErrUseLastResponse
			}
			return nil
		}}
}
