package store

import (
	"context"
	"time"
)

// ServiceKey is a key pair of the installation itself (not of a workspace): the private key
// sealed by the caller, and its certificate (PEM, public).
type ServiceKey struct {
	Name          string
	PrivateKeyEnc string // ciphertext; the plaintext never reaches the database
	Certificate   string
	CreatedAt     int64
}

// ServiceKey loads the key pair called name, or ErrNotFound.
func (db *DB) ServiceKey(ctx context.Context, name string) (*ServiceKey, error) {
	k := &ServiceKey{}
	err := db.queryRow(ctx, `SELECT name, private_key_enc, certificate, created_at_unix FROM service_keys WHERE name = ?`, name).
		Scan(&k.Name, &k.PrivateKeyEnc, &k.Certificate, &k.CreatedAt)
	if err != nil {
		return nil, notFound(err)
	}
	return k, nil
}

// EnsureServiceKey stores k unless a key pair of that name exists, and returns the stored one:
// of two servers (or requests) making the first key at once, both end up with the winner's.
func (db *DB) EnsureServiceKey(ctx context.Context, k ServiceKey, now time.Time) (*ServiceKey, error) {
	if _, err := db.exec(ctx, `INSERT INTO service_keys (name, private_key_enc, certificate, created_at_unix) VALUES (?, ?, ?, ?)
		ON CONFLICT (name) DO NOTHING`, k.Name, k.PrivateKeyEnc, k.Certificate, now.Unix()); err != nil {
		return nil, err
	}
	return db.ServiceKey(ctx, k.Name)
}
