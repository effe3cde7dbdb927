package sso_test

import (
	"bytes"
	"compress/flate"
	"context"
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"encoding/xml"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/crewjam/saml"

	"timbre/internal/sso"
	"timbre/internal/store"
	"timbre/internal/testdb"
)

// spSigningCert reads Timbre's SP metadata as an IdP would: AuthnRequestsSigned="true" and the
// one signing certificate (no encryption key is offered).
func spSigningCert(t *testing.T, metaXML []byte) *x509.Certificate {
	t.Helper()
	var ed saml.EntityDescriptor
	if err := xml.Unmarshal(metaXML, &ed); err != nil {
		t.Fatalf("SP metadata: %v\n%s", err, metaXML)
	}
	if len(ed.SPSSODescriptors) != 1 {
		t.Fatalf("SP metadata has %d SPSSODescriptors", len(ed.SPSSODescriptors))
	}
	d := ed.SPSSODescriptors[0]
	if d.AuthnRequestsSigned == nil || !*d.AuthnRequestsSigned {
		t.Fatalf("SP metadata does not say AuthnRequestsSigned=\"true\":\n%s", metaXML)
	}
	if !bytes.Contains(metaXML, []byte(`AuthnRequestsSigned="true"`)) {
		t.Fatalf("no AuthnRequestsSigned=\"true\" attribute:\n%s", metaXML)
	}
	if len(d.KeyDescriptors) != 1 || d.KeyDescriptors[0].Use != "signing" || len(d.KeyDescriptors[0].KeyInfo.X509Data.X509Certificates) != 1 {
		t.Fatalf("SP metadata key descriptors: %+v", d.KeyDescriptors)
	}
	der, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(d.KeyDescriptors[0].KeyInfo.X509Data.X509Certificates[0].Data), ""))
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pub, ok := cert.PublicKey.(*rsa.PublicKey)
	if !ok || pub.N.BitLen() != 2048 {
		t.Fatalf("SP certificate key %T (%d bits), want RSA-2048", cert.PublicKey, pub.N.BitLen())
	}
	if err := cert.CheckSignature(cert.SignatureAlgorithm, cert.RawTBSCertificate, cert.Signature); err != nil {
		t.Fatalf("SP certificate is not self-signed: %v", err)
	}
	return cert
}

// redirectParams splits a query string into its raw (still URL-encoded) values, keeping the
// encoding the signature was computed over.
func redirectParams(t *testing.T, rawQuery string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, kv := range strings.Split(rawQuery, "&") {
		k, v, _ := strings.Cut(kv, "=")
		if _, dup := out[k]; dup {
			t.Fatalf("parameter %s twice in %s", k, rawQuery)
		}
		out[k] = v
	}
	return out
}

// verifyRedirect checks an HTTP-Redirect binding signature (SAML bindings §3.4.4.1): RSA-SHA256
// over "SAMLRequest=…&RelayState=…&SigAlg=…", the values as they appear in the URL.
func verifyRedirect(p map[string]string, pub *rsa.PublicKey) error {
	signed := "SAMLRequest=" + p["SAMLRequest"]
	if rs, ok := p["RelayState"]; ok {
		signed += "&RelayState=" + rs
	}
	signed += "&SigAlg=" + p["SigAlg"]
	sigB64, err := url.QueryUnescape(p["Signature"])
	if err != nil {
		return err
	}
	sig, err := base64.StdEncoding.DecodeString(sigB64)
	if err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(signed))
	return rsa.VerifyPKCS1v15(pub, crypto.SHA256, sum[:], sig)
}

