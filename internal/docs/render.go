package docs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"html/template"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Nesting limits of the field lists: request bodies are shown deeper than responses.
const (
	maxBodyDepth     = 4
	maxResponseDepth = 3
)

// The page's view model.
type page struct {
	Title       string
	Version     string
	Description template.HTML
	Groups      []group
	Schemes     []scheme
	Count       int
}

type scheme struct {
	Name, Kind  string
	Description template.HTML
}

type group struct {
	Tag, Name, ID string
	Description   template.HTML
	Ops           []operation
}

type operation struct {
	ID, Method, Path, Summary string
	Description               template.HTML
	Deprecated, Public        bool
	Source                    string // SourceElevenLabs or SourceTimbre
	Params                    []param
	Body                      *body
	Responses                 []response
	Curl                      string
}

type param struct {
	Name, In, Type         string
	Required, Deprecated   bool
	Description            template.HTML
	Enum                   []string
	Default, Example, More string
}

type body struct {
	ContentTypes []string
	Required     bool
	Type         string
	Description  template.HTML
	Fields       []field
}

type response struct {
	Code, Class  string
	Description  template.HTML
	ContentTypes []string
	Type         string
	Fields       []field
	Headers      []header
}

type header struct {
	Name        string
	Description template.HTML
}

type field struct {
	Name, Type           string
	Required, Deprecated bool
	Description          template.HTML
	Enum                 []string
	Default, Example     string
	More                 string // constraints: minimum, maxLength, …
	Note                 string // why the children are not shown
	Children             []field
}

// renderer builds the view model from a parsed document.
type renderer struct {
	doc   *object
	comps *object
}

// buildPage turns an OpenAPI document into the page's view model.
func buildPage(data []byte) (*page, error) {
	doc, err := parseObject(data)
	if err != nil {
		return nil, err
	}
	r := &renderer{doc: doc, comps: doc.obj("components")}
	info := doc.obj("info")
	p := &page{Title: info.str("title"), Version: info.str("version"), Description: renderText(info.str("description"))}
	if p.Title == "" {
		p.Title = "API reference"
	}
	for _, name := range r.comps.obj("securitySchemes").ks() {
		s := r.comps.obj("securitySchemes").obj(name)
		kind := s.str("type")
		switch {
		case s.str("in") != "":
			kind = fmt.Sprintf("%s in %s %q", kind, s.str("in"), s.str("name"))
		case s.str("scheme") != "":
			kind = fmt.Sprintf("%s %s", kind, s.str("scheme"))
		}
		p.Schemes = append(p.Schemes, scheme{Name: name, Kind: kind, Description: renderText(s.str("description"))})
	}

	// Group operations by their first tag, in the document's tag order.
	byTag := map[string][]operation{}
	var tagOrder []string
	tagDesc := map[string]string{}
	for _, t := range doc.arr("tags") {
		if to, _ := t.(*object); to != nil {
			tagOrder = append(tagOrder, to.str("name"))
			tagDesc[to.str("name")] = to.str("description")
		}
	}
	paths := doc.obj("paths")
	for _, path := range paths.ks() {
		item := paths.obj(path)
		for _, m := range methods {
			op := item.obj(m)
			if op == nil {
				continue
			}
			tag := "other"
			if tags := op.arr("tags"); len(tags) > 0 {
				if s, _ := tags[0].(string); s != "" {
					tag = s
				}
			}
			if !slices.Contains(tagOrder, tag) {
				tagOrder = append(tagOrder, tag)
			}
			byTag[tag] = append(byTag[tag], r.operation(path, m, op, item))
			p.Count++
		}
	}
	used := map[string]bool{}
	for _, tag := range tagOrder {
		if len(byTag[tag]) == 0 {
			continue
		}
		id := "tag-" + slug(tag)
		for used[id] {
			id += "-"
		}
		used[id] = true
		p.Groups = append(p.Groups, group{Tag: tag, Name: tagName(tag), ID: id, Description: renderText(tagDesc[tag]), Ops: byTag[tag]})
	}
	// Anchors must be unique even if operationIds are not.
	seen := map[string]bool{}
	for gi := range p.Groups {
		for oi := range p.Groups[gi].Ops {
			o := &p.Groups[gi].Ops[oi]
			for seen[o.ID] {
				o.ID += "-"
			}
			seen[o.ID] = true
		}
	}
	return p, nil
}

