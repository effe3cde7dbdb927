package docs_test

import (
	"bytes"
	"encoding/json"
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"

	"timbre/api"
	"timbre/internal/docs"
	"timbre/internal/httpx"
)

// referencePath is the ElevenLabs document, outside the repository (tests skip without it).
const referencePath = "../../../shared/reference/elevenlabs-openapi.json"

func routesFile(t *testing.T) []string {
	t.Helper()
	_, routes, err := docs.LoadSources("../../api")
	if err != nil {
		t.Fatal(err)
	}
	if len(routes) < 40 {
		t.Fatalf("api/routes.txt lists only %d routes", len(routes))
	}
	return routes
}

func newRouter(h docs.Handlers) *httpx.Router {
	rt := &httpx.Router{Mux: http.NewServeMux()}
	h.Routes(rt)
	return rt
}

func get(t *testing.T, rt *httpx.Router, path string, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	rt.Mux.ServeHTTP(w, req)
	return w
}

func TestRoutesAreRegistered(t *testing.T) {
	var got []string
	for _, r := range newRouter(docs.Handlers{}).Routes() {
		if r.Authed {
			t.Errorf("%s needs authentication; the documentation is public", r.Pattern)
		}
		got = append(got, r.Pattern)
	}
	want := []string{"GET /docs", "GET /openapi.json"}
	if !slices.Equal(got, want) {
		t.Fatalf("routes = %v, want %v", got, want)
	}
	if missing := docs.CheckComplete(want, api.OpenAPI); len(missing) > 0 {
		t.Fatalf("the document misses its own routes: %v", missing)
	}
	if bad := docs.CheckAuth(newRouter(docs.Handlers{}).Routes(), api.OpenAPI); len(bad) > 0 {
		t.Errorf("documented as needing a key: %v", bad)
	}
}

func TestCheckAuth(t *testing.T) {
	routes := []httpx.Route{
		{Pattern: "GET /v1/voices", Authed: true},
		{Pattern: "GET /v1/voices/settings/default", Authed: false},
		{Pattern: "GET /api/share/{token}", Authed: false},
		{Pattern: "GET /healthz", Authed: true},    // documented as public
		{Pattern: "GET /v1/models", Authed: false}, // documented as needing a key
		{Pattern: "GET /not/documented", Authed: true},
	}
	if got, want := docs.CheckAuth(routes, api.OpenAPI), []string{"GET /healthz", "GET /v1/models"}; !slices.Equal(got, want) {
		t.Errorf("CheckAuth = %v, want %v", got, want)
	}
}

func TestOpenAPIJSON(t *testing.T) {
	rt := newRouter(docs.Handlers{})
	w := get(t, rt, "/openapi.json")
	if w.Code != http.StatusOK {
		t.Fatalf("status %d", w.Code)
	}
	if ct := w.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	var doc struct {
		OpenAPI string `json:"openapi"`
		Info    struct {
			Title, Version, Description string
		} `json:"info"`
		Paths      map[string]map[string]map[string]any `json:"paths"`
		Components struct {
			SecuritySchemes map[string]map[string]any `json:"securitySchemes"`
		} `json:"components"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.1.") {
		t.Errorf("openapi = %q, want 3.1.x", doc.OpenAPI)
	}
	if doc.Info.Title != "Timbre API" || doc.Info.Version == "" || !strings.Contains(doc.Info.Description, "xi-api-key") {
		t.Errorf("info = %+v", doc.Info)
	}
	if s := doc.Components.SecuritySchemes["ApiKeyAuth"]; s["type"] != "apiKey" || s["in"] != "header" || s["name"] != "xi-api-key" {
		t.Errorf("ApiKeyAuth = %v", s)
	}
	if missing := docs.CheckComplete(routesFile(t), w.Body.Bytes()); len(missing) > 0 {
		t.Errorf("routes in api/routes.txt missing from /openapi.json: %v", missing)
	}
	for p, ops := range doc.Paths {
		for m, op := range ops {
			for _, f := range []string{"summary", "responses", "tags"} {
				if op[f] == nil {
					t.Errorf("%s %s has no %s", strings.ToUpper(m), p, f)
				}
			}
			for k := range op {
				if strings.HasPrefix(k, "x-fern-") {
					t.Errorf("%s %s keeps %s", strings.ToUpper(m), p, k)
				}
			}
		}
	}
	if bytes.Contains(w.Body.Bytes(), []byte(`"x-fern-`)) {
		t.Error("the document keeps x-fern-* extensions")
	}
	// Conditional requests work, so clients can cache it.
	if w2 := get(t, rt, "/openapi.json", "If-None-Match", w.Header().Get("ETag")); w2.Code != http.StatusNotModified {
		t.Errorf("If-None-Match: status %d, want 304", w2.Code)
	}
}

