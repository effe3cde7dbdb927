package auth_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"timbre/internal/auth"
	"timbre/internal/store"
	"timbre/internal/testdb"
)

// The SSORequired hook (sso.Service.SSORequired in the app) refuses passwords for the emails it
// names, before anything is checked, created or mailed; its failures are not taken as "no".
func TestSSORequiredHook(t *testing.T) {
	db := testdb.SQLite(t)
	s, mail, _ := newService(t, db)
	ctx := context.Background()
	var asked []string
	hookErr := error(nil)
	s.SSORequired = func(_ context.Context, email string) (bool, error) {
		asked = append(asked, email)
		return strings.HasSuffix(email, "@sso.test"), hookErr
	}
	for _, email := range []string{"amy@sso.test", "bo@free.test"} {
		if _, err := s.CreateVerifiedUser(ctx, email, "sso-test-passphrase-9"); err != nil {
			t.Fatal(err)
		}
	}

	_, err := s.SignInFrom(ctx, auth.Client{IP: "192.0.2.1"}, auth.SignInInput{Email: " AMY@sso.test", Password: "sso-test-passphrase-9"})
	wantStatus(t, err, http.StatusForbidden, "sso_required")
	if len(asked) == 0 || asked[len(asked)-1] != "amy@sso.test" {
		t.Fatalf("hook asked %v, want the normalised email", asked)
	}
	wantStatus(t, s.SendPasswordResetFrom(ctx, auth.Client{IP: "192.0.2.1"}, "amy@sso.test"), http.StatusForbidden, "sso_required")
	_, err = s.SignUp(ctx, "new@sso.test", "sso-test-passphrase-9", true, "")
	wantStatus(t, err, http.StatusForbidden, "sso_required")
	if mail.count() != 0 {
		t.Fatalf("%d mails sent to SSO-only emails", mail.count())
	}
	if _, err := db.UserByEmail(ctx, "new@sso.test"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("sign-up created the user: %v", err)
	}

	// Other emails go on as usual.
	if _, err := s.SignInFrom(ctx, auth.Client{IP: "192.0.2.1"}, auth.SignInInput{Email: "bo@free.test", Password: "sso-test-passphrase-9"}); err != nil {
		t.Fatal(err)
	}

	// A failing hook fails the request instead of letting the password through.
	hookErr = errors.New("database down")
	if _, err := s.SignInFrom(ctx, auth.Client{IP: "192.0.2.1"}, auth.SignInInput{Email: "bo@free.test", Password: "sso-test-passphrase-9"}); err == nil || !strings.Contains(err.Error(), "database down") {
		t.Fatalf("sign-in with a failing hook: %v", err)
	}
}
