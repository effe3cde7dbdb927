package user_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"timbre/internal/account"
	"timbre/internal/apitest"
	"timbre/internal/auth"
	"timbre/internal/httpx"
	mailer "timbre/internal/mail"
	"timbre/internal/store"
	"timbre/internal/testdb"
	"timbre/internal/user"
)

// TestOnboardingFlags: GET /v1/user reports the user's own is_onboarding_completed — false for an
// account made by sign-up until the survey is answered, true (the spec's default) for accounts
// made otherwise — with and without the account extras wired.
func TestOnboardingFlags(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		authSvc := &auth.Service{DB: db, PublicURL: "http://localhost:8080", Mail: mailer.New(mailer.SMTPConfig{}, db, slog.New(slog.DiscardHandler))}

		fresh, err := authSvc.SignUp(ctx, "new@example.com", "a-long-passphrase-7", true, "")
		if err != nil {
			t.Fatal(err)
		}
		if err := db.SetEmailVerified(ctx, fresh.ID); err != nil {
			t.Fatal(err)
		}
		old, err := authSvc.CreateVerifiedUser(ctx, "operator-made@example.com", "a-long-passphrase-7")
		if err != nil {
			t.Fatal(err)
		}
		key := func(u *store.User) string {
			_, secret, err := authSvc.CreateAPIKey(ctx, u.ID, u.WorkspaceID, "test")
			if err != nil {
				t.Fatal(err)
			}
			return secret
		}
		freshKey, oldKey := key(fresh), key(old)

		// GET /v1/user as the server builds it, without and with the account extras wired.
		muxes := map[string]*http.ServeMux{}
		for _, name := range []string{"plain", "extras"} {
			mux := http.NewServeMux()
			h := &user.Handlers{DB: db}
			if name == "extras" {
				h.Account = &account.Service{DB: db}
			}
			h.Routes(&httpx.Router{Mux: mux, Auth: authSvc.Authenticate})
			muxes[name] = mux
		}
		check := func(k string, want bool) {
			t.Helper()
			for name, mux := range muxes {
				r := httptest.NewRequest("GET", "/v1/user", nil)
				r.Header.Set("xi-api-key", k)
				w := httptest.NewRecorder()
				mux.ServeHTTP(w, r)
				apitest.Recorded(t, r, w)
				if w.Code != http.StatusOK {
					t.Fatalf("%s GET /v1/user: %d %s", name, w.Code, w.Body)
				}
				var m map[string]any
				if err := json.Unmarshal(w.Body.Bytes(), &m); err != nil {
					t.Fatal(err)
				}
				if m["is_onboarding_completed"] != want {
					t.Fatalf("%s: is_onboarding_completed = %v, want %v", name, m["is_onboarding_completed"], want)
				}
			}
		}
		check(freshKey, false) // signed up: the survey comes first
		check(oldKey, true)    // operator-made: unaffected

		if err := db.CompleteOnboardingSurvey(ctx, fresh.ID, "Ada", `{"first_name":"Ada","role":"Developer"}`); err != nil {
			t.Fatal(err)
		}
		check(freshKey, true)
	})
}