func (r *renderer) operation(path, method string, op, item *object) operation {
	o := operation{
		Method:     strings.ToUpper(method),
		Path:       path,
		Summary:    op.str("summary"),
		Deprecated: op.boolean("deprecated"),
		Source:     op.str("x-timbre-source"),
	}
	o.ID = "op-" + slug(op.str("operationId"))
	if op.str("operationId") == "" {
		o.ID = "op-" + slug(method+" "+path)
	}
	if o.Summary == "" {
		o.Summary = o.Method + " " + path
	}
	o.Description = renderText(op.str("description"))
	sec, has := op.get("security")
	if !has {
		sec, _ = r.doc.get("security")
	}
	o.Public = isPublic(sec)

	// Path-level parameters first, overridden by the operation's.
	var raw []*object
	for _, list := range [][]any{item.arr("parameters"), op.arr("parameters")} {
		for _, p := range list {
			po, _ := p.(*object)
			if po = r.deref(po, "parameters"); po != nil {
				raw = slices.DeleteFunc(raw, func(x *object) bool {
					return x.str("name") == po.str("name") && x.str("in") == po.str("in")
				})
				raw = append(raw, po)
			}
		}
	}
	for _, p := range raw {
		o.Params = append(o.Params, r.param(p))
	}

	if rb := r.deref(op.obj("requestBody"), "requestBodies"); rb != nil {
		b := &body{Required: rb.boolean("required"), Description: renderText(rb.str("description"))}
		content := rb.obj("content")
		b.ContentTypes = append(b.ContentTypes, content.ks()...)
		if s := firstSchema(content); s != nil {
			b.Type = r.typeOf(s)
			b.Fields = r.fields(s, 0, maxBodyDepth, nil)
			if b.Description == "" {
				b.Description = renderText(r.describe(s))
			}
		}
		o.Body = b
	}

	rs := op.obj("responses")
	codes := slices.Clone(rs.ks())
	sort.SliceStable(codes, func(i, j int) bool { return codeRank(codes[i]) < codeRank(codes[j]) })
	for _, code := range codes {
		ro, _ := rs.get(code)
		robj, _ := ro.(*object)
		resp := r.deref(robj, "responses")
		if resp == nil {
			continue
		}
		v := response{Code: code, Class: codeClass(code), Description: renderInline(resp.str("description"))}
		content := resp.obj("content")
		v.ContentTypes = append(v.ContentTypes, content.ks()...)
		if s := firstSchema(content); s != nil {
			v.Type = r.typeOf(s)
			v.Fields = r.fields(s, 0, maxResponseDepth, nil)
		}
		hs := resp.obj("headers")
		for _, h := range hs.ks() {
			ho := r.deref(hs.obj(h), "headers")
			v.Headers = append(v.Headers, header{Name: h, Description: renderInline(ho.str("description"))})
		}
		o.Responses = append(o.Responses, v)
	}
	o.Curl = r.curl(o, op)
	return o
}

func isPublic(sec any) bool {
	list, ok := sec.([]any)
	if !ok {
		return false
	}
	if len(list) == 0 {
		return true
	}
	for _, req := range list { // an empty requirement {} makes authentication optional
		if ro, _ := req.(*object); ro != nil && ro.len() == 0 {
			return true
		}
	}
	return false
}

func codeRank(code string) string {
	if code == "default" {
		return "9999"
	}
	return code
}

func codeClass(code string) string {
	switch {
	case strings.HasPrefix(code, "2"):
		return "ok"
	case strings.HasPrefix(code, "3"):
		return "redirect"
	case code == "default":
		return "default"
	default:
		return "error"
	}
}

