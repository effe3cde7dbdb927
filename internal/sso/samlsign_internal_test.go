package sso

import (
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/beevik/etree"
	"github.com/crewjam/saml"
	dsig "github.com/russellhaering/goxmldsig"

	"timbre/internal/secret"
	"timbre/internal/store"
	"timbre/internal/testdb"
)

func testBox(t *testing.T) *secret.Box {
	t.Helper()
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	b, err := secret.NewBox(key)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The HTTP-POST binding carries the signature inside the AuthnRequest (enveloped XML-DSig):
// it verifies with the SP's certificate, and not once the request is changed.
func TestSAMLPostBindingRequestSigned(t *testing.T) {
	db := testdb.SQLite(t)
	s := &Service{DB: db, Box: testBox(t), PublicURL: "https://timbre.example"}
	_, cert, err := s.spKeyPair()
	if err != nil {
		t.Fatal(err)
	}
	// Any certificate will do for the IdP here; the request is what is checked.
	p := &store.SSOProvider{SAMLEntityID: "https://idp.example/metadata", SAMLSSOURL: "https://idp.example/sso",
		SAMLCertificate: string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}))}
	sp, err := s.serviceProvider(p)
	if err != nil {
		t.Fatal(err)
	}
	req, err := sp.MakeAuthenticationRequest(p.SAMLSSOURL, saml.HTTPPostBinding, saml.HTTPPostBinding)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`name="SAMLRequest" value="([^"]*)"`).FindSubmatch(req.Post("state-123"))
	if m == nil {
		t.Fatal("no SAMLRequest in the POST form")
	}
	raw, err := base64.StdEncoding.DecodeString(html.UnescapeString(string(m[1])))
	if err != nil {
		t.Fatal(err)
	}
	verify := func(x string) error {
		doc := etree.NewDocument()
		if err := doc.ReadFromString(x); err != nil {
			t.Fatal(err)
		}
		_, err := dsig.NewDefaultValidationContext(&dsig.MemoryX509CertificateStore{Roots: []*x509.Certificate{cert}}).Validate(doc.Root())
		return err
	}
	if !strings.Contains(string(raw), dsig.RSASHA256SignatureMethod) {
		t.Fatalf("POST AuthnRequest not signed with RSA-SHA256: %s", raw)
	}
	if err := verify(string(raw)); err != nil {
		t.Fatalf("POST AuthnRequest signature: %v\n%s", err, raw)
	}
	forged := strings.Replace(string(raw), ">https://timbre.example/api/sso/saml/metadata<", ">https://rogue.example/metadata<", 1)
	if forged == string(raw) {
		t.Fatal("issuer not found in the request")
	}
	if err := verify(forged); err == nil {
		t.Fatal("a tampered POST AuthnRequest verified")
	}
}

// A stored key the server cannot open (the server key changed) is an error, never silently
// replaced by a new key the IdPs do not know.
func TestSAMLSPKeyNeedsTheServerKey(t *testing.T) {
	db := testdb.SQLite(t)
	first := &Service{DB: db, Box: testBox(t), PublicURL: "https://timbre.example"}
	if _, err := first.Metadata(); err != nil {
		t.Fatal(err)
	}
	other := &Service{DB: db, Box: testBox(t), PublicURL: "https://timbre.example"}
	if _, err := other.Metadata(); err == nil || !strings.Contains(err.Error(), "server key") {
		t.Fatalf("metadata with another server key: %v, want a decryption error", err)
	}
	if _, err := other.serviceProvider(nil); err == nil {
		t.Fatal("a service provider without its key")
	}
	// Still the first pair, and it still loads.
	if _, err := (&Service{DB: db, Box: first.Box, PublicURL: "https://timbre.example"}).Metadata(); err != nil {
		t.Fatal(err)
	}
}
