package auth

import (
	"context"
	"timbre/internal/errs"
)

// ErrSSORequired refuses a password (sign-in, sign-up, reset mail) for an email whose domain a
// workspace has verified and requires single sign-on for.
var ErrSSORequired = errs.Errorf(errs.Forbidden, "sso_required",
	"Your organization requires single sign-on for this email address: sign in with SSO instead of a password.")

// checkSSORequired asks the SSORequired hook about email (already lower-cased and trimmed).
func (s *Service) checkSSORequired(ctx context.Context, email string) error {
	if s.SSORequired == nil || email == "" {
		return nil
	}
	on, err := s.SSORequired(ctx, email)
	if err != nil {
		return err
	}
	if on {
		return ErrSSORequired
	}
	return nil
}
