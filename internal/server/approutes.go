package server

import (
	"encoding/json"
	"io/fs"
	"strings"
)

// AppRoutesFile lists the web app's client-side routes (web/public/app-routes.json, copied into
// the build). The server reads it so unknown paths get the app's "not found" page with a real 404.
const AppRoutesFile = "app-routes.json"

// appRoutes matches paths against the web app's route patterns: "/app/sign-in", "/share/:token"
// (":name" is one segment), "/app/speech-synthesis/text-to-speech/*" ("*" is any rest).
type appRoutes struct{ patterns [][]string }

// loadAppRoutes reads the route list from the built app; nil (every path is the app's) when the
// build has none.
func loadAppRoutes(files fs.FS) *appRoutes {
	data, err := fs.ReadFile(files, AppRoutesFile)
	if err != nil {
		return nil
	}
	var list struct {
		Routes []string `json:"routes"`
	}
	if json.Unmarshal(data, &list) != nil {
		return nil
	}
	ar := &appRoutes{}
	for _, p := range list.Routes {
		ar.patterns = append(ar.patterns, segments(p))
	}
	return ar
}

func segments(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// known says whether the app has a page for path.
func (ar *appRoutes) known(path string) bool {
	if ar == nil {
		return true
	}
	segs := segments(path)
	for _, pat := range ar.patterns {
		if matchRoute(pat, segs) {
			return true
		}
	}
	return false
}

func matchRoute(pat, segs []string) bool {
	for i, p := range pat {
		if p == "*" {
			return true
		}
		if i >= len(segs) {
			return false
		}
		if !strings.HasPrefix(p, ":") && p != segs[i] || segs[i] == "" {
			return false
		}
	}
	return len(segs) == len(pat)
}
