// Package docs serves Timbre's OpenAPI document (GET /openapi.json) and a readable HTML
// reference made from it (GET /docs), and holds the generator behind cmd/gen-openapi that
// builds the document from the ElevenLabs reference, api/routes.txt and api/timbre-own.json.
package docs

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"net/http"
	"strings"
	"sync"
	"time"

	"timbre/api"
	"timbre/internal/httpx"
)

//go:embed page.tmpl
var pageTemplate string

var tmpl = template.Must(template.New("page").Funcs(template.FuncMap{"lower": strings.ToLower}).Parse(pageTemplate))

// RenderHTML renders the HTML reference of an OpenAPI document.
func RenderHTML(spec []byte) ([]byte, error) {
	p, err := buildPage(spec)
	if err != nil {
		return nil, fmt.Errorf("docs: reading the OpenAPI document: %w", err)
	}
	var b bytes.Buffer
	if err := tmpl.Execute(&b, p); err != nil {
		return nil, fmt.Errorf("docs: rendering: %w", err)
	}
	return b.Bytes(), nil
}

// Handlers serves the document and its HTML reference. The zero value serves api.OpenAPI.
type Handlers struct {
	// Spec is the OpenAPI document to serve; nil means api.OpenAPI.
	Spec []byte
}

// Routes registers GET /openapi.json and GET /docs, both public.
func (h Handlers) Routes(rt *httpx.Router) {
	spec := h.Spec
	if spec == nil {
		spec = api.OpenAPI
	}
	specTag := etag(spec)
	var (
		once             sync.Once
		page             []byte
		pageTag, pageErr = "", error(nil)
	)
	rt.Public("GET /openapi.json", func(w http.ResponseWriter, r *http.Request) error {
		serve(w, r, "application/json", specTag, spec)
		return nil
	})
	rt.Public("GET /docs", func(w http.ResponseWriter, r *http.Request) error {
		once.Do(func() {
			if page, pageErr = RenderHTML(spec); pageErr == nil {
				pageTag = etag(page)
			}
		})
		if pageErr != nil {
			return pageErr
		}
		// The page has no scripts and loads nothing: say so to the browser.
		w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
		serve(w, r, "text/html; charset=utf-8", pageTag, page)
		return nil
	})
}

func etag(b []byte) string {
	sum := sha256.Sum256(b)
	return `"` + hex.EncodeToString(sum[:12]) + `"`
}

func serve(w http.ResponseWriter, r *http.Request, contentType, etag string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-cache")
	h.Set("ETag", etag)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
}
