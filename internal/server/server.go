// Package server assembles the HTTP side: the router with every domain's routes, middleware
// (request ids, structured logs, metrics, CORS, panics), health checks and the embedded web app.
package server

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"io/fs"
	"log/slog"
	"net/http"
	"net/netip"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"timbre/internal/access"
	"timbre/internal/errs"
	"timbre/internal/httpx"
	"timbre/internal/store"
)

// Domain is anything that registers routes.
type Domain interface{ Routes(rt *httpx.Router) }

// Options are the server's parts.
type Options struct {
	DB       Store
	Auth     func(r *http.Request) (*access.Caller, error)
	Domains  []Domain
	WebApp   fs.FS // the built web app (index.html at its root); nil serves none
	Registry *prometheus.Registry
	Logger   *slog.Logger
	// ExposedHeaders are response headers browsers may read across origins.
	ExposedHeaders []string
	// TrustedProxies are the reverse proxies whose X-Forwarded-For names the real client.
	TrustedProxies []netip.Prefix
	// PublicURL is the address users reach (an origin of the server's own pages).
	PublicURL string
	// BodyTimeout bounds how long a route waits for its request body (0 = no limit).
	BodyTimeout time.Duration
	// PublicURLFromRequest builds links in mail from each request's own address (no public
	// URL configured).
	PublicURLFromRequest bool
}

// Server is the assembled handler.
type Server struct {
	Handler http.Handler
	Router  *httpx.Router
	// Metrics serves the Prometheus metrics; it is meant for its own, operator-only listener.
	Metrics http.Handler
}

// Metrics the server keeps.
type metrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
}

// healthResponse answers the liveness and readiness probes.
type healthResponse struct {
	Status string `json:"status"`
}

// New builds the server.
func New(o Options) *Server {
	mux := http.NewServeMux()
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "timbre_http_requests_total", Help: "HTTP requests by route, method and status code."}, []string{"route", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "timbre_http_request_duration_seconds", Help: "HTTP request latency by route.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}}, []string{"route"}),
	}
	o.Registry.MustRegister(m.requests, m.latency)
	rt := &httpx.Router{Mux: mux, Auth: o.Auth, Wrap: m.wrap, BodyTimeout: o.BodyTimeout, PublicURL: o.PublicURL}
	for _, d := range o.Domains {
		d.Routes(rt)
	}
	rt.Public("GET /healthz", func(w http.ResponseWriter, r *http.Request) error {
		httpx.WriteJSON(w, http.StatusOK, healthResponse{Status: "ok"})
		return nil
	})
	rt.Public("GET /readyz", func(w http.ResponseWriter, r *http.Request) error {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := o.DB.Ping(ctx); err != nil {
			return errs.Errorf(errs.Unavailable, "database_unreachable", "The database does not answer: %v", err)
		}
		httpx.WriteJSON(w, http.StatusOK, healthResponse{Status: "ready"})
		return nil
	})
	if o.WebApp != nil {
		mux.Handle("/", spa(o.WebApp))
	}
	// Unknown API routes answer in the API's error shape rather than with the web app.
	notFound := httpx.Handler(func(w http.ResponseWriter, r *http.Request) error {
		return errs.Errorf(errs.NotFound, "not_found", "No route %s %s.", r.Method, r.URL.Path)
	})
	mux.Handle("/v1/", notFound)
	mux.Handle("/v2/", notFound)
	mux.Handle("/api/", notFound)
	var h http.Handler = mux
	h = cors(h, o.ExposedHeaders)
	h = plainBodies(h)
	h = securityHeaders(h)
	h = requestContext(h, o.Logger, o.TrustedProxies)
	if o.PublicURLFromRequest {
		h = publicURLFromRequest(h, o.TrustedProxies)
	}
	return &Server{Handler: h, Router: rt, Metrics: promhttp.HandlerFor(o.Registry, promhttp.HandlerOpts{})}
}

func (m *metrics) wrap(pattern string, h http.Handler) http.Handler {
	route := pattern
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, code: http.StatusOK}
		h.ServeHTTP(sw, r)
		m.requests.WithLabelValues(route, strconv.Itoa(sw.code)).Inc()
		m.latency.WithLabelValues(route).Observe(time.Since(start).Seconds())
	})
}

// statusWriter records the status code; it passes Flush through so streams still stream.
type statusWriter struct {
	http.ResponseWriter
	code        int
	wroteHeader bool
}

func (s *statusWriter) WriteHeader(code int) {
	if !s.wroteHeader {
		s.code, s.wroteHeader = code, true
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(p []byte) (int, error) {
	s.wroteHeader = true
	return s.ResponseWriter.Write(p)
}

func (s *statusWriter) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// requestContext gives every request an id (echoed as request-id and x-request-id), a logger
// carrying it, an access log line, and turns panics into 500s.
func requestContext(next http.Handler, log *slog.Logger, trusted []netip.Prefix) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		clientAddr(r, trusted)
		id := r.Header.Get("X-Request-Id")
		if id == "" || len(id) > 64 {
			id = store.RandomString(20)
		}
		l := log.With("request_id", id)
		ctx := httpx.WithRequestID(httpx.WithLogger(r.Context(), l), id)
		w.Header().Set("x-request-id", id)
		sw := &statusWriter{ResponseWriter: w, code: http.StatusOK}
		start := time.Now()
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				l.Error("panic", "panic", p, "stack", string(debug.Stack()))
				if !sw.wroteHeader {
					httpx.WriteError(sw, r, errPanic)
				}
			}
			l.Info("request", "method", r.Method, "path", httpx.RedactPath(r.URL.Path), "status", sw.code, "duration_ms", time.Since(start).Milliseconds())
		}()
		next.ServeHTTP(sw, r.WithContext(ctx))
	})
}

