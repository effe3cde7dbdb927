package sso

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// SecretBox encrypts secrets the server must read back (OIDC client secrets, PKCE verifiers)
// with AES-256-GCM under a server key. Each ciphertext is bound to a purpose (the AAD), so a
// value stored for one row cannot be replayed into another.
//
// TODO(integration): the webhooks area keeps a key the same way (TIMBRE_SECRET_KEY or
// <data>/secret.key); the two helpers should become one.
type SecretBox struct{ aead cipher.AEAD }

const boxPrefix = "v1:"

// NewSecretBox makes a box from a 32-byte key.
func NewSecretBox(key []byte) (*SecretBox, error) {
	if len(key) != 32 {
		return nil, fmt.Errorf("secret key must be 32 bytes, got %d", len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &SecretBox{aead: aead}, nil
}

// ParseKey turns an operator-provided key into 32 bytes: 64 hex digits or base64 of 32 bytes are
// used as they are; any other non-empty text is hashed with SHA-256.
func ParseKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, errors.New("empty secret key")
	}
	if b, err := hex.DecodeString(s); err == nil && len(b) == 32 {
		return b, nil
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil && len(b) == 32 {
			return b, nil
		}
	}
	sum := sha256.Sum256([]byte(s))
	return sum[:], nil
}

// LoadKey returns the server key: TIMBRE_SECRET_KEY when set, else the file secret.key in the data
// directory, created (0600, 32 random bytes as hex) when missing. A file of exactly 32 raw bytes is
// accepted too.
func LoadKey(dataDir string) ([]byte, error) {
	if v := os.Getenv("TIMBRE_SECRET_KEY"); v != "" {
		return ParseKey(v)
	}
	path := filepath.Join(dataDir, "secret.key")
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		key := make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, err
		}
		if err := os.MkdirAll(dataDir, 0o700); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) {
			return LoadKey(dataDir) // another process created it first
		}
		if err != nil {
			return nil, err
		}
		_, werr := f.WriteString(hex.EncodeToString(key) + "\n")
		if err := errors.Join(werr, f.Close()); err != nil {
			return nil, err
		}
		return key, nil
	}
	if err != nil {
		return nil, err
	}
	if len(data) == 32 {
		return data, nil
	}
	return ParseKey(string(data))
}

// Seal encrypts plaintext for purpose.
func (b *SecretBox) Seal(plaintext, purpose string) (string, error) {
	nonce := make([]byte, b.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	ct := b.aead.Seal(nonce, nonce, []byte(plaintext), []byte(purpose))
	return boxPrefix + base64.RawStdEncoding.EncodeToString(ct), nil
}

// Open decrypts what Seal made for the same purpose.
func (b *SecretBox) Open(sealed, purpose string) (string, error) {
	if !strings.HasPrefix(sealed, boxPrefix) {
		return "", errors.New("secretbox: unknown format")
	}
	raw, err := base64.RawStdEncoding.DecodeString(strings.TrimPrefix(sealed, boxPrefix))
	if err != nil || len(raw) < b.aead.NonceSize() {
		return "", errors.New("secretbox: malformed ciphertext")
	}
	pt, err := b.aead.Open(nil, raw[:b.aead.NonceSize()], raw[b.aead.NonceSize():], []byte(purpose))
	if err != nil {
		return "", errors.New("secretbox: cannot decrypt (wrong key or purpose)")
	}
	return string(pt), nil
}
