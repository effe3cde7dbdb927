package auth

import (
	"context"
	"crypto/subtle"
	"errors"
	"net/http"
	"time"

	"timbre/internal/access"
	"timbre/internal/audit"
	"timbre/internal/errs"
	"timbre/internal/httpx"
	"timbre/internal/store"
)

// ErrMFAEnrollmentRequired refuses a session of a workspace that requires MFA until its user enrols.
var ErrMFAEnrollmentRequired = errs.Errorf(errs.Forbidden, "mfa_enrollment_required",
	"Your workspace requires two-factor authentication. Set it up in Settings (Security → Add 2FA) to continue.")

// ErrMFAVerificationRequired refuses a session that did not answer a second factor (an SSO
// sign-in of another workspace, or a session older than the user's enrolment) in a workspace
// that requires MFA.
var ErrMFAVerificationRequired = errs.Errorf(errs.Forbidden, "mfa_verification_required",
	"Your workspace requires two-factor authentication: sign out, then sign in again with the code from your authenticator app.")

// mfaSatisfied says whether a session meets its workspace's MFA requirement: it answered a
// second factor, or it was signed in by this workspace's own identity provider.
func mfaSatisfied(st *store.SessionState) bool {
	return st.MFADone || (st.SSOWorkspaceID != "" && st.SSOWorkspaceID == st.WorkspaceID)
}

// mfaEnrollmentRoutes are what a session may reach while its workspace's MFA requirement is unmet.
var mfaEnrollmentRoutes = map[string]bool{
	"GET /api/auth/session":              true,
	"POST /api/auth/sign-out":            true,
	"POST /api/auth/sign-out-everywhere": true,
	"GET /api/auth/mfa":                  true,
	"POST /api/auth/mfa/totp/enroll":     true,
	"POST /api/auth/mfa/totp/confirm":    true,
	// Enrolling asks for the password or a mailed code first.
	"POST /v1/user/verify-sensitive-action-code": true,
}

// authenticateSession resolves the caller from the session cookie: the session must exist, be
// unexpired and not idle past its workspace's session_inactivity_timeout; writes need the CSRF
// token; a workspace requiring MFA admits a user without it to the enrolment routes only. A
// used session's last-seen time moves forward at most every 5 minutes (spec §9's refresh).
func (s *Service) authenticateSession(r *http.Request) (*access.Caller, error) {
	ctx := r.Context()
	c, err := r.Cookie(SessionCookie)
	if err != nil || c.Value == "" {
		return nil, nil
	}
	now := s.now()
	st, err := s.DB.SessionStateByToken(ctx, c.Value, now)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if st.InactivityTimeout > 0 && now.Unix()-st.LastSeen > st.InactivityTimeout {
		// Idle too long: the session ends for good.
		if err := s.DB.DeleteSession(ctx, c.Value); err != nil {
			return nil, err
		}
		audit.Record(ctx, s.DB, r, st.UserID, "", audit.Event{WorkspaceID: st.WorkspaceID, Class: "session", Activity: "expired_inactive", Target: st.PublicID})
		return nil, nil
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead && r.Method != http.MethodOptions {
		if got := r.Header.Get(CSRFHeader); got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(st.CSRFToken)) != 1 {
			return nil, httpx.ErrCSRF
		}
	}
	member, err := s.DB.Access(ctx, st.WorkspaceID, st.UserID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil // no longer a member of the session's workspace
	}
	if err != nil {
		return nil, err
	}
	// "Require SSO" holds for sessions that were open before it was turned on, and for
	// sessions that switch into the workspace: only its own identity provider's sign-in counts.
	if st.SSORequiredHere && st.SSOWorkspaceID != st.WorkspaceID {
		return nil, ErrSSORequired
	}
	if st.MFARequired && !mfaSatisfied(st) && !mfaEnrollmentRoutes[r.Method+" "+r.URL.Path] {
		if st.TOTPEnabled {
			return nil, ErrMFAVerificationRequired
		}
		return nil, ErrMFAEnrollmentRequired
	}
	if err := s.DB.TouchSession(ctx, c.Value, now, touchEvery(st.InactivityTimeout)); err != nil {
		httpx.Logger(ctx).Warn("session touch failed", "err", err)
	}
	caller := &access.Caller{UserID: st.UserID, WorkspaceID: st.WorkspaceID, ViaSession: true}
	applyAccess(caller, member)
	return caller, nil
}

// touchEvery is how often a session's last-seen time moves: the spec's 5 minutes, or half the
// inactivity timeout when that is shorter (so an active user is never timed out).
func touchEvery(timeout int64) time.Duration {
	every := sessionRefresh
	if half := time.Duration(timeout) * time.Second / 2; timeout > 0 && half < every {
		every = half
	}
	return every
}

// currentSession returns the request's session state, or nil when it has none.
func (s *Service) currentSession(r *http.Request) (*store.SessionState, string) {
	c, err := r.Cookie(SessionCookie)
	if err != nil || c.Value == "" {
		return nil, ""
	}
	st, err := s.DB.SessionStateByToken(r.Context(), c.Value, s.now())
	if err != nil {
		return nil, ""
	}
	return st, c.Value
}

// audit records an event in the user's default workspace.
func (s *Service) audit(ctx context.Context, c Client, u *store.User, class, activity string, details audit.Details) {
	audit.Record(ctx, s.DB, c.Req, u.ID, u.Email, audit.Event{WorkspaceID: u.WorkspaceID, Class: class, Activity: activity, Target: u.ID, Details: details})
}

// SetSessionCookies sets the session and CSRF cookies (spec §9: xi_website_ prefix, 360 days,
// Secure, SameSite=Strict; the session cookie HttpOnly) — for other sign-in paths (SSO).
func SetSessionCookies(w http.ResponseWriter, token, csrf string) {
	setCookie(w, SessionCookie, token, true, cookieMaxAge)
	setCookie(w, CSRFCookie, csrf, false, cookieMaxAge)
}

// ClearSessionCookies removes both cookies.
func ClearSessionCookies(w http.ResponseWriter) {
	setCookie(w, SessionCookie, "", true, -1)
	setCookie(w, CSRFCookie, "", false, -1)
}
