package e2e

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"html/template"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crewjam/saml"
	"github.com/crewjam/saml/samlidp"

	"timbre/internal/app"
	"timbre/internal/sso"
	"timbre/internal/sso/ssotest"
	"timbre/internal/store"
)

// samlIdP is crewjam/saml's own identity provider (samlidp) in process, on http://localhost:PORT
// (another site than Timbre on 127.0.0.1, as a real IdP is). It keeps the raw query of every
// AuthnRequest it is sent over the HTTP-Redirect binding, so the test can check its signature.
type samlIdP struct {
	URL string
	srv *httptest.Server
	idp *samlidp.Server

	mu       sync.Mutex
	requests []string // raw queries of GET /sso
}

func newSAMLIdP(t *testing.T) *samlIdP {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "e2e-saml-idp"}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(24 * time.Hour), KeyUsage: x509.KeyUsageDigitalSignature, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, &tmpl, &tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	ip := &samlIdP{}
	ip.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/sso" {
			ip.mu.Lock()
			ip.requests = append(ip.requests, r.URL.RawQuery)
			ip.mu.Unlock()
		}
		ip.idp.ServeHTTP(w, r)
	}))
	t.Cleanup(ip.srv.Close)
	_, port, _ := net.SplitHostPort(ip.srv.Listener.Addr().String())
	ip.URL = "http://localhost:" + port
	u, _ := url.Parse(ip.URL)
	ip.idp, err = samlidp.New(samlidp.Options{URL: *u, Key: key, Certificate: cert, Store: &samlidp.MemoryStore{}, Logger: log.New(io.Discard, "", 0)})
	if err != nil {
		t.Fatal(err)
	}
	// samlidp's own login form posts to /login, which only opens an IdP session and answers JSON;
	// posted to /sso instead, the same fields sign in and continue the SAML flow (a SAMLResponse
	// auto-posted to the SP's ACS). Otherwise the form is samlidp's, with labels for the fields.
	ip.idp.LoginFormTemplate = template.Must(template.New("login").Parse(`<html><head><title>SAML IdP sign-in</title></head><body>` +
		`<h1>Test SAML identity provider</h1>` +
		`<p>{{.Toast}}</p>` +
		`<form method="post" action="` + template.HTMLEscapeString(ip.URL+"/sso") + `">` +
		`<label>User <input type="text" name="user" placeholder="user" value="" /></label>` +
		`<label>Password <input type="password" name="password" placeholder="password" value="" /></label>` +
		`<input type="hidden" name="SAMLRequest" value="{{.SAMLRequest}}" />` +
		`<input type="hidden" name="RelayState" value="{{.RelayState}}" />` +
		`<input type="submit" value="Log In" />` +
		`</form></body></html>`))
	return ip
}

// put calls samlidp's admin API (users, services).
func (ip *samlIdP) put(t *testing.T, path string, body []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPut, ip.srv.URL+path, strings.NewReader(string(body)))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNoContent {
		t.Fatalf("IdP PUT %s: %d", path, res.StatusCode)
	}
}

func (ip *samlIdP) redirectRequests() []string {
	ip.mu.Lock()
	defer ip.mu.Unlock()
	return append([]string(nil), ip.requests...)
}

// httpGet fetches a URL, failing the test unless it answers 200.
func httpGet(t *testing.T, u string) []byte {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", u, res.StatusCode, b)
	}
	return b
}

