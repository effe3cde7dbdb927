package sso_test

import (
	"bytes"
	"compress/flate"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"html"
	"io"
	"log"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/beevik/etree"
	"github.com/crewjam/saml/samlidp"

	"timbre/internal/sso"
	"timbre/internal/store"
	"timbre/internal/testdb"
)

// testIdP is crewjam/saml's own identity provider (samlidp), in process.
type testIdP struct {
	srv *httptest.Server
	idp *samlidp.Server
}

func newTestIdP(t *testing.T) *testIdP {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test-idp"}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(24 * time.Hour), KeyUsage: x509.KeyUsageDigitalSignature, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, &tmpl, &tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	ti := &testIdP{}
	ti.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { ti.idp.ServeHTTP(w, r) }))
	t.Cleanup(ti.srv.Close)
	u, _ := url.Parse(ti.srv.URL)
	ti.idp, err = samlidp.New(samlidp.Options{URL: *u, Key: key, Certificate: cert, Store: &samlidp.MemoryStore{}, Logger: log.New(io.Discard, "", 0)})
	if err != nil {
		t.Fatal(err)
	}
	return ti
}

func (ti *testIdP) put(t *testing.T, path, body string) {
	t.Helper()
	req, _ := http.NewRequest("PUT", ti.srv.URL+path, strings.NewReader(body))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNoContent {
		t.Fatalf("idp PUT %s: %d", path, res.StatusCode)
	}
}

func (ti *testIdP) addUser(t *testing.T, name, email string) {
	b, _ := json.Marshal(map[string]any{"name": name, "email": email, "password": "idp-password", "given_name": "Alice"})
	ti.put(t, "/users/"+name, string(b))
}

var hiddenInput = regexp.MustCompile(`<input type="hidden" name="(\w+)" value="([^"]*)"`)
var formAction = regexp.MustCompile(`<form method="post" action="([^"]*)"`)

func formOf(t *testing.T, body []byte) (string, url.Values) {
	t.Helper()
	v := url.Values{}
	for _, m := range hiddenInput.FindAllSubmatch(body, -1) {
		v.Set(string(m[1]), html.UnescapeString(string(m[2])))
	}
	a := formAction.FindSubmatch(body)
	if a == nil {
		t.Fatalf("no form in %s", body)
	}
	return html.UnescapeString(string(a[1])), v
}

func post(t *testing.T, b *http.Client, u string, form url.Values) (*http.Response, []byte) {
	t.Helper()
	res, err := b.PostForm(u, form)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res, body
}

// login answers the IdP's login form for the SAMLRequest and RelayState it carries, and returns
// the IdP's auto-posting response form (ACS URL and fields), as a browser would submit it.
func (ti *testIdP) login(t *testing.T, b *http.Client, loginForm url.Values, user string) (string, url.Values) {
	t.Helper()
	f := url.Values{"user": {user}, "password": {"idp-password"}, "SAMLRequest": {loginForm.Get("SAMLRequest")}, "RelayState": {loginForm.Get("RelayState")}}
	res, body := post(t, b, ti.srv.URL+"/sso", f)
	if res.StatusCode != 200 || !bytes.Contains(body, []byte("SAMLResponse")) {
		t.Fatalf("idp /sso: %d %s", res.StatusCode, body)
	}
	return formOf(t, body)
}

