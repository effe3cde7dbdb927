package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"
)

// SignatureHeader carries a delivery's signature, as ElevenLabs sends it.
const SignatureHeader = "ElevenLabs-Signature"

// DefaultTolerance is how old a signed timestamp Verify accepts (the ElevenLabs SDKs' 30 minutes).
const DefaultTolerance = 30 * time.Minute

// Sign returns the signature header value for body sent at ts: "t=<unix>,v0=<hex>", where the
// hex is HMAC-SHA256 with the webhook secret over "<unix>.<body>".
func Sign(secret string, ts time.Time, body []byte) string {
	t := strconv.FormatInt(ts.Unix(), 10)
	return "t=" + t + ",v0=" + mac(secret, t, body)
}

func mac(secret, t string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(t))
	m.Write([]byte("."))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// Errors of Verify.
var (
	ErrNoSignature    = errors.New("webhook: missing or malformed signature header")
	ErrBadSignature   = errors.New("webhook: signature does not match")
	ErrStaleTimestamp = errors.New("webhook: signature timestamp outside the tolerance")
)

// Verify checks a delivery as a receiver would: header is the ElevenLabs-Signature value, body
// the raw request body. Any v0 entry may match (several appear while a secret is rotated). The
// timestamp must lie within tolerance of now (DefaultTolerance when tolerance is 0).
func Verify(secret string, body []byte, header string, tolerance time.Duration, now time.Time) error {
	if tolerance <= 0 {
		tolerance = DefaultTolerance
	}
	var t string
	var sigs []string
	for _, part := range strings.Split(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			continue
		}
		switch k {
		case "t":
			t = v
		case "v0":
			sigs = append(sigs, v)
		}
	}
	if t == "" || len(sigs) == 0 {
		return ErrNoSignature
	}
	unix, err := strconv.ParseInt(t, 10, 64)
	if err != nil {
		return ErrNoSignature
	}
	if d := now.Sub(time.Unix(unix, 0)); d > tolerance || d < -tolerance {
		return ErrStaleTimestamp
	}
	want := []byte(mac(secret, t, body))
	for _, s := range sigs {
		if hmac.Equal([]byte(s), want) {
			return nil
		}
	}
	return ErrBadSignature
}
