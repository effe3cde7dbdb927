package auth_test

import (
	"strings"
	"testing"

	"timbre/internal/auth"
)

// TestDummyHashCostsARealCheck: the hash that unknown emails are checked against (so that a
// sign-in takes as long whether or not the account exists) has a real hash's algorithm and
// parameters, and no password matches it.
func TestDummyHashCostsARealCheck(t *testing.T) {
	params := func(h string) string { // "$argon2id$v=19$m=…,t=…,p=…"
		parts := strings.Split(h, "$")
		if len(parts) != 6 {
			t.Fatalf("not an encoded hash: %q", h)
		}
		return strings.Join(parts[:4], "$")
	}
	if got, want := params(auth.DummyHash), params(auth.HashPassword("x")); got != want {
		t.Fatalf("dummy hash %q, a real one %q", got, want)
	}
	for _, pw := range []string{"", "timing-equaliser", "password"} {
		if auth.CheckPassword(auth.DummyHash, pw) {
			t.Fatalf("%q matches the dummy hash", pw)
		}
	}
}