func TestDocsHTML(t *testing.T) {
	rt := newRouter(docs.Handlers{})
	w := get(t, rt, "/docs")
	if w.Code != http.StatusOK {
		t.Fatalf("status %d: %s", w.Code, w.Body.String())
	}
	if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Errorf("Content-Type %q", ct)
	}
	if csp := w.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("Content-Security-Policy %q", csp)
	}
	body := w.Body.String()
	for _, r := range routesFile(t) {
		method, path, _ := strings.Cut(r, " ")
		if !strings.Contains(body, ">"+html.EscapeString(path)+"<") {
			t.Errorf("/docs does not mention %s", path)
		}
		if !strings.Contains(body, ">"+method+"<") {
			t.Errorf("/docs has no %s badge", method)
		}
	}
	for _, bad := range []string{"<script", "<link", "http://fonts", "https://cdn", "@import"} {
		if strings.Contains(body, bad) {
			t.Errorf("/docs contains %q; it must work offline and without JavaScript", bad)
		}
	}
	for _, want := range []string{
		"curl -X POST &#34;$TIMBRE_URL/v1/text-to-speech/", // a curl example
		"xi-api-key: $TIMBRE_API_KEY",
		`<span class="req">required</span>`, // required marks
		"string | null",                     // anyOf with null
		"mp3_44100_128",                     // enums and defaults
		`<a href="/openapi.json">`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/docs lacks %q", want)
		}
	}
	if w2 := get(t, rt, "/docs", "If-None-Match", w.Header().Get("ETag")); w2.Code != http.StatusNotModified {
		t.Errorf("If-None-Match: status %d, want 304", w2.Code)
	}
}

// TestRoutesFileIsComplete checks that the document describes every route of api/routes.txt
// and nothing else. The server's test feeds CheckComplete the routes it registers.
func TestRoutesFileIsComplete(t *testing.T) {
	routes := routesFile(t)
	if missing := docs.CheckComplete(routes, api.OpenAPI); len(missing) > 0 {
		t.Errorf("api/openapi.json misses %v: regenerate it (go run ./cmd/gen-openapi)", missing)
	}
	documented, err := docs.DocumentedRoutes(api.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range documented {
		if !slices.Contains(routes, d) {
			t.Errorf("api/openapi.json documents %s, which api/routes.txt does not list", d)
		}
	}
	// The check itself: unknown routes and patterns are reported, mux pattern forms understood.
	got := docs.CheckComplete([]string{"GET /v1/voices", "POST /v1/voices", "GET /nope", "nonsense", "GET example.com/v1/voices/{voice_id}", "GET /v1/history/{history_item_id...}"}, api.OpenAPI)
	if want := []string{"POST /v1/voices", "GET /nope", "nonsense"}; !slices.Equal(got, want) {
		t.Errorf("CheckComplete = %v, want %v", got, want)
	}
	if got := docs.CheckComplete([]string{"GET /healthz"}, []byte("not json")); len(got) != 1 {
		t.Errorf("an unreadable document documents nothing; got %v", got)
	}
}

// TestGenerateIsDeterministic runs the generator twice on the reference and checks that the
// committed document is what it makes.
func TestGenerateIsDeterministic(t *testing.T) {
	ref, err := os.ReadFile(referencePath)
	if err != nil {
		t.Skipf("no reference document: %v", err)
	}
	own, routes, err := docs.LoadSources("../../api")
	if err != nil {
		t.Fatal(err)
	}
	a, err := docs.Generate(ref, own, routes)
	if err != nil {
		t.Fatal(err)
	}
	b, err := docs.Generate(ref, own, routes)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Fatal("two runs of the generator differ")
	}
	if !bytes.Equal(a, api.OpenAPI) {
		t.Error("api/openapi.json is out of date: run go run ./cmd/gen-openapi -ref ../shared/reference/elevenlabs-openapi.json -out api/openapi.json")
	}
	// 195 routes with the schemas they use came to 0.9 MB; a document several times that would
	// mean schemas pulled in whole that no route needs.
	if len(a) > 1_500_000 {
		t.Errorf("the document is %d bytes; expected under 1.5 MB", len(a))
	}
}

