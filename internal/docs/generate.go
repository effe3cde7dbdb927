package docs

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// The generator builds Timbre's OpenAPI document (api/openapi.json) from three inputs:
//
//   - the ElevenLabs reference document (elevenlabs-openapi.json),
//   - the list of routes Timbre serves (api/routes.txt, one "METHOD /path" a line),
//   - Timbre's hand-written fragment (api/timbre-own.json: "tags", "paths" and "components").
//
// Each route comes from the fragment when the fragment has it, otherwise from the reference; a
// route found in neither is an error, as is a fragment operation whose route is not served. The
// result holds only the component definitions the chosen operations reach (following $refs and
// discriminator mappings transitively), without the reference's x-fern-* extensions.

// Title and version of the generated document.
const (
	Title   = "Timbre API"
	Version = "1.0"
)

const infoDescription = "Timbre is a self-hosted text-to-speech server compatible with a subset of the ElevenLabs HTTP API: " +
	"the official ElevenLabs SDKs and plain HTTP clients work against it once pointed at its base URL. " +
	"Operations under ElevenLabs' tags follow ElevenLabs' own API reference; Timbre's own routes (accounts, API keys, share links, " +
	"the OpenAI-compatible `/v1/audio/speech`, health checks) are marked as Timbre's.\n\n" +
	"Authenticate with an API key in the `xi-api-key` header (`Authorization: Bearer <key>` works too); the web app uses its session " +
	"cookie instead and sends `X-CSRF-Token` on writes. Operations marked public need no key.\n\n" +
	"Errors are JSON. Application errors have the HTTP status and `{\"detail\": {\"status\": \"<code>\", \"message\": \"<text>\"}}`, " +
	"for example 401 `invalid_api_key`, 404 `voice_not_found` or 429 `too_many_concurrent_requests`. Invalid requests get 422 " +
	"`{\"detail\": [{\"loc\": [\"body\", \"<field>\"], \"msg\": \"<text>\", \"type\": \"<kind>\"}]}`, also for text that is not " +
	"valid UTF-8.\n\n" +
	"JSON bodies must be sent with `Content-Type: application/json` (415 `unsupported_media_type` otherwise) and uncompressed " +
	"(a `Content-Encoding` gets 415 `unsupported_content_encoding`). A body that ends before its announced length gets 400 " +
	"`body_incomplete`; one that does not arrive within the server's body timeout gets 408 `body_timeout`. Unauthenticated POSTs " +
	"(sign-in, sign-up, password reset) sent by a browser page of another website get 403 `cross_site_request`. Only `/v1` and `/v2` " +
	"answer cross-origin (CORS) requests."

// Sources of operations, recorded in each operation's x-timbre-source.
const (
	SourceElevenLabs = "elevenlabs"
	SourceTimbre     = "timbre"
)

// methods are the OpenAPI operation keys, in the order they are written.
var methods = []string{"get", "put", "post", "patch", "delete", "head", "options", "trace"}

// ParseRoutes reads a route list: one "METHOD /path" a line; blank lines and lines starting
// with # are skipped. Routes come back normalised (see NormalizeRoute), in file order.
func ParseRoutes(text []byte) ([]string, error) {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		m, p, err := splitRoute(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		out = append(out, m+" "+p)
	}
	return out, sc.Err()
}

// NormalizeRoute turns a ServeMux pattern ("GET /v1/voices/{voice_id}", "GET example.com/x",
// "GET /files/{path...}", "GET /{$}") into the "METHOD /path" form the document uses.
func NormalizeRoute(pattern string) (string, error) {
	m, p, err := splitRoute(pattern)
	if err != nil {
		return "", err
	}
	return m + " " + p, nil
}

