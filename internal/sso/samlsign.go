package sso

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"sync"
	"time"

	"timbre/internal/store"
)

// Timbre signs its SAML AuthnRequests (HTTP-Redirect: the query string; HTTP-POST: an enveloped
// XML signature) with one RSA-2048 key pair per installation, made on first use and kept in the
// database: the private key sealed with the server key, the self-signed certificate in the SP
// metadata so IdPs can check the signature.

const (
	spKeyName    = "saml-sp"
	spKeyPurpose = "service-key:" + spKeyName
	spKeyBits    = 2048
	// spCertValidity is long: IdPs pin the certificate from the metadata, and a rotation would
	// need every IdP admin to re-import it.
	spCertValidity = 20 * 365 * 24 * time.Hour
)

// spKeyCache holds the SP key pair once loaded (the zero value is empty).
type spKeyCache struct {
	mu   sync.Mutex
	key  *rsa.PrivateKey
	cert *x509.Certificate
}

// spKeyPair returns the installation's SAML SP signing key and certificate, loading them from the
// database or, the first time, making and storing them. Concurrent first uses (other requests,
// other servers on the same database) all end up with the one pair that was stored first.
func (s *Service) spKeyPair() (*rsa.PrivateKey, *x509.Certificate, error) {
	c := &s.spKeys
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.key != nil {
		return c.key, c.cert, nil
	}
	// Not the caller's context: the pair is shared by every request, and one caller giving up
	// must not fail the others waiting on the lock.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	k, err := s.DB.ServiceKey(ctx, spKeyName)
	if errors.Is(err, store.ErrNotFound) {
		var fresh *store.ServiceKey
		if fresh, err = s.newSPKey(); err != nil {
			return nil, nil, err
		}
		k, err = s.DB.EnsureServiceKey(ctx, *fresh, s.now())
	}
	if err != nil {
		return nil, nil, fmt.Errorf("sso: SAML SP key: %w", err)
	}
	key, cert, err := s.openSPKey(k)
	if err != nil {
		return nil, nil, err
	}
	c.key, c.cert = key, cert
	return key, cert, nil
}

// newSPKey makes a key pair and a self-signed certificate, the key sealed for storage.
func (s *Service) newSPKey() (*store.ServiceKey, error) {
	key, err := rsa.GenerateKey(rand.Reader, spKeyBits)
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, err
	}
	cn := "Timbre SAML service provider"
	if u, err := url.Parse(s.PublicURL); err == nil && u.Hostname() != "" {
		cn += " " + u.Hostname()
	}
	now := s.now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: cn},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(spCertValidity),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	pk, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	enc, err := s.Box.Seal(string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pk})), spKeyPurpose)
	if err != nil {
		return nil, err
	}
	return &store.ServiceKey{Name: spKeyName, PrivateKeyEnc: enc,
		Certificate: string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))}, nil
}

// openSPKey unseals a stored pair and checks the key and certificate belong together.
func (s *Service) openSPKey(k *store.ServiceKey) (*rsa.PrivateKey, *x509.Certificate, error) {
	plain, err := s.Box.Open(k.PrivateKeyEnc, spKeyPurpose)
	if err != nil {
		return nil, nil, fmt.Errorf("sso: SAML SP key: %w", err)
	}
	kb, _ := pem.Decode([]byte(plain))
	cb, _ := pem.Decode([]byte(k.Certificate))
	if kb == nil || cb == nil {
		return nil, nil, errors.New("sso: SAML SP key: stored key or certificate is not PEM")
	}
	anyKey, err := x509.ParsePKCS8PrivateKey(kb.Bytes)
	if err != nil {
		return nil, nil, fmt.Errorf("sso: SAML SP key: %w", err)
	}
	key, ok := anyKey.(*rsa.PrivateKey)
	if !ok {
		return nil, nil, fmt.Errorf("sso: SAML SP key: want an RSA key, have %T", anyKey)
	}
	cert, err := x509.ParseCertificate(cb.Bytes)
	if err != nil {
		return nil, nil, fmt.Errorf("sso: SAML SP certificate: %w", err)
	}
	if pub, ok := cert.PublicKey.(*rsa.PublicKey); !ok || !pub.Equal(&key.PublicKey) {
		return nil, nil, errors.New("sso: SAML SP key: the stored certificate is not the key's")
	}
	return key, cert, nil
}
