package httpx

import (
	"context"
	"net/http"
	"strings"
)

type publicURLKey struct{}

// WithPublicURL records the address the user reached the server by (links in mail use it).
func WithPublicURL(ctx context.Context, u string) context.Context {
	return context.WithValue(ctx, publicURLKey{}, u)
}

// PublicURL is the base of links sent to users: the request's own address when the server
// recorded one (no TIMBRE_PUBLIC_URL set), else fallback (the configured public URL).
func PublicURL(ctx context.Context, fallback string) string {
	if u, ok := ctx.Value(publicURLKey{}).(string); ok && u != "" {
		return u
	}
	return fallback
}

// RequestOrigin is scheme://host of the request as the browser sent it, or "" when the Host
// header is not a plain host[:port].
func RequestOrigin(r *http.Request) string {
	host := r.Host
	if host == "" || strings.ContainsAny(host, "/\\@?#% \t") {
		return ""
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + host
}
