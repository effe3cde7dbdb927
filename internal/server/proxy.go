package server

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// clientAddr rewrites r.RemoteAddr to the real client when the request came through a trusted
// reverse proxy: the right-most address of X-Forwarded-For that is not itself a trusted proxy.
// Everything downstream (sign-in throttling per address, the audit log) then sees the client, not
// the proxy. Requests from anyone else keep their peer address, whatever headers they send.
func clientAddr(r *http.Request, trusted []netip.Prefix) {
	if len(trusted) == 0 {
		return
	}
	peer, err := peerIP(r.RemoteAddr)
	if err != nil || !inAny(trusted, peer) {
		return
	}
	hops := strings.Split(r.Header.Get("X-Forwarded-For"), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		ip, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			return // a malformed chain: keep the proxy's address
		}
		if !inAny(trusted, ip.Unmap()) {
			r.RemoteAddr = net.JoinHostPort(ip.Unmap().String(), "0")
			return
		}
	}
}

func peerIP(remote string) (netip.Addr, error) {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	ip, err := netip.ParseAddr(host)
	return ip.Unmap(), err
}

func inAny(prefixes []netip.Prefix, ip netip.Addr) bool {
	for _, p := range prefixes {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}
