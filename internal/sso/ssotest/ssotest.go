// Package ssotest is an in-process OpenID Connect provider for tests, speaking the real protocol:
// discovery, JWKS, an authorization endpoint issuing single-use codes (PKCE S256 required) and a
// token endpoint issuing RS256-signed ID tokens after checking the client, the code, the
// redirect URI and the code verifier.
//
// It approves the configured user (Provider.Email) at once, or, with Options.Interactive, shows a
// small sign-in page a browser submits (the e2e tests). Knobs make it misbehave on purpose: a
// wrong nonce, a foreign signing key, another audience or issuer, an expired token.
package ssotest

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"html/template"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// Options shape a Provider.
type Options struct {
	// ClientID and ClientSecret are the credentials the relying party must present
	// (defaults: "timbre-client" and a fixed 30-character secret).
	ClientID, ClientSecret string
	// Email is the user the provider signs in (changeable later with Set).
	Email string
	// Hostname, when set, names the provider in its URL instead of 127.0.0.1 (it still listens
	// on 127.0.0.1): "localhost" makes it another site than a relying party on 127.0.0.1.
	Hostname string
	// Interactive shows a sign-in page at the authorization endpoint (the email prefilled, an
	// "Approve" button) instead of approving at once.
	Interactive bool
}

// Provider is a running OIDC provider. Its fields are set under its lock: change them with Set.
type Provider struct {
	URL                    string // the issuer, e.g. http://127.0.0.1:PORT
	ClientID, ClientSecret string

	srv           *httptest.Server
	key, otherKey *rsa.PrivateKey
	interactive   bool

	mu    sync.Mutex
	codes map[string]grant

	// Who the next sign-in is.
	Email         string
	EmailVerified bool
	// NoEmailVerified leaves the email_verified claim out of the ID token.
	NoEmailVerified bool
	GivenName       string
	// Misbehaviour.
	BadNonce, WrongKey, Expired bool
	Audience                    string // "" = the client id
	Issuer                      string // "" = the real issuer

	tokenCalls, pkceFailures, authorizations int
}

type grant struct{ nonce, challenge, redirectURI, email string }

// New starts a provider; it stops when the test ends.
func New(t testing.TB, o Options) *Provider {
	t.Helper()
	if o.ClientID == "" {
		o.ClientID = "timbre-client"
	}
	if o.ClientSecret == "" {
		o.ClientSecret = "op-secret-" + strings.Repeat("x", 20)
	}
	p := &Provider{ClientID: o.ClientID, ClientSecret: o.ClientSecret, codes: map[string]grant{}, interactive: o.Interactive,
		Email: o.Email, EmailVerified: true, GivenName: "Test"}
	var err error
	if p.key, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
		t.Fatal(err)
	}
	if p.otherKey, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", p.discovery)
	mux.HandleFunc("GET /jwks", p.jwks)
	mux.HandleFunc("GET /authorize", p.authorize)
	mux.HandleFunc("POST /authorize", p.approve)
	mux.HandleFunc("POST /token", p.token)
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	p.srv = httptest.NewServer(mux)
	t.Cleanup(p.srv.Close)
	p.URL = p.srv.URL
	if o.Hostname != "" {
		_, port, _ := net.SplitHostPort(p.srv.Listener.Addr().String())
		p.URL = "http://" + net.JoinHostPort(o.Hostname, port)
	}
	return p
}

// Set changes the provider's fields under its lock.
func (p *Provider) Set(fn func(p *Provider)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fn(p)
}

// TokenCalls is how many token requests arrived.
func (p *Provider) TokenCalls() int { p.mu.Lock(); defer p.mu.Unlock(); return p.tokenCalls }

// PKCEFailures is how many token requests failed the PKCE check.
func (p *Provider) PKCEFailures() int { p.mu.Lock(); defer p.mu.Unlock(); return p.pkceFailures }

// Authorizations is how many authorization codes were issued.
func (p *Provider) Authorizations() int { p.mu.Lock(); defer p.mu.Unlock(); return p.authorizations }

func (p *Provider) discovery(w http.ResponseWriter, r *http.Request) {
	u := p.URL
	writeJSON(w, 200, map[string]any{
		"issuer": u, "authorization_endpoint": u + "/authorize", "token_endpoint": u + "/token", "jwks_uri": u + "/jwks",
		"response_types_supported": []string{"code"}, "subject_types_supported": []string{"public"},
		"id_token_signing_alg_values_supported": []string{"RS256"}, "code_challenge_methods_supported": []string{"S256"},
		"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "client_secret_post"},
		"scopes_supported":                      []string{"openid", "email", "profile"},
	})
}

func (p *Provider) jwks(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, 200, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &p.key.PublicKey, KeyID: "k1", Algorithm: "RS256", Use: "sig"}}})
}

// checkAuthorizationRequest reports what is wrong with an authorization request, or "".
func (p *Provider) checkAuthorizationRequest(q url.Values) string {
	switch {
	case q.Get("response_type") != "code":
		return "response_type must be code"
	case q.Get("client_id") != p.ClientID:
		return "unknown client_id"
	case q.Get("redirect_uri") == "":
		return "redirect_uri missing"
	case !strings.Contains(" "+q.Get("scope")+" ", " openid "):
		return "scope must include openid"
	case q.Get("state") == "", q.Get("nonce") == "":
		return "state and nonce are required"
	case q.Get("code_challenge_method") != "S256", q.Get("code_challenge") == "":
		return "PKCE with S256 is required"
	}
	if u, err := url.Parse(q.Get("redirect_uri")); err != nil || !u.IsAbs() {
		return "redirect_uri must be absolute"
	}
	return ""
}

