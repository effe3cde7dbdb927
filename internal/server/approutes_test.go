package server

import (
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"testing/fstest"
)

// The web app's own route list (the file the build copies into dist) decides 200 or 404.
func TestSPAUnknownPathsAnswer404(t *testing.T) {
	list, err := os.ReadFile("../../web/public/" + AppRoutesFile)
	if err != nil {
		t.Fatal(err)
	}
	files := fstest.MapFS{
		"index.html":         {Data: []byte("<!doctype html><div id=root></div>")},
		AppRoutesFile:        {Data: list},
		"assets/app-1234.js": {Data: []byte("console.log(1)")},
		"favicon.svg":        {Data: []byte("<svg/>")},
	}
	h := spa(files)
	for path, want := range map[string]int{
		"/":                                    200,
		"/app/sign-in":                         200,
		"/app/sign-in/":                        200,
		"/app/speech-synthesis/text-to-speech": 200,
		"/app/speech-synthesis/text-to-speech/history": 200,
		"/share/abc123":       200,
		"/terms":              200,
		"/privacy":            200,
		"/assets/app-1234.js": 200,
		"/favicon.svg":        200,
		"/app/nope":           404,
		"/app/settings/nope":  404,
		"/share":              404,
		"/share/a/b":          404,
		"/nothing-here":       404,
		"/app/sign-inx":       404,
	} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		if w.Code != want {
			t.Errorf("GET %s = %d, want %d", path, w.Code, want)
		}
		if want == 404 && w.Body.String() != "<!doctype html><div id=root></div>" {
			t.Errorf("GET %s: the 404 must still be the app's page (it renders \"not found\"), got %q", path, w.Body.String())
		}
	}
}

// A build without the route list (older builds) keeps serving the app for every path.
func TestSPAWithoutRouteListServesEveryPath(t *testing.T) {
	h := spa(fstest.MapFS{"index.html": {Data: []byte("app")}})
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/app/whatever", nil))
	if w.Code != 200 || w.Body.String() != "app" {
		t.Fatalf("got %d %q", w.Code, w.Body.String())
	}
}
