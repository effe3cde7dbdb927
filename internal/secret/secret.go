// Package secret seals the secrets the server must read back later (TOTP secrets, webhook
// signing secrets and headers, OIDC client secrets, PKCE verifiers) with AES-256-GCM under the
// one server key: TIMBRE_SECRET_KEY, or <data>/secret.key made on first start.
package secret

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
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

// KeyFile is the file in the data directory that holds the server key when TIMBRE_SECRET_KEY is
// not set.
const KeyFile = "secret.key"

// MinPassphrase is the shortest passphrase ParseKey accepts (a key that is not 32 bytes in hex
// or base64 is hashed with SHA-256).
const MinPassphrase = 16

// ParseKey reads an operator-supplied key: 64 hex digits or base64 (standard or URL, padded or
// not) of 32 bytes are used as they are; any other text of at least MinPassphrase characters is
// a passphrase hashed with SHA-256.
func ParseKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if b, err := hex.DecodeString(s); err == nil && len(b) == 32 {
		return b, nil
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil && len(b) == 32 {
			return b, nil
		}
	}
	if len(s) >= MinPassphrase {
		sum := sha256.Sum256([]byte(s))
		return sum[:], nil
	}
	return nil, fmt.Errorf("secret key: give 64 hex digits, base64 of 32 bytes, or a passphrase of at least %d characters", MinPassphrase)
}

// LoadKey returns the server key: from env (the value of TIMBRE_SECRET_KEY) when it is set, else
// from dataDir/secret.key, which is created with mode 0600 holding 32 random bytes in hex on
// first start. A file of exactly 32 raw bytes is accepted too.
func LoadKey(dataDir, env string) ([]byte, error) {
	if strings.TrimSpace(env) != "" {
		return ParseKey(env)
	}
	path := filepath.Join(dataDir, KeyFile)
	if key, err := readKeyFile(path); !errors.Is(err, fs.ErrNotExist) {
		return key, err
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, err
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) { // another process made it first
		return readKeyFile(path)
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

func readKeyFile(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(data) == 32 {
		return data, nil
	}
	key, err := ParseKey(string(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return key, nil
}

// Box seals and opens secrets with AES-256-GCM. Every value is sealed for a purpose (the
// additional data: "totp", "webhook-secret:<id>", …), so a ciphertext stored for one place
// cannot be replayed into another. What a database dump shows is nonce and ciphertext, never the
// secret.
type Box struct {
	aead cipher.AEAD
	key  []byte // kept only to derive other keys from (Derive)
}

const prefix = "v1:"

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
	return &Box{aead: aead, key: append([]byte(nil), key...)}, nil
}

// Derive returns a 32-byte key for purpose (HMAC-SHA256 of the server key over a fixed label
// and the purpose): keys for other uses, such as the audio watermark, come from the one server
// key without exposing it, and knowing one derived key reveals neither the server key nor
// another purpose's key.
func (b *Box) Derive(purpose string) []byte {
	mac := hmac.New(sha256.New, b.key)
	mac.Write([]byte("timbre derived key v1\x00" + purpose))
	return mac.Sum(nil)
}

// Load is LoadKey followed by NewBox: the server's one Box.
func Load(dataDir, env string) (*Box, error) {
	key, err := LoadKey(dataDir, env)
	if err != nil {
		return nil, err
	}
	return NewBox(key)
}

// Seal encrypts plaintext for purpose: "v1:" + base64(nonce‖ciphertext).
func (b *Box) Seal(plaintext, purpose string) (string, error) {
	nonce := make([]byte, b.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	return prefix + base64.RawStdEncoding.EncodeToString(b.aead.Seal(nonce, nonce, []byte(plaintext), []byte(purpose))), nil
}

// Open decrypts what Seal made for the same purpose.
func (b *Box) Open(sealed, purpose string) (string, error) {
	rest, ok := strings.CutPrefix(sealed, prefix)
	if !ok {
		return "", errors.New("secret box: unknown format")
	}
	raw, err := base64.RawStdEncoding.DecodeString(rest)
	n := b.aead.NonceSize()
	if err != nil || len(raw) < n {
		return "", errors.New("secret box: malformed ciphertext")
	}
	pt, err := b.aead.Open(nil, raw[:n], raw[n:], []byte(purpose))
	if err != nil {
		return "", errors.New("secret box: cannot decrypt (was the server key changed?)")
	}
	return string(pt), nil
}
