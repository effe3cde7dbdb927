package store

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
)

const idAlphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// NewID returns a random 20-character identifier, the shape of the API's ids.
func NewID() string { return RandomString(20) }

// RandomString returns n random characters from [0-9A-Za-z].
func RandomString(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	for i := range b {
		b[i] = idAlphabet[int(b[i])%len(idAlphabet)]
	}
	return string(b)
}

// HashToken is how secrets (session tokens, API keys, action codes) are stored: SHA-256, hex.
// These are random 128+-bit values, so a fast hash is enough; passwords use argon2id instead.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}