var page = template.Must(template.New("authorize").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Test identity provider</title>
<style>body{font:16px system-ui,sans-serif;background:#f4f4f5;display:grid;place-items:center;min-height:100vh;margin:0}
main{background:#fff;border:1px solid #ddd;border-radius:12px;padding:32px;width:360px}
h1{font-size:20px;margin:0 0 8px}p{color:#555;font-size:14px}label{display:block;font-size:14px;margin:16px 0 4px}
input{width:100%;box-sizing:border-box;padding:8px;border:1px solid #bbb;border-radius:6px;font-size:15px}
button{margin-top:20px;width:100%;padding:10px;border:0;border-radius:6px;background:#1d4ed8;color:#fff;font-size:15px;cursor:pointer}</style>
</head><body><main>
<h1>Test identity provider</h1>
<p><strong>{{.Client}}</strong> asks you to sign in.</p>
<form method="post" action="/authorize">
{{range $k, $v := .Query}}{{range $v}}<input type="hidden" name="{{$k}}" value="{{.}}">{{end}}{{end}}
<label for="login">Email</label><input id="login" name="login" type="email" value="{{.Email}}">
<button type="submit">Approve</button>
</form></main></body></html>`))

func (p *Provider) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if problem := p.checkAuthorizationRequest(q); problem != "" {
		http.Error(w, "bad authorization request: "+problem, http.StatusBadRequest)
		return
	}
	p.mu.Lock()
	email := p.Email
	p.mu.Unlock()
	if p.interactive {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_ = page.Execute(w, map[string]any{"Client": q.Get("client_id"), "Email": email, "Query": q})
		return
	}
	p.issueCode(w, r, q, email)
}

// approve is the sign-in page's form: the same request, plus the login the person typed.
func (p *Provider) approve(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	q := url.Values{}
	for k, v := range r.PostForm {
		if k != "login" {
			q[k] = v
		}
	}
	if problem := p.checkAuthorizationRequest(q); problem != "" {
		http.Error(w, "bad authorization request: "+problem, http.StatusBadRequest)
		return
	}
	email := strings.TrimSpace(r.PostForm.Get("login"))
	if email == "" {
		http.Error(w, "enter an email", http.StatusBadRequest)
		return
	}
	p.issueCode(w, r, q, email)
}

func (p *Provider) issueCode(w http.ResponseWriter, r *http.Request, q url.Values, email string) {
	code := randomString(24)
	p.mu.Lock()
	p.codes[code] = grant{nonce: q.Get("nonce"), challenge: q.Get("code_challenge"), redirectURI: q.Get("redirect_uri"), email: email}
	p.authorizations++
	p.mu.Unlock()
	to, _ := url.Parse(q.Get("redirect_uri"))
	v := to.Query()
	v.Set("code", code)
	v.Set("state", q.Get("state"))
	to.RawQuery = v.Encode()
	http.Redirect(w, r, to.String(), http.StatusFound)
}

func (p *Provider) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	id, secret, ok := r.BasicAuth()
	if ok {
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
	} else {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	if id != p.ClientID || secret != p.ClientSecret {
		writeJSON(w, 401, map[string]string{"error": "invalid_client"})
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.tokenCalls++
	g, found := p.codes[r.PostForm.Get("code")]
	delete(p.codes, r.PostForm.Get("code")) // single use
	if r.PostForm.Get("grant_type") != "authorization_code" || !found || g.redirectURI != r.PostForm.Get("redirect_uri") {
		writeJSON(w, 400, map[string]string{"error": "invalid_grant"})
		return
	}
	sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
	if base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge {
		p.pkceFailures++
		writeJSON(w, 400, map[string]string{"error": "invalid_grant", "error_description": "PKCE verification failed"})
		return
	}
	now := time.Now()
	claims := map[string]any{"iss": p.URL, "sub": "sub-" + g.email, "aud": p.ClientID, "iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(),
		"nonce": g.nonce, "email": g.email, "email_verified": p.EmailVerified, "given_name": p.GivenName, "name": p.GivenName + " User"}
	if p.BadNonce {
		claims["nonce"] = g.nonce + "x"
	}
	if p.NoEmailVerified {
		delete(claims, "email_verified")
	}
	if p.Audience != "" {
		claims["aud"] = p.Audience
	}
	if p.Issuer != "" {
		claims["iss"] = p.Issuer
	}
	if p.Expired {
		claims["iat"], claims["exp"] = now.Add(-2*time.Hour).Unix(), now.Add(-time.Hour).Unix()
	}
	key := p.key
	if p.WrongKey {
		key = p.otherKey
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: key}, (&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", "k1"))
	if err != nil {
		http.Error(w, err.Error(), 500)
		return
	}
	payload, _ := json.Marshal(claims)
	jws, err := signer.Sign(payload)
	if err != nil {
		http.Error(w, err.Error(), 500)
		return
	}
	idToken, _ := jws.CompactSerialize()
	writeJSON(w, 200, map[string]any{"access_token": randomString(32), "token_type": "Bearer", "expires_in": 300, "id_token": idToken})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func randomString(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)[:n]
}