// A small reference document exercising the generator's rules without the real one.
const miniReference = `{
  "openapi": "3.1.0",
  "info": {"title": "ref", "version": "1"},
  "tags": [{"name": "things", "description": "Things."}],
  "paths": {
    "/v1/things/{thing_id}": {
      "get": {
        "tags": ["things", "things"],
        "summary": "Get a thing",
        "operationId": "get_thing",
        "parameters": [
          {"name": "thing_id", "in": "path", "required": true, "schema": {"type": "string"}},
          {"name": "xi-api-key", "in": "header", "required": false, "schema": {"type": "string"}}
        ],
        "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Thing"}}}}},
        "x-fern-sdk-group-name": "things",
        "x-fern-sdk-method-name": "get"
      }
    },
    "/v1/open": {
      "get": {
        "summary": "Open",
        "operationId": "open",
        "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Shape"}}}}},
        "x-fern-sdk-group-name": "open_things"
      }
    },
    "/v1/unused": {"get": {"summary": "Unused", "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Unused"}}}}}}}
  },
  "components": {
    "schemas": {
      "Thing": {"type": "object", "properties": {"id": {"type": "string"}, "parts": {"type": "array", "items": {"$ref": "#/components/schemas/Part"}}, "parent": {"anyOf": [{"$ref": "#/components/schemas/Thing"}, {"type": "null"}]}}, "x-fern-type-name": "Thing"},
      "Part": {"type": "object", "properties": {"n": {"type": "integer"}}},
      "Shape": {"oneOf": [{"$ref": "#/components/schemas/Circle"}], "discriminator": {"propertyName": "kind", "mapping": {"circle": "#/components/schemas/Circle", "square": "Square"}}},
      "Circle": {"type": "object", "properties": {"kind": {"const": "circle"}}},
      "Square": {"type": "object", "properties": {"kind": {"const": "square"}}},
      "Unused": {"type": "object"}
    }
  }
}`

const miniOwn = `{
  "tags": [{"name": "mine", "description": "Mine."}],
  "paths": {
    "/healthz": {"get": {"tags": ["mine"], "summary": "Health", "description": "Is it up?", "operationId": "healthz", "security": [],
      "responses": {"200": {"description": "<b>up</b>", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Part"}}}}}}}
  },
  "components": {"responses": {"Error": {"description": "An error."}}}
}`

