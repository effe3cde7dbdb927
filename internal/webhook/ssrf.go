package webhook

import (
	"context"
	"errors"
	"net/url"
	"strings"

	"timbre/internal/netguard"
)

// ErrBlockedAddress is what a delivery to a refused address fails with (the SSRF guard,
// internal/netguard, checks the address every connection dials).
var ErrBlockedAddress = netguard.ErrBlocked

// CheckURL validates a webhook URL when it is saved; the message suits a 422 on webhook_url.
// https is required unless the operator allows http (TIMBRE_WEBHOOK_ALLOW_HTTP=1), and the host
// must not be (or resolve now to) an address the guard refuses.
func (s *Service) CheckURL(ctx context.Context, raw string) error {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" || u.Opaque != "" {
		return errors.New("The webhook URL must be an absolute http(s) URL.")
	}
	if u.Scheme != "https" && !(u.Scheme == "http" && s.AllowHTTP) {
		return errors.New("The webhook URL must use https.")
	}
	host := u.Hostname()
	if host == "" {
		return errors.New("The webhook URL must name a host.")
	}
	if err := s.Guard.CheckHost(ctx, host); err != nil {
		return errors.New("The webhook URL points to a private, loopback, link-local or reserved address, which this server does not call.")
	}
	return nil
}
