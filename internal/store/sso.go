package store

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"timbre/internal/errs"
	"time"
)

// SSO provider types.
const (
	SSOTypeOIDC = "oidc"
	SSOTypeSAML = "saml"
)

// SSOProvider is a workspace's identity provider: OIDC (issuer, client id, the client secret
// encrypted by the caller) or SAML (the IdP's entity id, SSO URL and signing certificate PEM).
type SSOProvider struct {
	ID          string
	WorkspaceID string
	Type        string
	Name        string
	Enabled     bool
	Domains     []string // lower-case email domains claimed for the provider, verified or not
	// VerifiedDomains are the Domains whose ownership the workspace proved (DNS TXT): only these
	// route sign-ins to the provider. Ignored on writes.
	VerifiedDomains []string

	OIDCIssuer          string
	OIDCClientID        string
	OIDCClientSecretEnc string // ciphertext; the plaintext never reaches the database
	OIDCScopes          string // space-separated, besides openid

	SAMLEntityID    string
	SAMLSSOURL      string
	SAMLCertificate string // PEM

	CreatedBy string
	CreatedAt int64
	UpdatedAt int64
}

const ssoProviderCols = `id, workspace_id, type, name, enabled, oidc_issuer, oidc_client_id, oidc_client_secret_enc, oidc_scopes,
	saml_entity_id, saml_sso_url, saml_certificate, created_by_user_id, created_at_unix, updated_at_unix`

func scanSSOProvider(row interface{ Scan(...any) error }) (*SSOProvider, error) {
	p := &SSOProvider{}
	err := row.Scan(&p.ID, &p.WorkspaceID, &p.Type, &p.Name, &p.Enabled, &p.OIDCIssuer, &p.OIDCClientID, &p.OIDCClientSecretEnc, &p.OIDCScopes,
		&p.SAMLEntityID, &p.SAMLSSOURL, &p.SAMLCertificate, &p.CreatedBy, &p.CreatedAt, &p.UpdatedAt)
	if err != nil {
		return nil, notFound(err)
	}
	return p, nil
}