// TestBrowserSAML: a workspace admin registers a SAML identity provider (crewjam's samlidp) from
// its metadata, proves the email domain in DNS and turns on auto-provisioning; the IdP is given
// Timbre's SP metadata. A new person signs in through /app/sso, samlidp's login form and the
// auto-posted response to the ACS, and lands in that workspace. The AuthnRequest the IdP got
// carries a signature that verifies with the certificate of Timbre's metadata.
func TestBrowserSAML(t *testing.T) {
	b := requireBrowser(t)
	const (
		email    = "sally@saml-acme.test"
		idpUser  = "sally"
		idpPass  = "sally-idp-password"
		domain   = "saml-acme.test"
		provName = "Acme SAML"
	)
	ip := newSAMLIdP(t)
	dns := ssotest.NewDNS(t)
	srv := StartTimbre(t, func(o *app.Options) {
		o.SSO = func(s *sso.Service) {
			s.AllowInsecureIdP = true // the IdP's SSO URL is http://localhost:…
			s.Resolver = sso.NewResolver(dns.Addr)
		}
	})
	admin := verifiedUser(t, srv, "ada@"+domain, scaleTier)
	_, key, err := srv.App.Auth.CreateAPIKey(context.Background(), admin.ID, admin.WorkspaceID, "saml setup")
	if err != nil {
		t.Fatal(err)
	}

	// The admin's part: the IdP's metadata in, the domain proven, auto-provisioning on.
	created := apiJSON(t, srv, key, "POST", "/api/workspace/sso/providers", map[string]any{
		"type": "saml", "name": provName, "domains": []string{domain}, "metadata_xml": string(httpGet(t, ip.URL+"/metadata"))}, http.StatusCreated)
	if created["sso_url"] != ip.URL+"/sso" {
		t.Fatalf("provider %v", created)
	}
	verifyDomainsByDNS(t, srv, key, dns)
	apiJSON(t, srv, key, "PATCH", "/api/workspace/sso/settings", map[string]any{"user_auto_provisioning_enabled": true}, http.StatusOK)

	// The IdP admin's part: Timbre's SP metadata in, a user at the workspace's domain.
	spMeta := httpGet(t, srv.URL+"/api/sso/saml/metadata")
	spCert := signingCertOf(t, spMeta)
	ip.put(t, "/services/timbre", spMeta)
	user, _ := json.Marshal(map[string]any{"name": idpUser, "email": email, "password": idpPass, "given_name": "Sally"})
	ip.put(t, "/users/"+idpUser, user)

	b.run(t, srv, "saml.mjs", "SAML_EMAIL="+email, "SAML_IDP="+ip.URL, "SAML_USER="+idpUser, "SAML_PASSWORD="+idpPass,
		"WORKSPACE_ID="+admin.WorkspaceID, "WORKSPACE_NAME="+admin.Email+"'s workspace")

	// The request the browser carried to the IdP was signed by Timbre's key.
	reqs := ip.redirectRequests()
	if len(reqs) != 1 {
		t.Fatalf("the IdP got %d redirect-binding requests, want 1", len(reqs))
	}
	if err := verifyRedirectSignature(reqs[0], spCert.PublicKey.(*rsa.PublicKey)); err != nil {
		t.Fatalf("the AuthnRequest's signature: %v (%s)", err, reqs[0])
	}

	// What the browser did is what the database holds: the person provisioned as an editor of the
	// workspace, and the sign-in in its audit log.
	ctx := context.Background()
	u, err := srv.App.DB.UserByEmail(ctx, email)
	if err != nil || !u.EmailVerified {
		t.Fatalf("provisioned user: %+v, %v", u, err)
	}
	if role, err := srv.App.DB.Role(ctx, admin.WorkspaceID, u.ID); err != nil || role != "editor" {
		t.Fatalf("provisioned user's role: %q, %v", role, err)
	}
	entries, _, err := srv.App.DB.ListAudit(ctx, admin.WorkspaceID, store.AuditFilter{Limit: 10, ActorUserID: u.ID, ClassName: "sso", Activity: "sign_in"})
	if err != nil || len(entries) != 1 || !strings.Contains(entries[0].Details, `"protocol":"saml"`) {
		t.Fatalf("audited SSO sign-ins of %s: %+v, %v", email, entries, err)
	}
}

// verifyDomainsByDNS proves every pending domain of the API key's workspace as an admin does:
// publish each claim's TXT record, then ask Timbre to verify it.
func verifyDomainsByDNS(t *testing.T, srv *Timbre, key string, dns *ssotest.DNS) {
	t.Helper()
	list := apiJSON(t, srv, key, "GET", "/api/workspace/sso/domains", nil, http.StatusOK)
	for _, x := range list["domains"].([]any) {
		d := x.(map[string]any)
		if d["status"] == "verified" {
			continue
		}
		rec := d["txt_record"].(map[string]any)
		dns.SetTXT(rec["name"].(string), rec["value"].(string))
		got := apiJSON(t, srv, key, "POST", "/api/workspace/sso/domains/"+d["domain"].(string)+"/verify", nil, http.StatusOK)
		if got["status"] != "verified" {
			t.Fatalf("verify %s: %v", d["domain"], got)
		}
	}
}

// signingCertOf reads the SP metadata as an IdP does: AuthnRequestsSigned="true" and the signing
// certificate.
func signingCertOf(t *testing.T, meta []byte) *x509.Certificate {
	t.Helper()
	var ed saml.EntityDescriptor
	if err := xml.Unmarshal(meta, &ed); err != nil || len(ed.SPSSODescriptors) != 1 {
		t.Fatalf("SP metadata (%v): %s", err, meta)
	}
	d := ed.SPSSODescriptors[0]
	if d.AuthnRequestsSigned == nil || !*d.AuthnRequestsSigned {
		t.Fatalf("SP metadata does not announce signed AuthnRequests: %s", meta)
	}
	for _, kd := range d.KeyDescriptors {
		if kd.Use == "signing" && len(kd.KeyInfo.X509Data.X509Certificates) > 0 {
			der, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(kd.KeyInfo.X509Data.X509Certificates[0].Data), ""))
			if err != nil {
				t.Fatal(err)
			}
			c, err := x509.ParseCertificate(der)
			if err != nil {
				t.Fatal(err)
			}
			return c
		}
	}
	t.Fatalf("SP metadata has no signing certificate: %s", meta)
	return nil
}

// verifyRedirectSignature checks an HTTP-Redirect binding signature (SAML bindings §3.4.4.1):
// RSA-SHA256 over "SAMLRequest=…&RelayState=…&SigAlg=…" with the values as sent.
func verifyRedirectSignature(rawQuery string, pub *rsa.PublicKey) error {
	p := map[string]string{}
	for _, kv := range strings.Split(rawQuery, "&") {
		k, v, _ := strings.Cut(kv, "=")
		p[k] = v
	}
	if alg, _ := url.QueryUnescape(p["SigAlg"]); alg != "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256" {
		return fmt.Errorf("SigAlg %q, want RSA-SHA256", alg)
	}
	signed := "SAMLRequest=" + p["SAMLRequest"]
	if rs, ok := p["RelayState"]; ok {
		signed += "&RelayState=" + rs
	}
	signed += "&SigAlg=" + p["SigAlg"]
	s64, err := url.QueryUnescape(p["Signature"])
	if err != nil {
		return err
	}
	sig, err := base64.StdEncoding.DecodeString(s64)
	if err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(signed))
	return rsa.VerifyPKCS1v15(pub, crypto.SHA256, sum[:], sig)
}
