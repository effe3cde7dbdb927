package docs

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"

	"timbre/internal/httpx"
)

// CheckComplete returns the routes (ServeMux patterns such as "GET /v1/voices/{voice_id}")
// that the OpenAPI document doc does not describe, in the order given. A document that cannot
// be read describes nothing.
func CheckComplete(routes []string, doc []byte) []string {
	var d struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	_ = json.Unmarshal(doc, &d)
	var missing []string
	for _, r := range routes {
		m, p, err := splitRoute(r)
		if err != nil {
			missing = append(missing, r)
			continue
		}
		if _, ok := d.Paths[p][strings.ToLower(m)]; !ok {
			missing = append(missing, r)
		}
	}
	return missing
}

// DocumentedRoutes lists every operation of doc as "METHOD /path", sorted.
func DocumentedRoutes(doc []byte) ([]string, error) {
	var d struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, err
	}
	var out []string
	for p, ops := range d.Paths {
		for m := range ops {
			if slices.Contains(methods, m) {
				out = append(out, strings.ToUpper(m)+" "+p)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// CheckAuth returns the routes whose access level disagrees with the document: a route
// registered with Router.Authed must not be documented as public (security: []), and a public
// route must be. Routes the document lacks are left to CheckComplete.
func CheckAuth(routes []httpx.Route, doc []byte) []string {
	var d struct {
		Security json.RawMessage                                  `json:"security"`
		Paths    map[string]map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		out := make([]string, len(routes))
		for i, r := range routes {
			out[i] = r.Pattern
		}
		return out
	}
	public := func(sec json.RawMessage) bool {
		if len(sec) == 0 { // no requirement anywhere
			return true
		}
		var reqs []map[string][]string
		if json.Unmarshal(sec, &reqs) != nil {
			return false
		}
		if len(reqs) == 0 {
			return true
		}
		for _, r := range reqs {
			if len(r) == 0 {
				return true
			}
		}
		return false
	}
	var bad []string
	for _, r := range routes {
		m, p, err := splitRoute(r.Pattern)
		if err != nil {
			continue
		}
		op, ok := d.Paths[p][strings.ToLower(m)]
		if !ok {
			continue
		}
		sec, has := op["security"]
		if !has {
			sec = d.Security
		}
		if public(sec) == r.Authed {
			bad = append(bad, r.Pattern)
		}
	}
	return bad
}