// firstSchema picks the schema of the JSON media type, else the first one.
func firstSchema(content *object) *object {
	for _, ct := range content.ks() {
		if strings.Contains(ct, "json") {
			return content.obj(ct).obj("schema")
		}
	}
	for _, ct := range content.ks() {
		return content.obj(ct).obj("schema")
	}
	return nil
}

func (r *renderer) param(p *object) param {
	s := p.obj("schema")
	v := param{
		Name: p.str("name"), In: p.str("in"), Required: p.boolean("required"),
		Deprecated: p.boolean("deprecated") || r.core(s).boolean("deprecated"),
		Type:       r.typeOf(s),
	}
	desc := p.str("description")
	if desc == "" {
		desc = r.describe(s)
	}
	v.Description = renderText(desc)
	v.Enum, v.Default, v.Example, v.More = r.facts(s)
	if ex, ok := firstExample(p); ok && v.Example == "" {
		v.Example = short(compactJSON(ex))
	}
	return v
}

// deref follows a $ref into components/<kind> (several hops at most).
func (r *renderer) deref(o *object, kind string) *object {
	for range 8 {
		ref := o.str("$ref")
		if ref == "" {
			return o
		}
		k, name, err := splitRef(ref)
		if err != nil || (kind != "" && k != kind) {
			return nil
		}
		o = r.comps.obj(k).obj(name)
	}
	return o
}

// refName is the component name a schema refers to, or "".
func refName(s *object) string {
	if _, name, err := splitRef(s.str("$ref")); err == nil {
		return name
	}
	return ""
}

// variants are the anyOf/oneOf members, and whether null is one of them.
func variants(s *object) (out []*object, nullable bool) {
	for _, k := range []string{"anyOf", "oneOf"} {
		for _, v := range s.arr(k) {
			vo, _ := v.(*object)
			if vo == nil {
				continue
			}
			if vo.str("type") == "null" {
				nullable = true
				continue
			}
			out = append(out, vo)
		}
	}
	return out, nullable
}

// core unwraps references and nullable wrappers: the schema that says what the value is.
func (r *renderer) core(s *object) *object {
	for range 8 {
		if s == nil {
			return nil
		}
		if s.str("$ref") != "" {
			s = r.deref(s, "schemas")
			continue
		}
		if vs, _ := variants(s); len(vs) == 1 && s.obj("properties") == nil {
			s = vs[0]
			continue
		}
		if all := s.arr("allOf"); len(all) == 1 && s.obj("properties") == nil {
			s, _ = all[0].(*object)
			continue
		}
		return s
	}
	return s
}

// typeOf is a short type label: "string", "integer | null", "array of VoiceSettings", ….
func (r *renderer) typeOf(s *object) string {
	return r.typeLabel(s, 0)
}

func (r *renderer) typeLabel(s *object, depth int) string {
	if s == nil {
		return "any"
	}
	if depth > 6 {
		return "…"
	}
	if name := refName(s); name != "" {
		t := r.deref(s, "schemas")
		if t == nil {
			return name
		}
		if t.obj("properties") != nil || t.str("type") == "object" || len(t.arr("anyOf"))+len(t.arr("oneOf"))+len(t.arr("allOf")) > 0 {
			return name
		}
		return r.typeLabel(t, depth+1)
	}
	if c, ok := s.get("const"); ok {
		return "const " + short(compactJSON(c))
	}
	if vs, nullable := variants(s); len(vs) > 0 || nullable {
		var parts []string
		for _, v := range vs {
			l := r.typeLabel(v, depth+1)
			if !slices.Contains(parts, l) {
				parts = append(parts, l)
			}
		}
		if nullable {
			parts = append(parts, "null")
		}
		return strings.Join(parts, " | ")
	}
	if all := s.arr("allOf"); len(all) > 0 {
		var parts []string
		for _, v := range all {
			vo, _ := v.(*object)
			parts = append(parts, r.typeLabel(vo, depth+1))
		}
		return strings.Join(parts, " & ")
	}
	var types []string
	switch t := s.vals["type"].(type) {
	case string:
		types = []string{t}
	case []any:
		for _, x := range t {
			if xs, ok := x.(string); ok {
				types = append(types, xs)
			}
		}
	}
	if len(types) == 0 {
		switch {
		case s.obj("properties") != nil:
			types = []string{"object"}
		case len(s.arr("enum")) > 0:
			types = []string{jsonType(s.arr("enum")[0])}
		default:
			return "any"
		}
	}
	var parts []string
	for _, t := range types {
		switch t {
		case "array":
			item := r.typeLabel(s.obj("items"), depth+1)
			if strings.Contains(item, " | ") {
				item = "(" + item + ")"
			}
			parts = append(parts, "array of "+item)
		case "object":
			if ap := s.obj("additionalProperties"); ap != nil && s.obj("properties") == nil {
				parts = append(parts, "map of string to "+r.typeLabel(ap, depth+1))
			} else {
				parts = append(parts, "object")
			}
		default:
			if f := s.str("format"); f != "" {
				t += " (" + f + ")"
			}
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, " | ")
}

func jsonType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	case nil:
		return "null"
	case []any:
		return "array"
	default:
		return "object"
	}
}

