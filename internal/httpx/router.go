package httpx

import (
	"net/http"
	"net/url"
	"sort"
	"strings"
	"timbre/internal/access"
	"timbre/internal/errs"
	"time"
)

// Router registers routes on a ServeMux, wrapping each with what its access level needs, and
// remembers every pattern (for metrics labels, the route list in /docs and the security sweeps).
type Router struct {
	Mux *http.ServeMux
	// Auth resolves the caller; set by the server. It returns nil, nil for an anonymous request.
	Auth func(r *http.Request) (*access.Caller, error)
	// Wrap decorates each registered handler (metrics by route); set by the server.
	Wrap func(pattern string, h http.Handler) http.Handler
	// BodyTimeout is how long a route may take to receive its request body (0 = no limit); a
	// body that trickles in slower ends with 408. It is set by each route, after the request head.
	BodyTimeout time.Duration
	// PublicURL is the server's own origin besides the request's Host (TIMBRE_PUBLIC_URL), for
	// the cross-site check of unauthenticated POSTs.
	PublicURL string
	patterns  []Route
}

// Route is one registered pattern and what it takes to call it.
type Route struct {
	Pattern    string
	Authed     bool
	Permission string // the API-key permission it needs ("" = any key)
	AdminOnly  bool   // only workspace admins …
	AdminGrant string // … or members whose groups grant this duty
	Feature    string // the product feature (group permission) it belongs to ("" = none)
	CrossSite  bool   // an unauthenticated POST that other sites may send (a SAML IdP's form post)
	// MuxPattern, when set, is what ServeMux registers instead of Pattern (still the documented
	// route): for API paths ServeMux calls ambiguous, whose handler then checks the literal part.
	MuxPattern string
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

// CrossSite lets an unauthenticated route take POSTs from other websites (a SAML IdP posting
// its response); every other unauthenticated POST must come from the server's own pages or from
// a client that is not a browser.
var CrossSite Option = func(r *Route) { r.CrossSite = true }

// ServeAs registers the route with ServeMux under another pattern (see Route.MuxPattern).
func ServeAs(muxPattern string) Option { return func(r *Route) { r.MuxPattern = muxPattern } }

// ErrCrossSite answers an unauthenticated POST sent by a page of another website.
var ErrCrossSite = errs.New(errs.Forbidden, "cross_site_request", "This request was sent by a page of another website. Use Timbre's own pages.")

// ErrFeatureNotAllowed answers a member whose groups don't include a route's feature.
func ErrFeatureNotAllowed(f string) error {
	return errs.Errorf(errs.Forbidden, "feature_not_allowed", "Your workspace groups don't give you access to %s. Ask a workspace admin.", f)
}

// ErrForbiddenRole is the answer to an editor calling an admin route.
var ErrForbiddenRole = errs.New(errs.Forbidden, "forbidden", "Only workspace admins can do this.")

// ErrMissingPermission is the answer to a key without the permission a route needs.
func ErrMissingPermission(p string) error {
	return errs.Errorf(errs.Unauthenticated, "missing_permissions", "The API key doesn't have the permission %s needed for this request.", p)
}

func (rt *Router) handle(pattern string, authed bool, h http.Handler, opts ...Option) {
	route := Route{Pattern: pattern, Authed: authed}
	for _, o := range opts {
		o(&route)
	}
	rt.patterns = append(rt.patterns, route)
	if !authed && !route.CrossSite && !strings.HasPrefix(pattern, "GET ") {
		h = rt.sameSiteOnly(h)
	}
	if rt.BodyTimeout > 0 {
		h = bodyDeadline(h, rt.BodyTimeout)
	}
	if rt.Wrap != nil {
		h = rt.Wrap(pattern, h)
	}
	if route.MuxPattern != "" {
		pattern = route.MuxPattern
	}
	rt.Mux.Handle(pattern, h)
}

// sameSiteOnly refuses requests that a browser sent for a page of another website: without it a
// page anywhere could sign a visitor in or ask for a password reset in their name. Requests with
// neither Origin nor Sec-Fetch-Site (curl, SDKs) are not from a browser and pass.
func (rt *Router) sameSiteOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !rt.sameOrigin(r) {
			WriteError(w, r, ErrCrossSite)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (rt *Router) sameOrigin(r *http.Request) bool {
	if origin := r.Header.Get("Origin"); origin != "" {
		u, err := url.Parse(origin)
		if err != nil || u.Host == "" {
			return false // includes "null" (sandboxed frames, data: pages)
		}
		if strings.EqualFold(u.Host, r.Host) {
			return true
		}
		pub, err := url.Parse(rt.PublicURL)
		return err == nil && pub.Host != "" && strings.EqualFold(u.Scheme+"://"+u.Host, pub.Scheme+"://"+pub.Host)
	}
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none": // none: typed by the user
		return true
	}
	return false
}

// bodyDeadline ends the reading of a request body that has not arrived within d (the read
// fails with os.ErrDeadlineExceeded, written as 408). net/http lifts the deadline once the body
// is read, so a long streamed answer is not cut by it.
func bodyDeadline(next http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength != 0 {
			// An error means the connection has no deadlines (a test recorder): nothing to bound.
			_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(d))
		}
		next.ServeHTTP(w, r)
	})
}

// Public registers a route anyone may call. Unless it is a GET or has the CrossSite option,
// browsers may send it only from the server's own pages.
func (rt *Router) Public(pattern string, h Handler, opts ...Option) {
	rt.handle(pattern, false, h, opts...)
}

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
		return h(w, r.WithContext(access.WithCaller(r.Context(), c)))
	}), opts...)
}

// Routes lists the registered patterns, sorted.
func (rt *Router) Routes() []Route {
	out := append([]Route(nil), rt.patterns...)
	sort.Slice(out, func(i, j int) bool { return out[i].Pattern < out[j].Pattern })
	return out
}