func TestGenerateRules(t *testing.T) {
	out, err := docs.Generate([]byte(miniReference), []byte(miniOwn), []string{"GET /v1/things/{thing_id}", "GET /v1/open", "GET /healthz"})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tags       []map[string]string                  `json:"tags"`
		Paths      map[string]map[string]map[string]any `json:"paths"`
		Components map[string]map[string]map[string]any `json:"components"`
		Security   []map[string][]string                `json:"security"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	thing := doc.Paths["/v1/things/{thing_id}"]["get"]
	if params := thing["parameters"].([]any); len(params) != 1 {
		t.Errorf("the xi-api-key parameter should become the security scheme: %v", params)
	}
	if _, ok := thing["security"]; ok {
		t.Errorf("an operation that took xi-api-key inherits the document's security; got %v", thing["security"])
	}
	if tags := thing["tags"].([]any); len(tags) != 1 {
		t.Errorf("tags not de-duplicated: %v", tags)
	}
	if thing["x-timbre-source"] != docs.SourceElevenLabs {
		t.Errorf("x-timbre-source = %v", thing["x-timbre-source"])
	}
	open := doc.Paths["/v1/open"]["get"]
	if sec, ok := open["security"].([]any); !ok || len(sec) != 0 {
		t.Errorf("an operation without xi-api-key is public (security []); got %v", open["security"])
	}
	if tags := open["tags"].([]any); len(tags) != 1 || tags[0] != "open-things" {
		t.Errorf("an untagged operation takes its SDK group as tag; got %v", tags)
	}
	if _, ok := doc.Paths["/v1/unused"]; ok {
		t.Error("a route not served was copied")
	}
	var names []string
	for n := range doc.Components["schemas"] {
		names = append(names, n)
	}
	slices.Sort(names)
	if want := []string{"Circle", "Part", "Shape", "Square", "Thing"}; !slices.Equal(names, want) {
		t.Errorf("schemas = %v, want %v (transitive refs and discriminator mappings, nothing unused)", names, want)
	}
	if _, ok := doc.Components["responses"]["Error"]; !ok {
		t.Error("the default error response is missing")
	}
	if bytes.Contains(out, []byte("x-fern-")) {
		t.Error("x-fern-* extensions kept")
	}
	if len(doc.Security) == 0 || doc.Tags[0]["name"] != "mine" {
		t.Errorf("security %v, tags %v", doc.Security, doc.Tags)
	}

	// Problems are reported, not papered over.
	for name, c := range map[string]struct {
		own    string
		routes []string
		want   string
	}{
		"unknown route":   {miniOwn, []string{"GET /healthz", "GET /v1/nothing"}, "GET /v1/nothing"},
		"unserved own op": {miniOwn, []string{"GET /v1/open"}, "not in the route list: GET /healthz"},
		"duplicate":       {miniOwn, []string{"GET /healthz", "GET /healthz"}, "listed twice"},
		"shadowing":       {`{"components": {"schemas": {"Part": {}}}}`, nil, "shadows"},
		"dangling ref": {`{"paths": {"/x": {"get": {"tags": ["t"], "summary": "s", "description": "d", "operationId": "x",
			"responses": {"200": {"$ref": "#/components/responses/Nope"}}}}}}`, []string{"GET /x"}, "unresolved $ref #/components/responses/Nope"},
		"missing summary": {`{"paths": {"/x": {"get": {"tags": ["t"], "operationId": "x", "description": "d", "responses": {"200": {"description": "ok"}}}}}}`, []string{"GET /x"}, "summary missing"},
		"path parameter":  {`{"paths": {"/x/{id}": {"get": {"tags": ["t"], "summary": "s", "description": "d", "operationId": "x", "responses": {"200": {"description": "ok"}}}}}}`, []string{"GET /x/{id}"}, "path parameter id is not declared"},
	} {
		_, err := docs.Generate([]byte(miniReference), []byte(c.own), c.routes)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want one mentioning %q", name, err, c.want)
		}
	}
}

func TestParseRoutes(t *testing.T) {
	got, err := docs.ParseRoutes([]byte("# comment\n\nget /a\nPOST  /b/{rest...}\nGET /c/{$}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"GET /a", "POST /b/{rest}", "GET /c/"}; !slices.Equal(got, want) {
		t.Errorf("ParseRoutes = %v, want %v", got, want)
	}
	for _, bad := range []string{"/no-method", "FETCH /x", "GET x", "GET /a extra"} {
		if _, err := docs.ParseRoutes([]byte(bad)); err == nil {
			t.Errorf("ParseRoutes(%q) accepted it", bad)
		}
	}
}

// The page escapes what documents say, follows recursive schemas without looping, and renders
// any valid document.
func TestDocsRenderSynthetic(t *testing.T) {
	spec, err := docs.Generate([]byte(miniReference), []byte(miniOwn), []string{"GET /v1/things/{thing_id}", "GET /v1/open", "GET /healthz"})
	if err != nil {
		t.Fatal(err)
	}
	spec = bytes.Replace(spec, []byte(`"Is it up?"`), []byte(`"Is it <script>alert(1)</script> up?\n\nSecond paragraph with `+"`code`"+`."`), 1)
	page, err := docs.RenderHTML(spec)
	if err != nil {
		t.Fatal(err)
	}
	body := string(page)
	for _, want := range []string{
		"Is it &lt;script&gt;alert(1)&lt;/script&gt; up?</p>",
		"<p>Second paragraph with <code>code</code>.</p>",
		"&lt;b&gt;up&lt;/b&gt;",
		"Thing | null", // the recursive parent field
		"recursive",
		"array of Part",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(body, "<script>") {
		t.Error("description HTML was not escaped")
	}
	w := get(t, newRouter(docs.Handlers{Spec: []byte("{")}), "/docs")
	if w.Code != http.StatusInternalServerError {
		t.Errorf("a broken document: status %d, want 500", w.Code)
	}
}