// describe is a schema's own description, else its target's.
func (r *renderer) describe(s *object) string {
	if s == nil {
		return ""
	}
	if d := s.str("description"); d != "" {
		return d
	}
	if c := r.core(s); c != nil && c != s {
		return c.str("description")
	}
	return ""
}

// facts lists enum values, the default, an example and constraints of a schema (looking
// through references and nullable wrappers).
func (r *renderer) facts(s *object) (enum []string, def, example, more string) {
	if s == nil {
		return
	}
	c := r.core(s)
	for _, src := range []*object{s, c} {
		if src == nil {
			continue
		}
		if enum == nil {
			for _, e := range src.arr("enum") {
				enum = append(enum, enumText(e))
			}
		}
		if d, ok := src.get("default"); ok && def == "" {
			def = short(compactJSON(d))
		}
		if ex, ok := firstExample(src); ok && example == "" {
			example = short(compactJSON(ex))
		}
	}
	var cons []string
	for _, k := range []string{"minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "minLength", "maxLength", "minItems", "maxItems", "pattern"} {
		for _, src := range []*object{s, c} {
			if v, ok := src.get(k); ok && src != nil {
				cons = append(cons, k+" "+short(compactJSON(v)))
				break
			}
		}
	}
	more = strings.Join(cons, ", ")
	return
}

func enumText(e any) string {
	if s, ok := e.(string); ok {
		return s
	}
	return compactJSON(e)
}

func firstExample(o *object) (any, bool) {
	if ex := o.arr("examples"); len(ex) > 0 {
		return ex[0], true
	}
	if ex, ok := o.get("example"); ok {
		return ex, true
	}
	return nil, false
}

func short(s string) string {
	if len(s) > 120 {
		cut := 117
		for cut > 0 && s[cut]&0xc0 == 0x80 { // stay on a rune boundary
			cut--
		}
		return s[:cut] + "…"
	}
	return s
}

