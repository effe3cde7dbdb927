package auth

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"strings"
	"timbre/internal/errs"

	zxcvbn "github.com/nbutton23/zxcvbn-go"
	"golang.org/x/crypto/argon2"
)

// argon2id parameters (OWASP's second recommended set: 19 MiB, 2 passes).
const (
	argonTime    = 2
	argonMemory  = 19 * 1024
	argonThreads = 1
	argonKeyLen  = 32
)

// HashPassword returns an encoded argon2id hash of password.
func HashPassword(password string) string {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		panic(err)
	}
	return encodeHash(salt, argon2.IDKey([]byte(password), salt, argonTime, argonMemory, argonThreads, argonKeyLen))
}

// encodeHash is the stored form of an argon2id key and its salt, with today's parameters.
func encodeHash(salt, key []byte) string {
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemory, argonTime, argonThreads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key))
}

// CheckPassword says whether password matches an encoded hash.
func CheckPassword(encoded, password string) bool {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false
	}
	var m, t uint32
	var p uint8
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &m, &t, &p); err != nil {
		return false
	}
	salt, err1 := base64.RawStdEncoding.DecodeString(parts[4])
	want, err2 := base64.RawStdEncoding.DecodeString(parts[5])
	if err1 != nil || err2 != nil {
		return false
	}
	got := argon2.IDKey([]byte(password), salt, t, m, p, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1
}

// minPasswordScore is the least zxcvbn score (0–4) a new password needs: 2 refuses the common
// passwords, keyboard walks, repeats and words of the account itself ("guessable within about
// 10^8 tries" and below).
const minPasswordScore = 2

// strengthPrefix bounds how much of a password is analysed (zxcvbn's time grows fast with the
// length); a strong prefix makes the whole strong enough.
const strengthPrefix = 64

// CheckPasswordStrength says why a new password is not acceptable, as a 422 naming `password`,
// or nil. context is what the account itself gives away (its email, name, …): a password built
// from those is refused. Every place that sets a password calls it.
func CheckPasswordStrength(password string, context ...string) error {
	var v errs.Validator
	validatePassword(&v, password, context...)
	return v.Err()
}

// validatePassword adds the password's problem, if any, to v.
func validatePassword(v *errs.Validator, password string, context ...string) {
	runes := []rune(password)
	switch {
	case len(runes) < MinPasswordLength:
		v.Add("body", "password", "value_error", fmt.Sprintf("Password must be at least %d characters.", MinPasswordLength))
		return
	case len(password) > 512:
		v.Add("body", "password", "value_error", "Password must be at most 512 characters.")
		return
	}
	var words []string
	for _, c := range context {
		c = strings.ToLower(strings.TrimSpace(c))
		if c == "" {
			continue
		}
		words = append(words, c)
		if local, domain, ok := strings.Cut(c, "@"); ok { // an email: its parts too
			words = append(words, local)
			words = append(words, strings.FieldsFunc(domain, func(r rune) bool { return r == '.' })...)
		}
		if strings.Contains(strings.ToLower(password), c) && len(c) >= 4 {
			v.Add("body", "password", "value_error", "Password must not contain your email address or name.")
			return
		}
	}
	if len(runes) > strengthPrefix {
		runes = runes[:strengthPrefix]
	}
	if zxcvbn.PasswordStrength(string(runes), words).Score < minPasswordScore {
		v.Add("body", "password", "value_error", "This password is too easy to guess: it is a common password or built from common words, patterns or your own details. Use a longer phrase of unrelated words.")
	}
}
