package sso_test

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// testOP is an in-process OpenID Connect provider speaking the real protocol: discovery, JWKS,
// an authorization endpoint issuing codes (requiring PKCE S256), and a token endpoint issuing
// RS256-signed ID tokens after checking the client, the code, the redirect URI and the verifier.
// It signs the configured user in without a login page; knobs make it misbehave on purpose.
type testOP struct {
	srv                    *httptest.Server
	key, otherKey          *rsa.PrivateKey
	clientID, clientSecret string

	mu    sync.Mutex
	codes map[string]grant
	// who the next sign-in is
	email         string
	emailVerified bool
	// misbehaviour
	badNonce, wrongKey, expired bool
	audience                    string // "" = the client id
	issuer                      string // "" = the real issuer
	tokenCalls                  int
	pkceFailures                int
}

type grant struct{ nonce, challenge, redirectURI string }

func newTestOP(t *testing.T) *testOP {
	t.Helper()
	op := &testOP{clientID: "timbre-client", clientSecret: "op-secret-" + strings.Repeat("x", 20), codes: map[string]grant{}, emailVerified: true}
	var err error
	if op.key, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
		t.Fatal(err)
	}
	if op.otherKey, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", op.discovery)
	mux.HandleFunc("GET /jwks", op.jwks)
	mux.HandleFunc("GET /authorize", op.authorize)
	mux.HandleFunc("POST /token", op.token)
	op.srv = httptest.NewServer(mux)
	t.Cleanup(op.srv.Close)
	return op
}

func (op *testOP) set(fn func(op *testOP)) {
	op.mu.Lock()
	defer op.mu.Unlock()
	fn(op)
}

func (op *testOP) discovery(w http.ResponseWriter, r *http.Request) {
	u := op.srv.URL
	writeJSON(w, 200, map[string]any{
		"issuer": u, "authorization_endpoint": u + "/authorize", "token_endpoint": u + "/token", "jwks_uri": u + "/jwks",
		"response_types_supported": []string{"code"}, "subject_types_supported": []string{"public"},
		"id_token_signing_alg_values_supported": []string{"RS256"}, "code_challenge_methods_supported": []string{"S256"},
		"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "client_secret_post"},
	})
}

func (op *testOP) jwks(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, 200, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &op.key.PublicKey, KeyID: "k1", Algorithm: "RS256", Use: "sig"}}})
}

func (op *testOP) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	switch {
	case q.Get("response_type") != "code", q.Get("client_id") != op.clientID, q.Get("redirect_uri") == "",
		!strings.Contains(" "+q.Get("scope")+" ", " openid "), q.Get("state") == "", q.Get("nonce") == "",
		q.Get("code_challenge_method") != "S256", q.Get("code_challenge") == "":
		http.Error(w, "bad authorization request: "+r.URL.RawQuery, http.StatusBadRequest)
		return
	}
	code := randomString(24)
	op.mu.Lock()
	op.codes[code] = grant{nonce: q.Get("nonce"), challenge: q.Get("code_challenge"), redirectURI: q.Get("redirect_uri")}
	op.mu.Unlock()
	to, _ := url.Parse(q.Get("redirect_uri"))
	v := to.Query()
	v.Set("code", code)
	v.Set("state", q.Get("state"))
	to.RawQuery = v.Encode()
	http.Redirect(w, r, to.String(), http.StatusFound)
}

func (op *testOP) token(w http.ResponseWriter, r *http.Request) {
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
	if id != op.clientID || secret != op.clientSecret {
		writeJSON(w, 401, map[string]string{"error": "invalid_client"})
		return
	}
	op.mu.Lock()
	defer op.mu.Unlock()
	op.tokenCalls++
	g, found := op.codes[r.PostForm.Get("code")]
	delete(op.codes, r.PostForm.Get("code")) // single use
	if r.PostForm.Get("grant_type") != "authorization_code" || !found || g.redirectURI != r.PostForm.Get("redirect_uri") {
		writeJSON(w, 400, map[string]string{"error": "invalid_grant"})
		return
	}
	sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
	if base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge {
		op.pkceFailures++
		writeJSON(w, 400, map[string]string{"error": "invalid_grant", "error_description": "PKCE verification failed"})
		return
	}
	now := time.Now()
	claims := map[string]any{"iss": op.srv.URL, "sub": "sub-" + op.email, "aud": op.clientID, "iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(),
		"nonce": g.nonce, "email": op.email, "email_verified": op.emailVerified, "given_name": "Test", "name": "Test User"}
	if op.badNonce {
		claims["nonce"] = g.nonce + "x"
	}
	if op.audience != "" {
		claims["aud"] = op.audience
	}
	if op.issuer != "" {
		claims["iss"] = op.issuer
	}
	if op.expired {
		claims["iat"], claims["exp"] = now.Add(-2*time.Hour).Unix(), now.Add(-time.Hour).Unix()
	}
	key := op.key
	if op.wrongKey {
		key = op.otherKey
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
