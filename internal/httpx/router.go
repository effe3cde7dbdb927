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

// Route is one registered pattern and what it takes to call it.
type Route struct {
	Pattern    string
	Authed     bool
	Permission string // the API-key permission it needs ("" = any key)
	AdminOnly  bool   // only workspace admins …
	AdminGrant string // … or members whose groups grant this duty
	Feature    string // the product feature (group permission) it belongs to ("" = none)
}

// Option adds a requirement to an Authed route.
type Option func(*Route)

// Perm makes a route need an API-key permission (the API's names: text_to_speech, voices_read,
// speech_history_write, …). Web sessions hold every permission.
func Perm(p string) Option { return func(r *Route) { r.Permission = p } }

// AdminOnly makes a route refuse callers who are not admins of their workspace.
var AdminOnly Option = func(r *Route) { r.AdminOnly = true }

// AdminOr makes a route refuse callers who are neither admins nor granted the duty (a group
// permission such as webhooks_manage) by one of their groups.
func AdminOr(grant string) Option {
	return func(r *Route) { r.AdminOnly, r.AdminGrant = true, grant }
}

// Feature marks a route as part of a product feature; members whose groups restrict them to
// other features are refused it.
func Feature(f string) Option { return func(r *Route) { r.Feature = f } }

// ErrFeatureNotAllowed answers a member whose groups don't include a route's feature.
func ErrFeatureNotAllowed(f string) error {
	return Errorf(http.StatusForbidden, "feature_not_allowed", "Your workspace groups don't give you access to %s. Ask a workspace admin.", f)
}

// ErrForbiddenRole is the answer to an editor calling an admin route.
var ErrForbiddenRole = &Error{http.StatusForbidden, "forbidden", "Only workspace admins can do this."}

// ErrMissingPermission is the answer to a key without the permission a route needs.
func ErrMissingPermission(p string) error {
	return Errorf(http.StatusUnauthorized, "missing_permissions", "The API key doesn't have the permission %s needed for this request.", p)
}

func (rt *Router) handle(pattern string, authed bool, h http.Handler, opts ...Option) {
	route := Route{Pattern: pattern, Authed: authed}
	for _, o := range opts {
		o(&route)
	}
	rt.patterns = append(rt.patterns, route)
	if rt.Wrap != nil {
		h = rt.Wrap(pattern, h)
	}
	rt.Mux.Handle(pattern, h)
}

// Public registers a route anyone may call.
func (rt *Router) Public(pattern string, h Handler) { rt.handle(pattern, false, h) }

// PublicHTTP registers a plain http.Handler anyone may call.
func (rt *Router) PublicHTTP(pattern string, h http.Handler) { rt.handle(pattern, false, h) }

// Authed registers a route that needs an API key or a signed-in session, plus whatever the
// options add (a permission, the admin role).
func (rt *Router) Authed(pattern string, h Handler, opts ...Option) {
	var need Route
	for _, o := range opts {
		o(&need)
	}
	rt.handle(pattern, true, Handler(func(w http.ResponseWriter, r *http.Request) error {
		c, err := rt.Auth(r)
		if err != nil {
			return err
		}
		if c == nil {
			return ErrUnauthorized
		}
		if need.Permission != "" && !c.Can(need.Permission) {
			return ErrMissingPermission(need.Permission)
		}
		if need.AdminOnly && !c.MayAdminister(need.AdminGrant) {
			return ErrForbiddenRole
		}
		if need.Feature != "" && !c.HasFeature(need.Feature) {
			return ErrFeatureNotAllowed(need.Feature)
		}
		return h(w, r.WithContext(WithCaller(r.Context(), c)))
	}), opts...)
}

// Routes lists the registered patterns, sorted.
func (rt *Router) Routes() []Route {
	out := append([]Route(nil), rt.patterns...)
	sort.Slice(out, func(i, j int) bool { return out[i].Pattern < out[j].Pattern })
	return out
}
