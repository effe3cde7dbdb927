package sso

import (
	"net/http"

	"timbre/internal/netguard"
)

// A workspace admin chooses the OIDC issuer the server fetches (discovery, keys, token), so those
// requests must not reach the server's own network: the default client dials only addresses
// Guard allows (internal/netguard), checked after DNS resolution, following at most 5 redirects.
func (s *Service) client() *http.Client {
	if s.HTTPClient != nil {
		return s.HTTPClient
	}
	return s.Guard.Client(netguard.ClientOptions{MaxRedirects: 5})
}
