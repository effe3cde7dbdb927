// Package apitest checks, in tests, that the API's responses keep to its OpenAPI document
// (api/openapi.json, the document the server serves at /openapi.json): every response to a
// documented route must be documented for its status, and a JSON body must match the schema for
// that route and status. Wrap a test client's transport with Transport and every request a test
// makes is checked, so routes added later are checked too.
package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"timbre/api"
)

var (
	loadOnce sync.Once
	router   routers.Router
	loadErr  error
)

// documentRouter parses api/openapi.json once per test binary.
func documentRouter() (routers.Router, error) {
	loadOnce.Do(func() {
		doc, err := openapi3.NewLoader().LoadFromData(api.OpenAPI)
		if err != nil {
			loadErr = fmt.Errorf("apitest: load openapi.json: %w", err)
			return
		}
		if err := doc.Validate(context.Background()); err != nil {
			loadErr = fmt.Errorf("apitest: openapi.json is not a valid document: %w", err)
			return
		}
		doc.Servers = nil // match any host: tests run on httptest's address
		router, loadErr = gorillamux.NewRouter(doc)
	})
	return router, loadErr
}

// Transport returns rt (http.DefaultTransport when nil) wrapped so that every response is
// checked with Check; a mismatch fails t.
func Transport(t testing.TB, rt http.RoundTripper) http.RoundTripper {
	if rt == nil {
		rt = http.DefaultTransport
	}
	return &transport{t: t, next: rt}
}

// Client makes c's transport validating (see Transport) and returns c.
func Client(t testing.TB, c *http.Client) *http.Client {
	c.Transport = Transport(t, c.Transport)
	return c
}

type transport struct {
	t    testing.TB
	next http.RoundTripper
}

func (v *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := v.next.RoundTrip(req)
	if err != nil || !isJSON(res.Header) {
		if err == nil {
			if msg := Check(req, res.StatusCode, res.Header, nil); msg != "" {
				v.t.Errorf("%s", msg)
			}
		}
		return res, err
	}
	// A JSON body is read whole to be checked, and handed back to the caller unread.
	body, rerr := io.ReadAll(res.Body)
	res.Body.Close()
	res.Body = io.NopCloser(bytes.NewReader(body))
	if rerr != nil {
		return res, nil // the caller sees the short body and reports it
	}
	if msg := Check(req, res.StatusCode, res.Header, body); msg != "" {
		v.t.Errorf("%s", msg)
	}
	return res, nil
}

func isJSON(h http.Header) bool {
	mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// Check validates one response to req against the document and returns what is wrong with it
// ("" when nothing is). Routes the document does not describe (the web app's pages, assets) are
// not checked; a documented route must document the status it answered with, and a JSON body
// must match that status's schema. body is nil for a response that is not JSON: then only its
// status and documented headers are checked.
func Check(req *http.Request, status int, header http.Header, body []byte) string {
	r, err := documentRouter()
	if err != nil {
		return err.Error()
	}
	if status == http.StatusSwitchingProtocols || req.Header.Get("Upgrade") != "" {
		return "" // a WebSocket: its messages are not HTTP responses
	}
	route, params, err := r.FindRoute(req)
	if err != nil {
		return "" // not an API route the document covers
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request:    req,
			PathParams: params,
			Route:      route,
		},
		Status: status,
		Header: header,
		Options: &openapi3filter.Options{
			IncludeResponseStatus: true,
			MultiError:            true,
			ExcludeResponseBody:   body == nil,
		},
	}
	// A streamed JSON body (the with-timestamps streams) is one JSON object a line: each line
	// must match the schema.
	for _, part := range jsonValues(body) {
		if part != nil {
			in.SetBodyBytes(part)
		}
		if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
			return fmt.Sprintf("%s %s → %d does not match openapi.json (%s %s): %v\nbody: %.600s",
				req.Method, req.URL.Path, status, route.Method, route.Path, err, part)
		}
	}
	return ""
}

// jsonValues splits body into its top-level JSON values; a body that is one value, or not JSON
// at all (the validator then says so), or nil comes back whole.
func jsonValues(body []byte) [][]byte {
	dec := json.NewDecoder(bytes.NewReader(body))
	var parts [][]byte
	for {
		var v json.RawMessage
		if err := dec.Decode(&v); err == io.EOF {
			break
		} else if err != nil {
			return [][]byte{body}
		}
		parts = append(parts, v)
	}
	if len(parts) <= 1 {
		return [][]byte{body}
	}
	return parts
}

// Recorded checks a response a handler wrote into rec for req (see Check); a mismatch fails t.
func Recorded(t testing.TB, req *http.Request, rec *httptest.ResponseRecorder) {
	t.Helper()
	var body []byte
	if isJSON(rec.Header()) {
		body = rec.Body.Bytes()
	}
	if msg := Check(req, rec.Code, rec.Header(), body); msg != "" {
		t.Errorf("%s", msg)
	}
}
