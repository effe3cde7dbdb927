package webhook

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// SecretKeyFile is the file in the data directory that holds the server key when
// TIMBRE_SECRET_KEY is not set.
const SecretKeyFile = "secret.key"

// Box seals secrets the server must read back later (webhook signing secrets, custom request
// headers) with AES-256-GCM under the server key. What a database dump shows is nonce and
// ciphertext, never the secret.
type Box struct{ aead cipher.AEAD }

// NewBox makes a Box from a 32-byte key.
func NewBox(key []byte) (*Box, error) {
	if len(key) != 32 {
		return nil, fmt.Errorf("secret key: want 32 bytes, got %d", len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Box{aead: aead}, nil
}

// ParseKey reads an operator-supplied key: 64 hex digits or standard base64 of 32 bytes are
// used as they are; any other string of at least 32 characters is a passphrase hashed with
// SHA-256.
func ParseKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if b, err := hex.DecodeString(s); err == nil && len(b) == 32 {
		return b, nil
	}
	if b, err := base64.StdEncoding.DecodeString(s); err == nil && len(b) == 32 {
		return b, nil
	}
	if len(s) >= 32 {
		sum := sha256.Sum256([]byte(s))
		return sum[:], nil
	}
	return nil, errors.New("secret key: give 64 hex digits, base64 of 32 bytes, or a passphrase of at least 32 characters")
}

// LoadKey returns the server key: from env (TIMBRE_SECRET_KEY) when it is set, else from
// dataDir/secret.key, which is created with mode 0600 and 32 random bytes (hex) on first start.
func LoadKey(dataDir, env string) ([]byte, error) {
	if strings.TrimSpace(env) != "" {
		return ParseKey(env)
	}
	path := filepath.Join(dataDir, SecretKeyFile)
	data, err := os.ReadFile(path)
	if err == nil {
		return ParseKey(string(data))
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return nil, err
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) { // another process made it first
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		return ParseKey(string(data))
	}
	if err != nil {
		return nil, err
	}
	if _, err := f.WriteString(hex.EncodeToString(key) + "\n"); err != nil {
		f.Close()
		return nil, err
	}
	return key, f.Close()
}

// Seal encrypts plaintext; the result is base64 of nonce‖ciphertext.
func (b *Box) Seal(plaintext string) (string, error) {
	nonce := make([]byte, b.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(b.aead.Seal(nonce, nonce, []byte(plaintext), nil)), nil
}

// Open decrypts what Seal made.
func (b *Box) Open(sealed string) (string, error) {
	raw, err := base64.StdEncoding.DecodeString(sealed)
	if err != nil || len(raw) < b.aead.NonceSize() {
		return "", errors.New("secret box: malformed ciphertext")
	}
	n := b.aead.NonceSize()
	pt, err := b.aead.Open(nil, raw[:n], raw[n:], nil)
	if err != nil {
		return "", errors.New("secret box: cannot decrypt (was the server key changed?)")
	}
	return string(pt), nil
}