var wildcardRest = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_]*)\.\.\.\}`)

func splitRoute(pattern string) (method, path string, err error) {
	f := strings.Fields(pattern)
	if len(f) != 2 {
		return "", "", fmt.Errorf("route %q: want \"METHOD /path\"", pattern)
	}
	method, path = strings.ToUpper(f[0]), f[1]
	if !slices.Contains(methods, strings.ToLower(method)) {
		return "", "", fmt.Errorf("route %q: unknown method %s", pattern, f[0])
	}
	if i := strings.Index(path, "/"); i > 0 { // a host before the path
		path = path[i:]
	}
	if !strings.HasPrefix(path, "/") {
		return "", "", fmt.Errorf("route %q: the path must start with /", pattern)
	}
	path = wildcardRest.ReplaceAllString(path, "{$1}")
	if strings.HasSuffix(path, "/{$}") {
		path = strings.TrimSuffix(path, "{$}")
	}
	return method, path, nil
}

// Generate builds the document. reference is the ElevenLabs OpenAPI document, own Timbre's
// fragment, routes the routes served. The output is indented JSON; the same inputs always give
// the same bytes.
func Generate(reference, own []byte, routes []string) ([]byte, error) {
	ref, err := parseObject(reference)
	if err != nil {
		return nil, fmt.Errorf("reference document: %w", err)
	}
	frag, err := parseObject(own)
	if err != nil {
		return nil, fmt.Errorf("Timbre's fragment: %w", err)
	}
	refPaths, ownPaths := ref.obj("paths"), frag.obj("paths")
	if refPaths == nil {
		return nil, errors.New("reference document: no paths")
	}
	refComps, ownComps := ref.obj("components"), frag.obj("components")
	var problems []string
	// The fragment must not redefine reference components: it would silently change ElevenLabs' shapes.
	for _, kind := range ownComps.ks() {
		for _, name := range ownComps.obj(kind).ks() {
			if _, ok := refComps.obj(kind).get(name); ok {
				problems = append(problems, fmt.Sprintf("fragment component %s/%s shadows the reference's; rename it", kind, name))
			}
		}
	}

	paths := map[string]*object{}
	served := map[string]bool{}
	for _, r := range routes {
		m, p, err := splitRoute(r)
		if err != nil {
			return nil, err
		}
		key := m + " " + p
		if served[key] {
			problems = append(problems, "route listed twice: "+key)
			continue
		}
		served[key] = true
		lm := strings.ToLower(m)
		var op *object
		if o := ownPaths.obj(p).obj(lm); o != nil {
			op = clone(o).(*object)
			problems = append(problems, checkOwnOperation(key, op)...)
			op.set("x-timbre-source", SourceTimbre)
		} else if o := refPaths.obj(p).obj(lm); o != nil {
			op = adaptReference(p, clone(o).(*object))
		} else {
			problems = append(problems, "route in neither the reference nor the fragment: "+key)
			continue
		}
		if rs := op.obj("responses"); rs != nil {
			if _, ok := rs.get("default"); !ok {
				d := newObject()
				d.set("$ref", "#/components/responses/Error")
				rs.set("default", d)
			}
		}
		if paths[p] == nil {
			paths[p] = newObject()
		}
		paths[p].set(lm, op)
	}
	for _, p := range ownPaths.ks() {
		for _, m := range ownPaths.obj(p).ks() {
			if key := strings.ToUpper(m) + " " + p; !served[key] {
				problems = append(problems, "fragment documents a route that is not in the route list: "+key)
			}
		}
	}

	// Paths in the order the route list first names them (it groups routes by domain, which is
	// the order the reference reads best in), methods in the conventional order.
	var pathNames []string
	for _, r := range routes {
		if _, p, err := splitRoute(r); err == nil && paths[p] != nil && !slices.Contains(pathNames, p) {
			pathNames = append(pathNames, p)
		}
	}
	outPaths := newObject()
	opIDs := map[string]string{}
	var usedTags []string
	for _, p := range pathNames {
		ordered := newObject()
		for _, m := range methods {
			v, ok := paths[p].get(m)
			if !ok {
				continue
			}
			op := v.(*object)
			ordered.set(m, op)
			key := strings.ToUpper(m) + " " + p
			if id := op.str("operationId"); id != "" {
				if other, dup := opIDs[id]; dup {
					problems = append(problems, fmt.Sprintf("operationId %s used by %s and %s", id, other, key))
				}
				opIDs[id] = key
			}
			problems = append(problems, checkPathParams(key, p, op, ownComps, refComps)...)
			for _, t := range op.arr("tags") {
				if s, _ := t.(string); s != "" && !slices.Contains(usedTags, s) {
					usedTags = append(usedTags, s)
				}
			}
		}
		outPaths.set(p, ordered)
	}

	comps, compProblems := closure(outPaths, ownComps, refComps)
	problems = append(problems, compProblems...)
	if len(problems) > 0 {
		return nil, errors.New(strings.Join(problems, "\n"))
	}

	doc := newObject()
	doc.set("openapi", "3.1.0")
	info := newObject()
	info.set("title", Title)
	info.set("version", Version)
	info.set("description", infoDescription)
	doc.set("info", info)
	server := newObject()
	server.set("url", "/")
	server.set("description", "The Timbre server that serves this document")
	doc.set("servers", []any{server})
	var security []any
	for _, s := range []string{"ApiKeyAuth", "BearerAuth", "SessionCookie"} {
		req := newObject()
		req.set(s, []any{})
		security = append(security, req)
	}
	doc.set("security", security)
	doc.set("tags", buildTags(usedTags, frag.arr("tags"), ref.arr("tags")))
	doc.set("paths", outPaths)
	comps.set("securitySchemes", securitySchemes())
	doc.set("components", comps)
	return marshalIndent(doc), nil
}

// adaptReference turns a reference operation into Timbre's: the xi-api-key header parameter
// becomes the document's security requirement (operations without it are public), x-fern-*
// extensions go, and tags are de-duplicated (untagged operations take their SDK group's name).
func adaptReference(path string, op *object) *object {
	group := strings.ReplaceAll(op.str("x-fern-sdk-group-name"), "_", "-")
	stripFern(op)
	hadKey := false
	var params []any
	for _, p := range op.arr("parameters") {
		po, _ := p.(*object)
		if po != nil && po.str("in") == "header" && strings.EqualFold(po.str("name"), "xi-api-key") {
			hadKey = true
			continue
		}
		params = append(params, p)
	}
	if _, ok := op.get("parameters"); ok {
		if len(params) == 0 {
			op.del("parameters")
		} else {
			op.set("parameters", params)
		}
	}
	if !hadKey {
		op.set("security", []any{})
	}
	var tags []any
	for _, t := range op.arr("tags") {
		if !slices.Contains(tags, t) {
			tags = append(tags, t)
		}
	}
	if len(tags) == 0 {
		if group == "" {
			group = pathTag(path)
		}
		tags = []any{group}
	}
	op.set("tags", tags)
	op.set("x-timbre-source", SourceElevenLabs)
	return op
}

// pathTag names an untagged operation after its path's first segment past the version
// ("/v1/user/subscription" → "user").
func pathTag(path string) string {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	if len(segs) > 1 && regexp.MustCompile(`^v[0-9]+$`).MatchString(segs[0]) {
		segs = segs[1:]
	}
	if segs[0] == "" || strings.HasPrefix(segs[0], "{") {
		return "other"
	}
	return segs[0]
}

func stripFern(v any) {
	switch x := v.(type) {
	case *object:
		// Non-schema keywords the reference puts in a few schemas: a "name" beside anyOf
		// (text-to-voice's labels) and "embed": true (a path parameter's). A string or bool value
		// tells them from properties of those names, whose values are schemas.
		if _, isParam := x.vals["in"]; !isParam {
			if _, ok := x.vals["name"].(string); ok && x.vals["anyOf"] != nil {
				x.del("name")
			}
		}
		if _, ok := x.vals["embed"].(bool); ok {
			x.del("embed")
		}
		for _, k := range slices.Clone(x.ks()) {
			if strings.HasPrefix(k, "x-fern-") {
				x.del(k)
				continue
			}
			stripFern(x.vals[k])
		}
	case []any:
		for _, e := range x {
			stripFern(e)
		}
	}
}

func checkOwnOperation(key string, op *object) []string {
	var p []string
	for _, f := range []string{"summary", "description", "operationId"} {
		if op.str(f) == "" {
			p = append(p, fmt.Sprintf("fragment operation %s: %s missing", key, f))
		}
	}
	if len(op.arr("tags")) == 0 {
		p = append(p, fmt.Sprintf("fragment operation %s: tags missing", key))
	}
	if op.obj("responses").len() == 0 {
		p = append(p, fmt.Sprintf("fragment operation %s: responses missing", key))
	}
	return p
}

var pathParam = regexp.MustCompile(`\{([^}]+)\}`)

func checkPathParams(key, path string, op, own, ref *object) []string {
	declared := map[string]bool{}
	for _, p := range op.arr("parameters") {
		po, _ := p.(*object)
		if r := po.str("$ref"); r != "" {
			if _, name, err := splitRef(r); err == nil {
				if po = own.obj("parameters").obj(name); po == nil {
					po = ref.obj("parameters").obj(name)
				}
			}
		}
		if po != nil && po.str("in") == "path" {
			declared[po.str("name")] = true
		}
	}
	var out []string
	for _, m := range pathParam.FindAllStringSubmatch(path, -1) {
		if !declared[m[1]] {
			out = append(out, fmt.Sprintf("%s: path parameter %s is not declared", key, m[1]))
		}
	}
	return out
}

// closure copies every component the paths reach, from the fragment or the reference.
func closure(paths, own, ref *object) (*object, []string) {
	var problems []string
	found := map[string]map[string]any{}
	queued := map[string]bool{}
	var queue []string
	add := func(r string) {
		if !queued[r] {
			queued[r] = true
			queue = append(queue, r)
		}
	}
	walkRefs(paths, add)
	for len(queue) > 0 {
		r := queue[0]
		queue = queue[1:]
		kind, name, err := splitRef(r)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		v, ok := own.obj(kind).get(name)
		if !ok {
			v, ok = ref.obj(kind).get(name)
		}
		if !ok {
			problems = append(problems, "unresolved $ref "+r)
			continue
		}
		v = clone(v)
		stripFern(v)
		if found[kind] == nil {
			found[kind] = map[string]any{}
		}
		found[kind][name] = v
		walkRefs(v, add)
	}
	out := newObject()
	kinds := make([]string, 0, len(found))
	for k := range found {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		names := make([]string, 0, len(found[k]))
		for n := range found[k] {
			names = append(names, n)
		}
		sort.Strings(names)
		o := newObject()
		for _, n := range names {
			o.set(n, found[k][n])
		}
		out.set(k, o)
	}
	return out, problems
}

// walkRefs calls f with every component reference under v: $ref values and discriminator
// mapping targets.
func walkRefs(v any, f func(string)) {
	switch x := v.(type) {
	case *object:
		for _, k := range x.ks() {
			e := x.vals[k]
			if s, ok := e.(string); ok && k == "$ref" {
				f(s)
				continue
			}
			if k == "discriminator" {
				if d, ok := e.(*object); ok {
					for _, mk := range d.obj("mapping").ks() {
						s := d.obj("mapping").str(mk)
						if !strings.Contains(s, "/") {
							s = "#/components/schemas/" + s
						}
						f(s)
					}
				}
			}
			walkRefs(e, f)
		}
	case []any:
		for _, e := range x {
			walkRefs(e, f)
		}
	}
}

func splitRef(r string) (kind, name string, err error) {
	rest, ok := strings.CutPrefix(r, "#/components/")
	parts := strings.Split(rest, "/")
	if !ok || len(parts) != 2 || parts[0] == "" || parts[1] == "" {
		return "", "", fmt.Errorf("unsupported $ref %q (only #/components/<kind>/<name>)", r)
	}
	unescape := strings.NewReplacer("~1", "/", "~0", "~")
	return parts[0], unescape.Replace(parts[1]), nil
}

// buildTags lists the tags used: in the fragment's order first, then the reference's, then the
// rest sorted; a fragment description wins over the reference's.
func buildTags(used []string, own, ref []any) []any {
	desc := map[string]string{}
	var order []string
	for _, list := range [][]any{ref, own} {
		for _, t := range list {
			to, _ := t.(*object)
			if to == nil || to.str("name") == "" {
				continue
			}
			if d := to.str("description"); d != "" {
				desc[to.str("name")] = d
			}
		}
	}
	for _, list := range [][]any{own, ref} {
		for _, t := range list {
			if to, _ := t.(*object); to != nil {
				if n := to.str("name"); slices.Contains(used, n) && !slices.Contains(order, n) {
					order = append(order, n)
				}
			}
		}
	}
	rest := slices.DeleteFunc(slices.Clone(used), func(n string) bool { return slices.Contains(order, n) })
	sort.Strings(rest)
	out := []any{}
	for _, n := range append(order, rest...) {
		t := newObject()
		t.set("name", n)
		if d := desc[n]; d != "" {
			t.set("description", d)
		}
		out = append(out, t)
	}
	return out
}

func securitySchemes() *object {
	s := newObject()
	mk := func(name string, kv ...string) {
		o := newObject()
		for i := 0; i+1 < len(kv); i += 2 {
			o.set(kv[i], kv[i+1])
		}
		s.set(name, o)
	}
	mk("ApiKeyAuth", "type", "apiKey", "in", "header", "name", "xi-api-key",
		"description", "An API key (sk_…) from the web app's API keys page or POST /v1/user/create-api-key.")
	mk("BearerAuth", "type", "http", "scheme", "bearer",
		"description", "The same API key as `Authorization: Bearer <key>`, for OpenAI-style clients.")
	mk("SessionCookie", "type", "apiKey", "in", "cookie", "name", "xi_website_session",
		"description", "The web app's session, set by POST /api/auth/sign-in. Writes (anything but GET/HEAD) also need the header X-CSRF-Token equal to the xi_website_csrf cookie.")
	return s
}