// fields lists the properties of an object schema (or of an array's items), nested up to max
// levels; stack holds the component schemas being expanded, to stop at recursion.
func (r *renderer) fields(s *object, depth, max int, stack []string) []field {
	// Walk through references, nullable wrappers and arrays to the object.
	for range 8 {
		if s == nil {
			return nil
		}
		if name := refName(s); name != "" {
			if slices.Contains(stack, name) {
				return nil
			}
			stack = append(stack, name)
			s = r.deref(s, "schemas")
			continue
		}
		if vs, _ := variants(s); len(vs) == 1 && s.obj("properties") == nil {
			s = vs[0]
			continue
		}
		if s.str("type") == "array" && s.obj("items") != nil {
			s = s.obj("items")
			continue
		}
		break
	}
	if s == nil {
		return nil
	}
	if vs, _ := variants(s); len(vs) > 1 && s.obj("properties") == nil {
		var out []field
		for i, v := range vs {
			f := field{Name: fmt.Sprintf("option %d", i+1), Type: r.typeOf(v), Description: renderText(r.describe(v))}
			if depth < max {
				f.Children = r.fields(v, depth+1, max, stack)
			} else if r.expandable(v) {
				f.Note = "nested fields not shown"
			}
			out = append(out, f)
		}
		return out
	}
	props := newObject()
	var required []string
	parts := []*object{s}
	for _, a := range s.arr("allOf") {
		if ao, _ := a.(*object); ao != nil {
			parts = append(parts, r.deref(ao, "schemas"))
		}
	}
	for _, part := range parts {
		if part == nil {
			continue
		}
		for _, k := range part.obj("properties").ks() {
			props.set(k, part.obj("properties").vals[k])
		}
		for _, q := range part.arr("required") {
			if qs, ok := q.(string); ok {
				required = append(required, qs)
			}
		}
	}
	var out []field
	for _, name := range props.ks() {
		ps, _ := props.vals[name].(*object)
		f := field{Name: name, Type: r.typeOf(ps), Required: slices.Contains(required, name)}
		if ps != nil {
			f.Deprecated = ps.boolean("deprecated")
			f.Description = renderText(r.describe(ps))
			f.Enum, f.Default, f.Example, f.More = r.facts(ps)
			switch {
			case !r.expandable(ps):
			case r.recursive(ps, stack):
				f.Note = "recursive: same fields as above"
			case depth+1 >= max:
				f.Note = "nested fields not shown"
			default:
				f.Children = r.fields(ps, depth+1, max, stack)
			}
		}
		out = append(out, f)
	}
	return out
}

// expandable tells whether a schema has fields to list.
func (r *renderer) expandable(s *object) bool {
	for range 8 {
		c := r.core(s)
		if c == nil {
			return false
		}
		if c.str("type") == "array" {
			s = c.obj("items")
			continue
		}
		if c.obj("properties").len() > 0 {
			return true
		}
		vs, _ := variants(c)
		for _, v := range vs {
			if r.core(v).obj("properties").len() > 0 {
				return true
			}
		}
		return len(c.arr("allOf")) > 1
	}
	return false
}

// recursive tells whether a schema refers to one already being expanded.
func (r *renderer) recursive(s *object, stack []string) bool {
	for range 8 {
		if s == nil {
			return false
		}
		if name := refName(s); name != "" {
			return slices.Contains(stack, name)
		}
		if vs, _ := variants(s); len(vs) == 1 {
			s = vs[0]
			continue
		}
		if s.str("type") == "array" {
			s = s.obj("items")
			continue
		}
		return false
	}
	return false
}

