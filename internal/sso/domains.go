package sso

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"timbre/internal/errs"
	"timbre/internal/store"
)

// Domain ownership: a domain added to a provider is only a claim. It routes sign-ins (the
// provider lookup, the SSO flow, auto-provisioning, "SSO required") once the workspace proves it
// owns the domain by publishing the claim's token in DNS:
//
//	_timbre-challenge.<domain>  TXT  "timbre-domain-verification=<token>"

// ChallengePrefix is the label under which the TXT record is published.
const ChallengePrefix = "_timbre-challenge."

// ChallengeValuePrefix starts the TXT record's value; the claim's token follows.
const ChallengeValuePrefix = "timbre-domain-verification="

// dnsTimeout bounds one verification lookup.
const dnsTimeout = 10 * time.Second

// ChallengeRecord is the TXT record (name and value) that proves ownership of a claim.
func ChallengeRecord(d *store.SSODomain) (name, value string) {
	return ChallengePrefix + d.Domain, ChallengeValuePrefix + d.VerificationToken
}

// NewResolver is a resolver that asks the DNS server at addr (host:port) over UDP, falling back
// to TCP for long answers; "" means nil, the system's resolver (net.DefaultResolver).
func NewResolver(addr string) *net.Resolver {
	if addr == "" {
		return nil
	}
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}}
}

func (s *Service) resolver() *net.Resolver {
	if s.Resolver != nil {
		return s.Resolver
	}
	return net.DefaultResolver
}

// Verification errors. Each message names the record to publish.
const (
	codeTXTMissing  = "sso_domain_txt_missing"
	codeTXTMismatch = "sso_domain_txt_mismatch"
	codeDNSFailed   = "sso_domain_dns_error"
)

var errNoSuchDomain = errs.Errorf(errs.NotFound, "sso_domain_not_found", "This workspace has not added that domain to an identity provider.")

// errVerifiedElsewhere: another workspace proved the domain first.
var errVerifiedElsewhere = errs.Errorf(errs.Conflict, "sso_domain_taken", "Another workspace has already verified this domain. Contact support if your organisation owns it.")

// ParseDomain checks a domain named in a request (where: path, query or body).
func ParseDomain(where, field, raw string) (string, error) {
	d := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(raw)), ".")
	if d == "" {
		return "", errs.Field(where, field, "missing", "Name the domain, like example.com.")
	}
	if !domainRe.MatchString(d) || len(d) > 253 {
		return "", errs.Field(where, field, "value_error", fmt.Sprintf("%q is not a domain name (like example.com).", raw))
	}
	return d, nil
}

// VerifyDomain looks up the claim's TXT record and, when it carries the claim's token, marks the
// workspace's domain verified by userID (fresh). A claim already verified is returned as it is.
// The error says what went wrong: no record, a record with another value, or DNS failing.
func (s *Service) VerifyDomain(ctx context.Context, workspaceID, domain, userID string) (d *store.SSODomain, fresh bool, err error) {
	d, err = s.DB.SSODomain(ctx, workspaceID, domain)
	if errors.Is(err, store.ErrNotFound) {
		return nil, false, errNoSuchDomain
	}
	if err != nil {
		return nil, false, err
	}
	if d.Verified {
		return d, false, nil
	}
	if err := s.checkChallenge(ctx, d); err != nil {
		return nil, false, err
	}
	switch err := s.DB.VerifySSODomain(ctx, workspaceID, d.Domain, userID, s.now()); {
	case errors.Is(err, store.ErrSSODomainTaken):
		return nil, false, errVerifiedElsewhere
	case errors.Is(err, store.ErrNotFound): // removed while DNS answered
		return nil, false, errNoSuchDomain
	case err != nil:
		return nil, false, err
	}
	d, err = s.DB.SSODomain(ctx, workspaceID, d.Domain)
	return d, err == nil, err
}

// checkChallenge asks DNS for the claim's TXT record.
func (s *Service) checkChallenge(ctx context.Context, d *store.SSODomain) error {
	name, want := ChallengeRecord(d)
	publish := fmt.Sprintf("a TXT record named %s with the value %s", name, want)
	lctx, cancel := context.WithTimeout(ctx, dnsTimeout)
	defer cancel()
	// Rooted, so no resolv.conf search domain is appended to the name.
	values, err := s.resolver().LookupTXT(lctx, name+".")
	if err != nil {
		var de *net.DNSError
		if errors.As(err, &de) && de.IsNotFound {
			return errs.Errorf(errs.Conflict, codeTXTMissing,
				"No TXT record was found at %s. Publish %s, wait for DNS to update (this can take a few minutes), then verify again.", name, publish)
		}
		why := "it failed"
		if errors.As(err, &de) && de.IsTimeout {
			why = "it did not answer in time"
		} else if errors.As(err, &de) && de.Err != "" {
			why = "it answered: " + de.Err
		}
		return errs.Errorf(errs.Upstream, codeDNSFailed,
			"Timbre could not look up %s: %s. This is a DNS problem, not a wrong record; try again in a few minutes. The record to publish is %s.", name, why, publish)
	}
	var found []string
	for _, v := range values {
		v = strings.TrimSpace(v)
		if v == want {
			return nil
		}
		if len(found) < 3 {
			if len(v) > 100 {
				v = v[:100] + "…"
			}
			found = append(found, fmt.Sprintf("%q", v))
		}
	}
	if len(found) == 0 { // records with no text
		return errs.Errorf(errs.Conflict, codeTXTMissing,
			"The TXT record at %s is empty. Publish %s, then verify again.", name, publish)
	}
	return errs.Errorf(errs.Conflict, codeTXTMismatch,
		"The TXT record at %s has another value (found %s). Publish %s — the token is this workspace's own — then verify again.", name, strings.Join(found, ", "), publish)
}

// SSORequired says whether email must sign in with SSO: a workspace that requires SSO verified
// its domain for an enabled provider. It is auth.Service's SSORequired hook; an unusable email
// is not covered (sign-in's own checks answer it).
func (s *Service) SSORequired(ctx context.Context, email string) (bool, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	at := strings.LastIndexByte(email, '@')
	if at < 1 || at == len(email)-1 {
		return false, nil
	}
	return s.DB.SSORequiredForDomain(ctx, email[at+1:])
}