func inflateRequest(t *testing.T, raw string) []byte {
	t.Helper()
	b64, err := url.QueryUnescape(raw)
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(flate.NewReader(bytes.NewReader(must64(t, b64))))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func deflateRequest(t *testing.T, x []byte) string {
	t.Helper()
	var buf bytes.Buffer
	w, _ := flate.NewWriter(&buf, 9)
	_, _ = w.Write(x)
	_ = w.Close()
	return url.QueryEscape(base64.StdEncoding.EncodeToString(buf.Bytes()))
}

// TestSAMLAuthnRequestSigned: the AuthnRequest a sign-in starts with is signed with the key whose
// certificate the SP metadata publishes; a changed request or RelayState fails the check; the
// key pair is made once, sealed at rest, and shared by every server on the database.
func TestSAMLAuthnRequestSigned(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newEnv(t, db)
		ti := newTestIdP(t)
		ti.addUser(t, "alice", "alice@corp.test")
		admin, ws := e.user("admin@corp.test")
		adm := e.session(admin, ws.ID)
		res, err := http.Get(ti.srv.URL + "/metadata")
		if err != nil {
			t.Fatal(err)
		}
		idpMeta, _ := io.ReadAll(res.Body)
		res.Body.Close()
		wantCode(t, e.call("POST", "/api/workspace/sso/providers", map[string]any{"type": "saml", "name": "Corp", "domains": []string{"corp.test"},
			"metadata_xml": string(idpMeta)}, &adm), http.StatusCreated, "")
		e.verifyDomains(&adm)
		wantCode(t, e.call("PATCH", "/api/workspace/sso/settings", map[string]any{"user_auto_provisioning_enabled": true}, &adm), 200, "")

		meta := e.call("GET", "/api/sso/saml/metadata", nil, nil)
		if meta.code != 200 {
			t.Fatalf("SP metadata %d %s", meta.code, meta.body)
		}
		cert := spSigningCert(t, meta.body)
		ti.put(t, "/services/timbre", string(meta.body))
		pub := cert.PublicKey.(*rsa.PublicKey)

		// Start a sign-in and stop at the redirect to the IdP.
		b := e.browser()
		res, err = e.noFollow(b).Get(e.srv.URL + "/api/sso/start?email=alice@corp.test")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		loc, err := url.Parse(res.Header.Get("Location"))
		if err != nil || res.StatusCode != http.StatusFound || !strings.HasPrefix(loc.String(), ti.srv.URL+"/sso?") {
			t.Fatalf("start: %d to %q", res.StatusCode, res.Header.Get("Location"))
		}
		p := redirectParams(t, loc.RawQuery)
		if sa, _ := url.QueryUnescape(p["SigAlg"]); sa != "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256" {
			t.Fatalf("SigAlg %q, want RSA-SHA256", sa)
		}
		if p["RelayState"] == "" || p["Signature"] == "" {
			t.Fatalf("redirect without RelayState or Signature: %s", loc.RawQuery)
		}
		if err := verifyRedirect(p, pub); err != nil {
			t.Fatalf("the AuthnRequest's signature does not verify with the metadata's certificate: %v", err)
		}
		reqXML := inflateRequest(t, p["SAMLRequest"])
		var ar saml.AuthnRequest
		if err := xml.Unmarshal(reqXML, &ar); err != nil {
			t.Fatal(err)
		}
		if ar.Issuer == nil || ar.Issuer.Value != e.srv.URL+"/api/sso/saml/metadata" || ar.Destination != ti.srv.URL+"/sso" ||
			ar.AssertionConsumerServiceURL != e.srv.URL+"/api/sso/saml/acs" {
			t.Fatalf("AuthnRequest %s", reqXML)
		}

		// Tampering breaks the signature: another issuer in the request, another RelayState, or
		// a signature checked against another key.
		forged := map[string]string{}
		for k, v := range p {
			forged[k] = v
		}
		forged["SAMLRequest"] = deflateRequest(t, bytes.Replace(reqXML, []byte(">"+ar.Issuer.Value+"<"), []byte(">https://rogue-sp.example/metadata<"), 1))
		if forged["SAMLRequest"] == p["SAMLRequest"] {
			t.Fatal("the forged request is the original")
		}
		if err := verifyRedirect(forged, pub); err == nil {
			t.Fatal("a tampered AuthnRequest verified")
		}
		forged = map[string]string{}
		for k, v := range p {
			forged[k] = v
		}
		lead := "x" // another first character (the state is random: it may start with x)
		if strings.HasPrefix(p["RelayState"], lead) {
			lead = "y"
		}
		forged["RelayState"] = lead + p["RelayState"][1:]
		if err := verifyRedirect(forged, pub); err == nil {
			t.Fatal("a request with another RelayState verified")
		}
		if err := verifyRedirect(p, ti.idp.IDP.Certificate.PublicKey.(*rsa.PublicKey)); err == nil {
			t.Fatal("the signature verified with the IdP's key")
		}

		// The signed request is still one the IdP accepts: the sign-in completes.
		res, err = b.Get(loc.String())
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("the IdP refused the signed request: %d %s", res.StatusCode, body)
		}
		_, lf := formOf(t, body)
		acs, form := ti.login(t, b, lf, "alice")
		res, _ = post(t, b, acs, form)
		wantAppRedirect(t, res, sso.DefaultRedirect, nil)
		if code, who := e.whoami(b); code != 200 || who["workspace_id"] != ws.ID {
			t.Fatalf("after the signed sign-in: %d %v", code, who)
		}

		// One key pair per installation, private key sealed: the table holds ciphertext and the
		// public certificate only.
		if n := count(t, db, `SELECT COUNT(*) FROM service_keys`); n != 1 {
			t.Fatalf("%d service keys, want 1", n)
		}
		dump := rawDump(t, db, "service_keys")
		if strings.Contains(dump, "PRIVATE KEY") || !strings.Contains(dump, "v1:") || !strings.Contains(dump, "BEGIN CERTIFICATE") {
			t.Fatalf("service_keys at rest: %s", dump)
		}

		// Other servers on the same database (fresh caches, started together) publish the same
		// certificate: the first key stored wins and is never replaced.
		rawExec(t, db, `DELETE FROM service_keys`)
		const servers = 6
		metas := make([][]byte, servers)
		errs := make([]error, servers)
		var wg sync.WaitGroup
		for i := range servers {
			wg.Go(func() {
				s := &sso.Service{DB: db, Box: e.svc.Box, PublicURL: e.srv.URL}
				metas[i], errs[i] = s.Metadata()
			})
		}
		wg.Wait()
		var first *x509.Certificate
		for i := range servers {
			if errs[i] != nil {
				t.Fatalf("server %d: %v", i, errs[i])
			}
			c := spSigningCert(t, metas[i])
			if first == nil {
				first = c
			} else if !c.Equal(first) {
				t.Fatalf("server %d publishes another certificate", i)
			}
		}
		if n := count(t, db, `SELECT COUNT(*) FROM service_keys`); n != 1 {
			t.Fatalf("%d service keys after a concurrent first use, want 1", n)
		}
		again, err := (&sso.Service{DB: db, Box: e.svc.Box, PublicURL: e.srv.URL}).Metadata()
		if err != nil || !spSigningCert(t, again).Equal(first) {
			t.Fatalf("a restarted server's certificate differs (%v)", err)
		}
		k, err := db.ServiceKey(ctx, "saml-sp")
		if err != nil {
			t.Fatal(err)
		}
		if blk, _ := pem.Decode([]byte(k.Certificate)); blk == nil || !bytes.Equal(blk.Bytes, first.Raw) {
			t.Fatal("the stored certificate is not the published one")
		}
	})
}