// curl writes an example request.
func (r *renderer) curl(o operation, op *object) string {
	path := o.Path
	var query []string
	for _, raw := range op.arr("parameters") {
		po, _ := raw.(*object)
		po = r.deref(po, "parameters")
		if po == nil {
			continue
		}
		name := po.str("name")
		val := r.paramExample(po)
		switch po.str("in") {
		case "path":
			if val == "" {
				val = strings.ToUpper(name)
			}
			path = strings.ReplaceAll(path, "{"+name+"}", strings.ReplaceAll(url.PathEscape(val), "$", "%24"))
		case "query":
			if po.boolean("required") {
				if val == "" {
					val = strings.ToUpper(name)
				}
				query = append(query, url.QueryEscape(name)+"="+strings.ReplaceAll(url.QueryEscape(val), "$", "%24"))
			}
		}
	}
	target := "$TIMBRE_URL" + path
	if len(query) > 0 {
		target += "?" + strings.Join(query, "&")
	}
	var lines []string
	first := "curl"
	if o.Method != "GET" {
		first += " -X " + o.Method
	}
	lines = append(lines, first+` "`+target+`"`)
	if !o.Public {
		lines = append(lines, `-H "xi-api-key: $TIMBRE_API_KEY"`)
	}
	if rb := r.deref(op.obj("requestBody"), "requestBodies"); rb != nil {
		content := rb.obj("content")
		var ct string
		if len(content.ks()) > 0 {
			ct = content.ks()[0]
		}
		for _, k := range content.ks() {
			if strings.Contains(k, "json") {
				ct = k
				break
			}
		}
		s := content.obj(ct).obj("schema")
		switch {
		case strings.Contains(ct, "json"):
			ex, _ := r.example(content.obj(ct), s, 0)
			lines = append(lines, `-H "Content-Type: `+ct+`"`, "-d '"+strings.ReplaceAll(compactJSON(ex), "'", `'\''`)+"'")
		case strings.HasPrefix(ct, "multipart/") || ct == "application/x-www-form-urlencoded":
			flag := "-F"
			if ct == "application/x-www-form-urlencoded" {
				flag = "--data-urlencode"
			}
			c := r.core(s)
			for _, name := range c.obj("properties").ks() {
				ps := r.core(c.obj("properties").obj(name))
				if !slices.Contains(c.arr("required"), any(name)) {
					continue
				}
				if ps.str("format") == "binary" {
					lines = append(lines, flag+` "`+name+`=@file"`)
					continue
				}
				ex, _ := r.example(nil, ps, 1)
				lines = append(lines, flag+" '"+strings.ReplaceAll(name+"="+plain(ex), "'", `'\''`)+"'")
			}
		}
	}
	for _, resp := range o.Responses {
		if !strings.HasPrefix(resp.Code, "2") {
			continue
		}
		for _, ct := range resp.ContentTypes {
			if ext := binaryExt(ct); ext != "" {
				lines = append(lines, "-o out."+ext)
				break
			}
		}
		break
	}
	return strings.Join(lines, " \\\n  ")
}

// paramExample is a parameter's own example, else its schema's example, default or first enum
// value; "" when it has none.
func (r *renderer) paramExample(p *object) string {
	if ex, ok := firstExample(p); ok {
		return plain(ex)
	}
	for _, s := range []*object{p.obj("schema"), r.core(p.obj("schema"))} {
		if s == nil {
			continue
		}
		if ex, ok := firstExample(s); ok {
			return plain(ex)
		}
		if d, ok := s.get("default"); ok && d != nil {
			return plain(d)
		}
		if e := s.arr("enum"); len(e) > 0 {
			return plain(e[0])
		}
	}
	return ""
}

func plain(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return compactJSON(v)
}

func binaryExt(ct string) string {
	switch {
	case ct == "audio/mpeg":
		return "mp3"
	case ct == "application/zip":
		return "zip"
	case strings.HasPrefix(ct, "audio/"):
		ext := strings.TrimPrefix(ct, "audio/")
		if i := strings.IndexAny(ext, ";+-"); i >= 0 {
			ext = ext[:i]
		}
		return ext
	case ct == "application/octet-stream":
		return "bin"
	}
	return ""
}

// example makes an example value: a given example, else the default, the first enum value or a
// placeholder; objects get their required properties (or, with none required, those that have
// examples).
func (r *renderer) example(holder, s *object, depth int) (any, bool) {
	return r.exampleNamed("", holder, s, depth)
}

