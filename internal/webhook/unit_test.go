package webhook_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"timbre/internal/secret"
	"timbre/internal/webhook"
)

func TestSignAndVerify(t *testing.T) {
	now := time.Unix(1_760_000_000, 0)
	body := []byte(`{"type":"speech_to_text_transcription","data":{"x":1}}`)
	h := webhook.Sign("wsec_secret", now, body)
	if !strings.HasPrefix(h, "t=1760000000,v0=") || len(h) != len("t=1760000000,v0=")+64 {
		t.Fatalf("header %q is not t=<unix>,v0=<64 hex>", h)
	}
	// A receiver's independent computation: HMAC-SHA256 over "<t>.<body>".
	if err := webhook.Verify("wsec_secret", body, h, 0, now.Add(time.Minute)); err != nil {
		t.Fatalf("valid signature refused: %v", err)
	}
	cases := []struct {
		name, secret, header string
		body                 []byte
		at                   time.Time
		want                 error
	}{
		{"tampered body", "wsec_secret", h, []byte(`{"type":"x"}`), now, webhook.ErrBadSignature},
		{"wrong secret", "wsec_other", h, body, now, webhook.ErrBadSignature},
		{"too old", "wsec_secret", h, body, now.Add(31 * time.Minute), webhook.ErrStaleTimestamp},
		{"from the future", "wsec_secret", h, body, now.Add(-31 * time.Minute), webhook.ErrStaleTimestamp},
		{"missing", "wsec_secret", "", body, now, webhook.ErrNoSignature},
		{"no v0", "wsec_secret", "t=1760000000", body, now, webhook.ErrNoSignature},
		{"timestamp swapped", "wsec_secret", strings.Replace(h, "t=1760000000", "t=1760000001", 1), body, now, webhook.ErrBadSignature},
	}
	for _, c := range cases {
		if err := webhook.Verify(c.secret, c.body, c.header, 0, c.at); !errors.Is(err, c.want) {
			t.Errorf("%s: Verify = %v, want %v", c.name, err, c.want)
		}
	}
	// While a secret rotates, any v0 may match.
	both := h[:strings.Index(h, ",")] + ",v0=" + strings.Repeat("0", 64) + h[strings.Index(h, ","):]
	if err := webhook.Verify("wsec_secret", body, both, 0, now); err != nil {
		t.Fatalf("second v0 not accepted: %v", err)
	}
}

// TestCheckURL: a saved URL must be https (unless allowed) and must not point inside; the
// address policy itself is internal/netguard's and tested there.
func TestCheckURL(t *testing.T) {
	ctx := context.Background()
	svc, err := webhook.New(nil, testBox(t), webhook.Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"https://127.0.0.1/hook", "https://[::1]:8443/x", "https://169.254.169.254/latest/meta-data", "https://10.0.0.5/",
		"https://localhost/x", "https://api.localhost/x", "http://93.184.216.34/", "ftp://93.184.216.34/", "javascript:alert(1)", "https:///nohost", "not a url",
		"https://[fd00:ec2::254]/"} {
		if err := svc.CheckURL(ctx, u); err == nil {
			t.Errorf("CheckURL(%q) accepted", u)
		}
	}
	if err := svc.CheckURL(ctx, "https://93.184.216.34/hook"); err != nil {
		t.Errorf("public https URL refused: %v", err)
	}
	svc.AllowHTTP = true
	if err := svc.CheckURL(ctx, "http://93.184.216.34/hook"); err != nil {
		t.Errorf("http refused although allowed: %v", err)
	}
	if _, err := webhook.New(nil, testBox(t), webhook.Config{AllowCIDRs: "10.0.0.0/33"}, nil); err == nil {
		t.Error("a bad allow list was accepted")
	}
}

func testBox(t *testing.T) *secret.Box {
	t.Helper()
	box, err := secret.NewBox(bytes.Repeat([]byte{1}, 32))
	if err != nil {
		t.Fatal(err)
	}
	return box
}
