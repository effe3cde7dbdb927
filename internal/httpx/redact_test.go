package httpx_test

import (
	"testing"

	"timbre/internal/httpx"
)

func TestRedactPath(t *testing.T) {
	for in, want := range map[string]string{
		"/v1/user/backup-code/abcde-12345/remove-mfa": "/v1/user/backup-code/[redacted]/remove-mfa",
		"/api/workspace/invites/SECRETCODE":           "/api/workspace/invites/[redacted]",
		"/v1/workspace/invites/SECRETCODE/accept":     "/v1/workspace/invites/[redacted]/accept",
		"/v1/workspace/invites/SECRETCODE/decline":    "/v1/workspace/invites/[redacted]/decline",
		"/v1/user/backup-code":                        "/v1/user/backup-code",
		"/v1/voices/abc":                              "/v1/voices/abc",
	} {
		if got := httpx.RedactPath(in); got != want {
			t.Errorf("RedactPath(%q) = %q, want %q", in, got, want)
		}
	}
}
