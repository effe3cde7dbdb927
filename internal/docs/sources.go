package docs

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// LoadSources reads the generator's inputs from the api directory: the routes of routes.txt plus
// every routes.d/*.txt, and Timbre's operations of timbre-own.json merged with every own/*.json
// fragment. Each area of the product keeps its own route list and fragment, so areas can be
// added without touching one shared file.
func LoadSources(apiDir string) (own []byte, routes []string, err error) {
	routeFiles, _ := filepath.Glob(filepath.Join(apiDir, "routes.d", "*.txt"))
	sort.Strings(routeFiles)
	for _, f := range append([]string{filepath.Join(apiDir, "routes.txt")}, routeFiles...) {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, nil, err
		}
		rs, err := ParseRoutes(data)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", f, err)
		}
		routes = append(routes, rs...)
	}
	ownFiles, _ := filepath.Glob(filepath.Join(apiDir, "own", "*.json"))
	sort.Strings(ownFiles)
	own, err = os.ReadFile(filepath.Join(apiDir, "timbre-own.json"))
	if err != nil {
		return nil, nil, err
	}
	for _, f := range ownFiles {
		frag, err := os.ReadFile(f)
		if err != nil {
			return nil, nil, err
		}
		if own, err = mergeFragments(own, frag); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", f, err)
		}
	}
	return own, routes, nil
}

// mergeFragments joins two OpenAPI fragments: tags are concatenated, paths and components
// (per section) are united; a name defined in both is an error.
func mergeFragments(a, b []byte) ([]byte, error) {
	var fa, fb map[string]json.RawMessage
	if err := json.Unmarshal(a, &fa); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &fb); err != nil {
		return nil, err
	}
	for key, vb := range fb {
		va, ok := fa[key]
		if !ok {
			fa[key] = vb
			continue
		}
		switch key {
		case "tags":
			var ta, tb []json.RawMessage
			if err := json.Unmarshal(va, &ta); err != nil {
				return nil, err
			}
			if err := json.Unmarshal(vb, &tb); err != nil {
				return nil, err
			}
			merged, _ := json.Marshal(append(ta, tb...))
			fa[key] = merged
		case "paths":
			merged, err := unite(va, vb, "path")
			if err != nil {
				return nil, err
			}
			fa[key] = merged
		case "components":
			var ca, cb map[string]json.RawMessage
			if err := json.Unmarshal(va, &ca); err != nil {
				return nil, err
			}
			if err := json.Unmarshal(vb, &cb); err != nil {
				return nil, err
			}
			for sec, vs := range cb {
				if cur, ok := ca[sec]; ok {
					merged, err := unite(cur, vs, "components."+sec)
					if err != nil {
						return nil, err
					}
					ca[sec] = merged
				} else {
					ca[sec] = vs
				}
			}
			merged, _ := json.Marshal(ca)
			fa[key] = merged
		default:
			return nil, fmt.Errorf("fragment key %q defined twice", key)
		}
	}
	return json.Marshal(fa)
}

func unite(a, b json.RawMessage, what string) (json.RawMessage, error) {
	var ma, mb map[string]json.RawMessage
	if err := json.Unmarshal(a, &ma); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &mb); err != nil {
		return nil, err
	}
	for k, v := range mb {
		if _, dup := ma[k]; dup {
			return nil, fmt.Errorf("%s %q defined twice", what, k)
		}
		ma[k] = v
	}
	return json.Marshal(ma)
}