var errPanic = errs.Errorf(errs.Internal, "internal_error", "Something went wrong, please try again later.")

// cors lets browser clients on other origins call the public API (/v1, /v2) with an API key.
// Credentials (the session cookie) are never allowed across origins, and nothing else (the web
// app's /api routes, the development mailbox) is readable from other origins.
func cors(next http.Handler, exposed []string) http.Handler {
	expose := strings.Join(append([]string{"x-request-id"}, exposed...), ", ")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		public := strings.HasPrefix(r.URL.Path, "/v1/") || strings.HasPrefix(r.URL.Path, "/v2/")
		if public && r.Header.Get("Origin") != "" {
			h := w.Header()
			h.Set("Access-Control-Allow-Origin", "*")
			h.Set("Access-Control-Expose-Headers", expose)
			if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
				h.Set("Access-Control-Allow-Methods", "GET, POST, PUT, PATCH, DELETE, OPTIONS")
				h.Set("Access-Control-Allow-Headers", "xi-api-key, Authorization, Content-Type, Accept, X-Request-Id")
				h.Set("Access-Control-Max-Age", "86400")
				w.WriteHeader(http.StatusNoContent)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// plainBodies refuses compressed request bodies: no route decodes them, and a small gzip body
// would unpack past the size limits.
func plainBodies(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ce := strings.TrimSpace(r.Header.Get("Content-Encoding")); ce != "" && !strings.EqualFold(ce, "identity") {
			httpx.WriteError(w, r, errs.Errorf(errs.Unsupported, "unsupported_content_encoding",
				"Request bodies are not accepted with Content-Encoding %q; send them uncompressed.", ce))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// securityHeaders are sent with every response: no content sniffing, and no full URLs (share
// tokens, reset codes in paths) in the Referer sent to other sites.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
		next.ServeHTTP(w, r)
	})
}

// contentSecurityPolicy is the web app's policy: its own scripts (plus the hashes of index.html's
// inline ones), styles, images and audio from the server or blob:/data: URLs, API calls to the
// server only, and no framing. frameAncestors is "'none'" except for pages made to be embedded.
func contentSecurityPolicy(scriptHashes []string, frameAncestors string) string {
	scripts := "'self'"
	for _, h := range scriptHashes {
		scripts += " '" + h + "'"
	}
	return "default-src 'self'; script-src " + scripts + "; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
		"media-src 'self' data: blob:; font-src 'self' data:; connect-src 'self' blob: data:; worker-src 'self' blob:; object-src 'none'; " +
		"base-uri 'self'; form-action 'self'; frame-ancestors " + frameAncestors
}

var inlineScript = regexp.MustCompile(`(?s)<script>(.*?)</script>`)

// inlineScriptHashes are the CSP hashes of index.html's inline scripts (the theme set before
// first paint), so they run without 'unsafe-inline'.
func inlineScriptHashes(index []byte) []string {
	var out []string
	for _, m := range inlineScript.FindAllSubmatch(index, -1) {
		sum := sha256.Sum256(m[1])
		out = append(out, "sha256-"+base64.StdEncoding.EncodeToString(sum[:]))
	}
	return out
}

// embeddable says whether a web app page is made to be shown inside other sites' pages: shared
// audio (/share/{token}). Embed pages join it when they are built.
func embeddable(path string) bool { return strings.HasPrefix(path, "/share/") }

// spa serves the built web app: real files as they are, every other path the app's index.html
// (client-side routes such as /app/sign-in and /share/{token}), with 404 for paths the app's
// route list does not know.
func spa(files fs.FS) http.Handler {
	fileServer := http.FileServerFS(files)
	index, indexErr := fs.ReadFile(files, "index.html")
	hashes := inlineScriptHashes(index)
	appPolicy := contentSecurityPolicy(hashes, "'none'")
	embedPolicy := contentSecurityPolicy(hashes, "*")
	routes := loadAppRoutes(files)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			httpx.WriteError(w, r, errs.Errorf(errs.NotFound, "not_found", "No route %s %s.", r.Method, r.URL.Path))
			return
		}
		policy := appPolicy
		if embeddable(r.URL.Path) {
			policy = embedPolicy
		}
		w.Header().Set("Content-Security-Policy", policy)
		p := strings.TrimPrefix(r.URL.Path, "/")
		if p != "" {
			if st, err := fs.Stat(files, p); err == nil && !st.IsDir() {
				if strings.HasPrefix(p, "assets/") {
					w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
				}
				fileServer.ServeHTTP(w, r)
				return
			}
		}
		if indexErr != nil {
			http.Error(w, "The web app is not built: run `make build`.", http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		if !routes.known(r.URL.Path) {
			// The app still renders its "not found" page; the status tells crawlers and tools.
			w.WriteHeader(http.StatusNotFound)
		}
		_, _ = w.Write(index)
	})
}
