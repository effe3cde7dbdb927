// Package server assembles the HTTP side: the router with every domain's routes, middleware
// (request ids, structured logs, metrics, CORS, panics), health checks and the embedded web app.
package server

import (
	"context"
	"io/fs"
	"log/slog"
	"net/http"
	"net/netip"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"timbre/internal/httpx"
	"timbre/internal/store"
)

// Domain is anything that registers routes.
type Domain interface{ Routes(rt *httpx.Router) }

// Options are the server's parts.
type Options struct {
	DB       *store.DB
	Auth     func(r *http.Request) (*httpx.Caller, error)
	Domains  []Domain
	WebApp   fs.FS // the built web app (index.html at its root); nil serves none
	Registry *prometheus.Registry
	Logger   *slog.Logger
	// ExposedHeaders are response headers browsers may read across origins.
	ExposedHeaders []string
	// TrustedProxies are the reverse proxies whose X-Forwarded-For names the real client.
	TrustedProxies []netip.Prefix
}

// Server is the assembled handler.
type Server struct {
	Handler http.Handler
	Router  *httpx.Router
}

// Metrics the server keeps.
type metrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
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
	rt := &httpx.Router{Mux: mux, Auth: o.Auth, Wrap: m.wrap}
	for _, d := range o.Domains {
		d.Routes(rt)
	}
	rt.Public("GET /healthz", func(w http.ResponseWriter, r *http.Request) error {
		httpx.WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
		return nil
	})
	rt.Public("GET /readyz", func(w http.ResponseWriter, r *http.Request) error {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := o.DB.Ping(ctx); err != nil {
			return httpx.Errorf(http.StatusServiceUnavailable, "database_unreachable", "The database does not answer: %v", err)
		}
		httpx.WriteJSON(w, http.StatusOK, map[string]string{"status": "ready"})
		return nil
	})
	rt.PublicHTTP("GET /metrics", promhttp.HandlerFor(o.Registry, promhttp.HandlerOpts{}))
	if o.WebApp != nil {
		mux.Handle("/", spa(o.WebApp))
	}
	// Unknown API routes answer in the API's error shape rather than with the web app.
	notFound := httpx.Handler(func(w http.ResponseWriter, r *http.Request) error {
		return httpx.Errorf(http.StatusNotFound, "not_found", "No route %s %s.", r.Method, r.URL.Path)
	})
	mux.Handle("/v1/", notFound)
	mux.Handle("/v2/", notFound)
	mux.Handle("/api/", notFound)
	var h http.Handler = mux
	h = cors(h, o.ExposedHeaders)
	h = requestContext(h, o.Logger, o.TrustedProxies)
	return &Server{Handler: h, Router: rt}
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

var errPanic = httpx.Errorf(http.StatusInternalServerError, "internal_error", "Something went wrong, please try again later.")

// cors lets browser clients on other origins call the API with an API key. Credentials (the
// session cookie) are never allowed across origins.
func cors(next http.Handler, exposed []string) http.Handler {
	expose := strings.Join(append([]string{"x-request-id"}, exposed...), ", ")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Origin") != "" {
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

// spa serves the built web app: real files as they are, every other path the app's index.html
// (client-side routes such as /app/sign-in and /share/{token}).
func spa(files fs.FS) http.Handler {
	fileServer := http.FileServerFS(files)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			httpx.WriteError(w, r, httpx.Errorf(http.StatusNotFound, "not_found", "No route %s %s.", r.Method, r.URL.Path))
			return
		}
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
		index, err := fs.ReadFile(files, "index.html")
		if err != nil {
			http.Error(w, "The web app is not built: run `make build`.", http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		_, _ = w.Write(index)
	})
}
