package e2e

import (
	"context"
	"testing"
)

// TestBrowserLayout1280: on a 1280×800 window, the "Get started" card and, after the first
// generation, the bottom player leave the text to speech controls uncovered (layout.mjs).
func TestBrowserLayout1280(t *testing.T) {
	b := requireBrowser(t)
	srv := StartTimbre(t)
	// A signed-up account (not operator-made): it gets the onboarding survey and checklist.
	ctx := context.Background()
	u, err := srv.App.Auth.SignUp(ctx, "lena@example.com", flowPassword, true, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.App.DB.SetEmailVerified(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	b.run(t, srv, "layout.mjs", "USER_EMAIL="+u.Email, "USER_PASSWORD="+flowPassword)
}
