package httpx

import (
	"net/http"
	"sort"
)

// Router registers routes on a ServeMux, wrapping each with what its access level needs, and
// remembers every pattern (for metrics labels, the route list in /docs and the security sweeps).
type Router struct {
	Mux *http.ServeMux
	// Auth resolves the caller; set by the server. It returns nil, nil for an anonymous request.
	Auth func(r *http.Request) (*Caller, error)
	// Wrap decorates each registered handler (metrics by route); set by the server.
	Wrap     func(pattern string, h http.Handler) http.Handler
	patterns []Route
}

// Route is one registered pattern.
type Route struct {
	Pattern string
	Authed  bool
}

func (rt *Router) handle(pattern string, authed bool, h http.Handler) {
	rt.patterns = append(rt.patterns, Route{pattern, authed})
	if rt.Wrap != nil {
		h = rt.Wrap(pattern, h)
	}
	rt.Mux.Handle(pattern, h)
}

// Public registers a route anyone may call.
func (rt *Router) Public(pattern string, h Handler) { rt.handle(pattern, false, h) }

// PublicHTTP registers a plain http.Handler anyone may call.
func (rt *Router) PublicHTTP(pattern string, h http.Handler) { rt.handle(pattern, false, h) }

// Authed registers a route that needs an API key or a signed-in session.
func (rt *Router) Authed(pattern string, h Handler) {
	rt.handle(pattern, true, Handler(func(w http.ResponseWriter, r *http.Request) error {
		c, err := rt.Auth(r)
		if err != nil {
			return err
		}
		if c == nil {
			return ErrUnauthorized
		}
		return h(w, r.WithContext(WithCaller(r.Context(), c)))
	}))
}

// Routes lists the registered patterns, sorted.
func (rt *Router) Routes() []Route {
	out := append([]Route(nil), rt.patterns...)
	sort.Slice(out, func(i, j int) bool { return out[i].Pattern < out[j].Pattern })
	return out
}