func (r *renderer) exampleNamed(name string, holder, s *object, depth int) (any, bool) {
	if holder != nil {
		if ex, ok := firstExample(holder); ok {
			return ex, true
		}
	}
	if s == nil || depth > 4 {
		return nil, false
	}
	if ex, ok := firstExample(s); ok {
		return ex, true
	}
	if s.str("$ref") != "" {
		return r.exampleNamed(name, nil, r.deref(s, "schemas"), depth+1)
	}
	if c, ok := s.get("const"); ok {
		return c, true
	}
	if vs, _ := variants(s); len(vs) > 0 {
		return r.exampleNamed(name, nil, vs[0], depth+1)
	}
	if d, ok := s.get("default"); ok {
		return d, true
	}
	if e := s.arr("enum"); len(e) > 0 {
		return e[0], true
	}
	c := r.core(s)
	switch t := c.str("type"); {
	case t == "array":
		if item, ok := r.exampleNamed(strings.TrimSuffix(name, "s"), nil, c.obj("items"), depth+1); ok {
			return []any{item}, true
		}
		return []any{}, true
	case t == "object" || c.obj("properties") != nil:
		out := newObject()
		props := c.obj("properties")
		for _, q := range c.arr("required") {
			prop, _ := q.(string)
			if v, ok := r.exampleNamed(prop, nil, props.obj(prop), depth+1); ok {
				out.set(prop, v)
			}
		}
		if out.len() == 0 {
			for _, prop := range props.ks() {
				if ex, ok := firstExample(props.obj(prop)); ok && out.len() < 3 {
					out.set(prop, ex)
				}
			}
		}
		return out, true
	case t == "string":
		switch c.str("format") {
		case "email":
			return "user@example.com", true
		case "binary":
			return "@file", true
		}
		if name != "" {
			return strings.ToUpper(name), true
		}
		return "string", true
	case t == "integer" || t == "number":
		return json.Number("0"), true
	case t == "boolean":
		return true, true
	}
	return nil, false
}

var (
	codeSpan   = regexp.MustCompile("`([^`\n]+)`")
	mdLink     = regexp.MustCompile(`\[([^\]\n]+)\]\((https?://[^)\s]+|/[^)\s]*)\)`)
	paragraphs = regexp.MustCompile(`\n[ \t]*\n`)
	slugChars  = regexp.MustCompile(`[^a-z0-9]+`)
)

// renderText shows plain or lightly marked-up text as HTML: everything escaped, blank lines make
// paragraphs, single newlines line breaks, `code` spans and [links](https://…) kept.
func renderText(s string) template.HTML {
	s = strings.TrimSpace(strings.ReplaceAll(s, "\r\n", "\n"))
	if s == "" {
		return ""
	}
	var b bytes.Buffer
	for _, para := range paragraphs.Split(s, -1) {
		para = strings.TrimSpace(para)
		if para == "" {
			continue
		}
		e := html.EscapeString(para)
		e = codeSpan.ReplaceAllString(e, "<code>$1</code>")
		e = mdLink.ReplaceAllStringFunc(e, func(m string) string {
			sm := mdLink.FindStringSubmatch(m)
			return `<a href="` + sm[2] + `">` + sm[1] + `</a>`
		})
		e = strings.ReplaceAll(e, "\n", "<br>\n")
		b.WriteString("<p>" + e + "</p>\n")
	}
	return template.HTML(b.String()) // built from escaped text only
}

// renderInline is renderText without paragraphs, for text inside a line (response summaries).
func renderInline(s string) template.HTML {
	s = strings.TrimSpace(strings.ReplaceAll(s, "\r\n", "\n"))
	e := html.EscapeString(s)
	e = codeSpan.ReplaceAllString(e, "<code>$1</code>")
	e = mdLink.ReplaceAllStringFunc(e, func(m string) string {
		sm := mdLink.FindStringSubmatch(m)
		return `<a href="` + sm[2] + `">` + sm[1] + `</a>`
	})
	e = paragraphs.ReplaceAllString(e, "<br><br>")
	return template.HTML(strings.ReplaceAll(e, "\n", " ")) // built from escaped text only
}

// tagName shows a tag for people: "speech-history" → "Speech history", "api-keys" → "API keys".
func tagName(tag string) string {
	words := strings.FieldsFunc(tag, func(r rune) bool { return r == '-' || r == '_' })
	for i, w := range words {
		switch strings.ToLower(w) {
		case "api", "ai", "tts", "stt", "pvc":
			words[i] = strings.ToUpper(w)
		case "openai":
			words[i] = "OpenAI"
		default:
			if i == 0 && w != "" {
				words[i] = strings.ToUpper(w[:1]) + w[1:]
			}
		}
	}
	if len(words) == 0 {
		return tag
	}
	return strings.Join(words, " ")
}

func slug(s string) string {
	return strings.Trim(slugChars.ReplaceAllString(strings.ToLower(s), "-"), "-")
}
