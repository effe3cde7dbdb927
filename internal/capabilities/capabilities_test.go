package capabilities_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"timbre/internal/access"
	"timbre/internal/apitest"
	"timbre/internal/capabilities"
	"timbre/internal/httpx"
)

// The sign-up form links the operator's terms and privacy policy when they are set, and the web
// app's built-in pages for what is not; anonymous callers get them (the form is before sign-in).
func TestLegalLinks(t *testing.T) {
	anonymous := func(*http.Request) (*access.Caller, error) { return nil, nil }
	for _, c := range []struct {
		name                 string
		terms, privacy       string
		wantTerms, wantPriva string
	}{
		{"unset", "", "", "/terms", "/privacy"},
		{"both", "https://example.com/terms", "https://example.com/privacy", "https://example.com/terms", "https://example.com/privacy"},
		{"terms only", "https://example.com/tos", "", "https://example.com/tos", "/privacy"},
	} {
		t.Run(c.name, func(t *testing.T) {
			mux := http.NewServeMux()
			h := &capabilities.Handlers{Auth: anonymous, TermsURL: c.terms, PrivacyURL: c.privacy}
			h.Routes(&httpx.Router{Mux: mux, Auth: anonymous})
			r := httptest.NewRequest("GET", "/api/capabilities", nil)
			w := httptest.NewRecorder()
			mux.ServeHTTP(w, r)
			apitest.Recorded(t, r, w)
			if w.Code != http.StatusOK {
				t.Fatalf("GET /api/capabilities: %d %s", w.Code, w.Body)
			}
			var got struct {
				Legal capabilities.Legal `json:"legal"`
			}
			if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			if got.Legal.TermsURL != c.wantTerms || got.Legal.PrivacyURL != c.wantPriva {
				t.Errorf("legal = %+v, want %s and %s", got.Legal, c.wantTerms, c.wantPriva)
			}
		})
	}
}