// normDomains lower-cases, trims and de-duplicates domains.
func normDomains(ds []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, d := range ds {
		d = strings.ToLower(strings.TrimSpace(d))
		if d != "" && !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

// SSODomain is a workspace's claim on an email domain for one of its providers. It routes
// sign-ins only once Verified: someone published VerificationToken in the domain's DNS.
type SSODomain struct {
	Domain            string
	ProviderID        string
	WorkspaceID       string
	VerificationToken string
	Verified          bool
	VerifiedAt        int64  // 0 until verified
	VerifiedByUserID  string // who verified it
	VerifiedByEmail   string // their email, while the account exists
	CreatedAt         int64
}

// ErrSSODomainTaken: another workspace has already proven it owns the domain.
var ErrSSODomainTaken = errs.New(errs.Conflict, "domain_taken", "Another workspace has verified this domain.")

const ssoDomainCols = `d.domain, d.provider_id, d.workspace_id, d.verification_token, d.verified, d.verified_at_unix, d.verified_by_user_id,
	d.created_at_unix, u.email`

// ssoDomainFrom joins the verifier's email; it is gone (NULL) once their account is.
const ssoDomainFrom = ` FROM sso_domains d LEFT JOIN users u ON u.id = d.verified_by_user_id `

func scanSSODomain(row rowScanner) (*SSODomain, error) {
	d := &SSODomain{}
	var at sql.NullInt64
	var email sql.NullString
	if err := row.Scan(&d.Domain, &d.ProviderID, &d.WorkspaceID, &d.VerificationToken, &d.Verified, &at, &d.VerifiedByUserID, &d.CreatedAt, &email); err != nil {
		return nil, notFound(err)
	}
	d.VerifiedAt, d.VerifiedByEmail = at.Int64, email.String
	return d, nil
}

// putSSODomains makes the provider's claims p.Domains: claims it no longer lists go, claims it
// keeps stay as they are (verified or not), new ones start unverified with a fresh token. A new
// domain another workspace has verified is ErrSSODomainTaken; one another provider of this
// workspace claims is a unique violation.
func (tx *Tx) putSSODomains(ctx context.Context, p *SSOProvider, now int64) error {
	rows, err := tx.tx.QueryContext(ctx, tx.db.rebind(`SELECT domain FROM sso_domains WHERE provider_id = ? AND workspace_id = ?`), p.ID, p.WorkspaceID)
	if err != nil {
		return err
	}
	var have []string
	for rows.Next() {
		var d string
		if err := rows.Scan(&d); err != nil {
			rows.Close()
			return err
		}
		have = append(have, d)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, d := range have {
		if !slices.Contains(p.Domains, d) {
			if _, err := tx.exec(ctx, `DELETE FROM sso_domains WHERE workspace_id = ? AND domain = ? AND provider_id = ?`, p.WorkspaceID, d, p.ID); err != nil {
				return err
			}
		}
	}
	for _, d := range p.Domains {
		if slices.Contains(have, d) {
			continue
		}
		var n int
		if err := tx.queryRow(ctx, `SELECT COUNT(*) FROM sso_domains WHERE domain = ? AND verified = ? AND workspace_id <> ?`, d, true, p.WorkspaceID).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return ErrSSODomainTaken
		}
		if _, err := tx.exec(ctx, `INSERT INTO sso_domains (domain, provider_id, workspace_id, verification_token, verified, created_at_unix) VALUES (?, ?, ?, ?, ?, ?)`,
			d, p.ID, p.WorkspaceID, RandomString(32), false, now); err != nil {
			return err
		}
	}
	return nil
}

// CreateSSOProvider stores a provider with its domains (unverified), all or nothing. A domain
// another workspace has verified is ErrSSODomainTaken; one another provider of the workspace
// claims is a unique violation (IsUniqueViolation).
func (db *DB) CreateSSOProvider(ctx context.Context, p SSOProvider) error {
	p.Domains = normDomains(p.Domains)
	return db.InTx(ctx, func(tx *Tx) error {
		if _, err := tx.exec(ctx, `INSERT INTO sso_providers (`+ssoProviderCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			p.ID, p.WorkspaceID, p.Type, p.Name, p.Enabled, p.OIDCIssuer, p.OIDCClientID, p.OIDCClientSecretEnc, p.OIDCScopes,
			p.SAMLEntityID, p.SAMLSSOURL, p.SAMLCertificate, p.CreatedBy, p.CreatedAt, p.UpdatedAt); err != nil {
			return err
		}
		return tx.putSSODomains(ctx, &p, p.CreatedAt)
	})
}

// UpdateSSOProvider replaces a provider's settings and domains (type, workspace and creation
// stay; domains it keeps keep their verification).
func (db *DB) UpdateSSOProvider(ctx context.Context, p SSOProvider) error {
	p.Domains = normDomains(p.Domains)
	return db.InTx(ctx, func(tx *Tx) error {
		if err := affected(tx.exec(ctx, `UPDATE sso_providers SET name = ?, enabled = ?, oidc_issuer = ?, oidc_client_id = ?, oidc_client_secret_enc = ?,
			oidc_scopes = ?, saml_entity_id = ?, saml_sso_url = ?, saml_certificate = ?, updated_at_unix = ? WHERE id = ? AND workspace_id = ?`,
			p.Name, p.Enabled, p.OIDCIssuer, p.OIDCClientID, p.OIDCClientSecretEnc, p.OIDCScopes, p.SAMLEntityID, p.SAMLSSOURL, p.SAMLCertificate,
			p.UpdatedAt, p.ID, p.WorkspaceID)); err != nil {
			return err
		}
		return tx.putSSODomains(ctx, &p, p.UpdatedAt)
	})
}

// DeleteSSOProvider removes a provider of the workspace (its domains and flows go with it).
func (db *DB) DeleteSSOProvider(ctx context.Context, workspaceID, id string) error {
	return affected(db.exec(ctx, `DELETE FROM sso_providers WHERE id = ? AND workspace_id = ?`, id, workspaceID))
}

// ListSSODomains lists the workspace's domain claims by domain.
func (db *DB) ListSSODomains(ctx context.Context, workspaceID string) ([]SSODomain, error) {
	return collect(scanSSODomain)(db.query(ctx, `SELECT `+ssoDomainCols+ssoDomainFrom+`WHERE d.workspace_id = ? ORDER BY d.domain`, workspaceID))
}

// SSODomain loads one of the workspace's domain claims.
func (db *DB) SSODomain(ctx context.Context, workspaceID, domain string) (*SSODomain, error) {
	return scanSSODomain(db.queryRow(ctx, `SELECT `+ssoDomainCols+ssoDomainFrom+`WHERE d.workspace_id = ? AND d.domain = ?`,
		workspaceID, strings.ToLower(strings.TrimSpace(domain))))
}

// VerifySSODomain marks the workspace's claim on domain verified by userID. ErrNotFound when the
// workspace has no such claim; ErrSSODomainTaken when another workspace verified it first. A
// claim already verified keeps its first verification.
func (db *DB) VerifySSODomain(ctx context.Context, workspaceID, domain, userID string, now time.Time) error {
	domain = strings.ToLower(strings.TrimSpace(domain))
	return db.InTx(ctx, func(tx *Tx) error {
		var verified bool
		if err := tx.queryRow(ctx, `SELECT verified FROM sso_domains WHERE workspace_id = ? AND domain = ?`, workspaceID, domain).Scan(&verified); err != nil {
			return notFound(err)
		}
		if verified {
			return nil
		}
		_, err := tx.exec(ctx, `UPDATE sso_domains SET verified = ?, verified_at_unix = ?, verified_by_user_id = ? WHERE workspace_id = ? AND domain = ?`,
			true, now.Unix(), userID, workspaceID, domain)
		if IsUniqueViolation(err) {
			return ErrSSODomainTaken
		}
		return err
	})
}

func (db *DB) ssoDomains(ctx context.Context, workspaceID string) (all, verified map[string][]string, err error) {
	ds, err := db.ListSSODomains(ctx, workspaceID)
	if err != nil {
		return nil, nil, err
	}
	all, verified = map[string][]string{}, map[string][]string{}
	for _, d := range ds {
		all[d.ProviderID] = append(all[d.ProviderID], d.Domain)
		if d.Verified {
			verified[d.ProviderID] = append(verified[d.ProviderID], d.Domain)
		}
	}
	return all, verified, nil
}

// SSOProvider loads a provider of the workspace.
func (db *DB) SSOProvider(ctx context.Context, workspaceID, id string) (*SSOProvider, error) {
	p, err := scanSSOProvider(db.queryRow(ctx, `SELECT `+ssoProviderCols+` FROM sso_providers WHERE id = ? AND workspace_id = ?`, id, workspaceID))
	if err != nil {
		return nil, err
	}
	ds, vs, err := db.ssoDomains(ctx, workspaceID)
	if err != nil {
		return nil, err
	}
	p.Domains, p.VerifiedDomains = ds[p.ID], vs[p.ID]
	return p, nil
}

// ListSSOProviders lists the workspace's providers, oldest first.
func (db *DB) ListSSOProviders(ctx context.Context, workspaceID string) ([]SSOProvider, error) {
	rows, err := db.query(ctx, `SELECT `+ssoProviderCols+` FROM sso_providers WHERE workspace_id = ? ORDER BY created_at_unix, id`, workspaceID)
	if err != nil {
		return nil, err
	}
	var out []SSOProvider
	for rows.Next() {
		p, err := scanSSOProvider(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, *p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	ds, vs, err := db.ssoDomains(ctx, workspaceID)
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].Domains, out[i].VerifiedDomains = ds[out[i].ID], vs[out[i].ID]
	}
	return out, nil
}

// SSOProviderByDomain finds the provider whose workspace verified an email domain (any
// workspace: this is how sign-in finds where to send a user). Unverified claims never match.
// Disabled providers are returned too; callers check.
func (db *DB) SSOProviderByDomain(ctx context.Context, domain string) (*SSOProvider, error) {
	var wsID, pid string
	err := db.queryRow(ctx, `SELECT workspace_id, provider_id FROM sso_domains WHERE domain = ? AND verified = ?`,
		strings.ToLower(strings.TrimSpace(domain)), true).Scan(&wsID, &pid)
	if err != nil {
		return nil, notFound(err)
	}
	return db.SSOProvider(ctx, wsID, pid)
}

// SSOFlow is a sign-in in flight, stored under the hash of its state.
type SSOFlow struct {
	ProviderID    string
	WorkspaceID   string
	NonceHash     string // OIDC: HashToken(nonce)
	VerifierEnc   string // OIDC: the PKCE verifier, encrypted by the caller
	SAMLRequestID string // SAML: the AuthnRequest's ID
	RedirectPath  string
	ExpiresAt     int64
}

// CreateSSOFlow stores a flow (and sweeps away expired ones).
func (db *DB) CreateSSOFlow(ctx context.Context, state string, f SSOFlow, now time.Time) error {
	return db.InTx(ctx, func(tx *Tx) error {
		if _, err := tx.exec(ctx, `DELETE FROM sso_flows WHERE expires_at_unix < ?`, now.Unix()-3600); err != nil {
			return err
		}
		_, err := tx.exec(ctx, `INSERT INTO sso_flows (state_hash, provider_id, workspace_id, nonce_hash, verifier_enc, saml_request_id, redirect_path, created_at_unix, expires_at_unix, used)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			HashToken(state), f.ProviderID, f.WorkspaceID, f.NonceHash, f.VerifierEnc, f.SAMLRequestID, f.RedirectPath, now.Unix(), f.ExpiresAt, false)
		return err
	})
}

// UseSSOFlow marks an unexpired, unused flow used and returns it: a state works once.
func (db *DB) UseSSOFlow(ctx context.Context, state string, now time.Time) (*SSOFlow, error) {
	f := &SSOFlow{}
	err := db.InTx(ctx, func(tx *Tx) error {
		return tx.queryRow(ctx, `UPDATE sso_flows SET used = ? WHERE state_hash = ? AND used = ? AND expires_at_unix > ?
			RETURNING provider_id, workspace_id, nonce_hash, verifier_enc, saml_request_id, redirect_path, expires_at_unix`,
			true, HashToken(state), false, now.Unix()).Scan(&f.ProviderID, &f.WorkspaceID, &f.NonceHash, &f.VerifierEnc, &f.SAMLRequestID, &f.RedirectPath, &f.ExpiresAt)
	})
	if err != nil {
		return nil, notFound(err)
	}
	return f, nil
}

// AutoProvisioning is the workspace's user_auto_provisioning setting.
type AutoProvisioning struct {
	Enabled        bool
	EnabledAtUnix  *int64
	EnabledByEmail string
}

// SSOAutoProvisioning reads the workspace's user auto-provisioning setting.
func (db *DB) SSOAutoProvisioning(ctx context.Context, workspaceID string) (*AutoProvisioning, error) {
	a := &AutoProvisioning{}
	var at sql.NullInt64
	var by sql.NullString
	err := db.queryRow(ctx, `SELECT user_auto_provisioning_enabled, user_auto_provisioning_enabled_at_unix, user_auto_provisioning_enabled_by_user_email
		FROM workspaces WHERE id = ?`, workspaceID).Scan(&a.Enabled, &at, &by)
	if err != nil {
		return nil, notFound(err)
	}
	if at.Valid {
		a.EnabledAtUnix = &at.Int64
	}
	a.EnabledByEmail = by.String
	return a, nil
}

// SetSSOAutoProvisioning turns auto-provisioning on (recording who and when, unless it already
// was on) or off (clearing both).
func (db *DB) SetSSOAutoProvisioning(ctx context.Context, workspaceID string, enabled bool, byEmail string, now time.Time) error {
	if !enabled {
		return affected(db.exec(ctx, `UPDATE workspaces SET user_auto_provisioning_enabled = ?, user_auto_provisioning_enabled_at_unix = NULL,
			user_auto_provisioning_enabled_by_user_email = NULL WHERE id = ?`, false, workspaceID))
	}
	return db.InTx(ctx, func(tx *Tx) error {
		var on bool
		if err := tx.queryRow(ctx, `SELECT user_auto_provisioning_enabled FROM workspaces WHERE id = ?`, workspaceID).Scan(&on); err != nil {
			return notFound(err)
		}
		if on {
			return nil
		}
		return affected(tx.exec(ctx, `UPDATE workspaces SET user_auto_provisioning_enabled = ?, user_auto_provisioning_enabled_at_unix = ?,
			user_auto_provisioning_enabled_by_user_email = ? WHERE id = ?`, true, now.Unix(), byEmail, workspaceID))
	})
}

// SSORequired reads the workspace's "SSO required" setting.
func (db *DB) SSORequired(ctx context.Context, workspaceID string) (bool, error) {
	var on bool
	err := db.queryRow(ctx, `SELECT sso_required FROM workspaces WHERE id = ?`, workspaceID).Scan(&on)
	return on, notFound(err)
}

// SetSSORequired turns the workspace's "SSO required" setting on or off.
func (db *DB) SetSSORequired(ctx context.Context, workspaceID string, on bool) error {
	return affected(db.exec(ctx, `UPDATE workspaces SET sso_required = ? WHERE id = ?`, on, workspaceID))
}

// SSORequiredForDomain says whether an email domain must sign in with SSO: a workspace verified
// it for an enabled provider and requires SSO.
func (db *DB) SSORequiredForDomain(ctx context.Context, domain string) (bool, error) {
	var n int
	err := db.queryRow(ctx, `SELECT COUNT(*) FROM sso_domains d
		JOIN sso_providers p ON p.id = d.provider_id AND p.workspace_id = d.workspace_id
		JOIN workspaces w ON w.id = d.workspace_id
		WHERE d.domain = ? AND d.verified = ? AND p.enabled = ? AND w.sso_required = ?`,
		strings.ToLower(strings.TrimSpace(domain)), true, true, true).Scan(&n)
	return n > 0, err
}

// EndPasswordSessions ends the sessions that the workspace's own identity provider did not open,
// of every user whose email is on a domain the workspace verified for an enabled provider: when a
// workspace starts to require SSO, sessions opened with a password must not outlive the change.
// It returns how many sessions ended.
func (db *DB) EndPasswordSessions(ctx context.Context, workspaceID string) (int64, error) {
	res, err := db.exec(ctx, `DELETE FROM sessions WHERE sso_workspace_id <> ? AND user_id IN (
		SELECT u.id FROM users u
		JOIN sso_domains d ON u.email LIKE '%@' || d.domain
		JOIN sso_providers p ON p.id = d.provider_id AND p.workspace_id = d.workspace_id
		WHERE d.workspace_id = ? AND d.verified = ? AND p.enabled = ?)`, workspaceID, workspaceID, true, true)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// CreateSSOUser provisions a user signed in by a workspace's identity provider: verified email,
// no password (the empty hash matches none), the workspace as their default and an editor
// membership, all or nothing. An existing email is a unique violation.
func (db *DB) CreateSSOUser(ctx context.Context, email, firstName, workspaceID string, now time.Time) (*User, error) {
	u := &User{ID: NewID(), Email: strings.ToLower(strings.TrimSpace(email)), EmailVerified: true, FirstName: firstName, WorkspaceID: workspaceID, CreatedAt: now.Unix()}
	err := db.InTx(ctx, func(tx *Tx) error {
		if _, err := tx.exec(ctx, `INSERT INTO users (id, email, password_hash, email_verified, first_name, workspace_id, created_at_unix) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			u.ID, u.Email, "", true, u.FirstName, workspaceID, u.CreatedAt); err != nil {
			return err
		}
		_, err := tx.exec(ctx, `INSERT INTO workspace_members (workspace_id, user_id, role, joined_at_unix) VALUES (?, ?, ?, ?)`, workspaceID, u.ID, "editor", now.Unix())
		return err
	})
	if err != nil {
		return nil, err
	}
	return u, nil
}