// samlResponse runs start → the IdP login → the IdP's response form, unsubmitted.
func (e *env) samlResponse(ti *testIdP, b *http.Client, email, user string) (string, url.Values) {
	e.t.Helper()
	res, err := b.Get(e.srv.URL + "/api/sso/start?email=" + url.QueryEscape(email))
	if err != nil {
		e.t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.HasPrefix(res.Request.URL.String(), ti.srv.URL+"/sso") {
		e.t.Fatalf("start did not reach the IdP's login: %d %s %s", res.StatusCode, res.Request.URL, body)
	}
	_, lf := formOf(e.t, body)
	return ti.login(e.t, b, lf, user)
}

func responseXML(t *testing.T, form url.Values) *etree.Document {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(form.Get("SAMLResponse"))
	if err != nil {
		t.Fatal(err)
	}
	doc := etree.NewDocument()
	if err := doc.ReadFromBytes(raw); err != nil {
		t.Fatal(err)
	}
	return doc
}

func withResponse(t *testing.T, form url.Values, doc *etree.Document) url.Values {
	t.Helper()
	b, err := doc.WriteToBytes()
	if err != nil {
		t.Fatal(err)
	}
	out := url.Values{"SAMLResponse": {base64.StdEncoding.EncodeToString(b)}, "RelayState": {form.Get("RelayState")}}
	return out
}

func TestSAMLSignIn(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newEnv(t, db)
		ti := newTestIdP(t)
		ti.addUser(t, "alice", "alice@corp.test")
		ti.addUser(t, "mallory", "mallory@elsewhere.test")
		admin, ws := e.user("admin@corp.test")
		adm := e.session(admin, ws.ID)

		// The admin pastes the IdP's metadata; the IdP learns Timbre's SP metadata.
		res, err := http.Get(ti.srv.URL + "/metadata")
		if err != nil {
			t.Fatal(err)
		}
		idpMeta, _ := io.ReadAll(res.Body)
		res.Body.Close()
		wantInvalid(t, e.call("POST", "/api/workspace/sso/providers", map[string]any{"type": "saml", "name": "Corp", "domains": []string{"corp.test"},
			"metadata_xml": "<nope/>"}, &adm), "metadata_xml")
		created := wantCode(t, e.call("POST", "/api/workspace/sso/providers", map[string]any{"type": "saml", "name": "Corp", "domains": []string{"corp.test"},
			"metadata_xml": string(idpMeta)}, &adm), http.StatusCreated, "")
		if created["identity_provider_entity_id"] != ti.srv.URL+"/metadata" || created["sso_url"] != ti.srv.URL+"/sso" ||
			!strings.Contains(created["certificate"].(string), "BEGIN CERTIFICATE") {
			t.Fatalf("created SAML provider %v", created)
		}
		e.verifyDomains(&adm)
		spMeta := e.call("GET", "/api/sso/saml/metadata", nil, nil)
		if spMeta.code != 200 || !bytes.Contains(spMeta.body, []byte(e.srv.URL+"/api/sso/saml/acs")) {
			t.Fatalf("SP metadata %d %s", spMeta.code, spMeta.body)
		}
		ti.put(t, "/services/timbre", string(spMeta.body))
		wantCode(t, e.call("PATCH", "/api/workspace/sso/settings", map[string]any{"user_auto_provisioning_enabled": true}, &adm), 200, "")

		// Full flow: Alice is provisioned and signed in to the workspace.
		b := e.browser()
		acs, form := e.samlResponse(ti, b, "alice@corp.test", "alice")
		if acs != e.srv.URL+"/api/sso/saml/acs" {
			t.Fatalf("IdP posts to %s", acs)
		}
		res, _ = post(t, b, acs, form)
		wantAppRedirect(t, res, sso.DefaultRedirect, nil)
		code, who := e.whoami(b)
		alice, err := db.UserByEmail(ctx, "alice@corp.test")
		if err != nil || code != 200 || who["user_id"] != alice.ID || who["workspace_id"] != ws.ID || who["role"] != "editor" {
			t.Fatalf("after SAML sign-in: %d %v (%v)", code, who, err)
		}
		// Replaying the same response is refused: the flow was used.
		u, _ := url.Parse(e.srv.URL + "/api/sso/")
		b.Jar.SetCookies(u, []*http.Cookie{{Name: sso.FlowCookie, Value: form.Get("RelayState"), Path: "/api/sso/", Secure: true}})
		res, _ = post(t, b, acs, form)
		wantAppRedirect(t, res, "/app/sso", map[string]string{"error": "sso_state_invalid"})

		// Unsigned: every signature stripped.
		b = e.browser()
		acs, form = e.samlResponse(ti, b, "alice@corp.test", "alice")
		doc := responseXML(t, form)
		removed := 0
		for _, sig := range doc.FindElements("//Signature") {
			sig.Parent().RemoveChild(sig)
			removed++
		}
		if removed == 0 {
			t.Fatal("the IdP's response had no signature to strip")
		}
		res, _ = post(t, b, acs, withResponse(t, form, doc))
		wantAppRedirect(t, res, "/app/sso", map[string]string{"error": "sso_response_invalid"})

		// Tampered: the signed NameID rewritten to another user.
		b = e.browser()
		acs, form = e.samlResponse(ti, b, "alice@corp.test", "alice")
		raw, _ := base64.StdEncoding.DecodeString(form.Get("SAMLResponse"))
		forged := bytes.ReplaceAll(raw, []byte("alice@corp.test"), []byte("admin@corp.test"))
		res, _ = post(t, b, acs, url.Values{"SAMLResponse": {base64.StdEncoding.EncodeToString(forged)}, "RelayState": {form.Get("RelayState")}})
		wantAppRedirect(t, res, "/app/sso", map[string]string{"error": "sso_response_invalid"})
		if code, _ := e.whoami(b); code != http.StatusUnauthorized {
			t.Fatal("forged assertion opened a session")
		}

		// Wrong audience: the IdP signs an assertion for another SP (same ACS), in response to
		// Timbre's request id.
		rogue := "https://rogue-sp.example/metadata"
		ti.put(t, "/services/rogue", strings.ReplaceAll(string(spMeta.body), `entityID="`+e.srv.URL+`/api/sso/saml/metadata"`, `entityID="`+rogue+`"`))
		b = e.browser()
		nf := e.noFollow(b)
		res, err = nf.Get(e.srv.URL + "/api/sso/start?email=alice@corp.test")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		loc, _ := url.Parse(res.Header.Get("Location"))
		compressed, _ := base64.StdEncoding.DecodeString(loc.Query().Get("SAMLRequest"))
		reqXML, _ := io.ReadAll(flate.NewReader(bytes.NewReader(compressed)))
		entity := e.srv.URL + "/api/sso/saml/metadata"
		if !bytes.Contains(reqXML, []byte(">"+entity+"<")) {
			t.Fatalf("AuthnRequest has no issuer %s: %s", entity, reqXML)
		}
		reqXML = bytes.Replace(reqXML, []byte(">"+entity+"<"), []byte(">"+rogue+"<"), 1)
		acs, form = ti.login(t, b, url.Values{"SAMLRequest": {base64.StdEncoding.EncodeToString(reqXML)}, "RelayState": {loc.Query().Get("RelayState")}}, "alice")
		if !bytes.Contains(must64(t, form.Get("SAMLResponse")), []byte(rogue)) {
			t.Fatal("the IdP's assertion does not name the rogue audience")
		}
		res, _ = post(t, b, acs, form)
		wantAppRedirect(t, res, "/app/sso", map[string]string{"error": "sso_response_invalid"})

		// A user of another domain at the same IdP is refused.
		b = e.browser()
		acs, form = e.samlResponse(ti, b, "alice@corp.test", "mallory")
		res, _ = post(t, b, acs, form)
		wantAppRedirect(t, res, "/app/sso", map[string]string{"error": "sso_domain_mismatch"})

		if n := auditCount(t, db, ws.ID, "sso", "sign_in"); n != 1 {
			t.Fatalf("%d SSO sign-ins audited, want 1", n)
		}
		t.Logf("SAML: 1 sign-in, refusals audited %d (replay needs no audit: unknown flow)", auditCount(t, db, ws.ID, "sso", "sign_in_failed"))
	})
}

func must64(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
