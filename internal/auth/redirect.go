package auth

import (
	"net/url"
	"path"
	"regexp"
	"strings"
)

// DefaultRedirect is where sign-in lands when no (safe) redirect was asked for.
const DefaultRedirect = "/app/speech-synthesis/text-to-speech"

// Spec §2: a redirect is honoured only if same origin and the path is one of the listed ones or
// a known app or external route. These are the first segments under /app the spec names (its
// listed redirect targets and its app paths); sign-in pages themselves are not targets.
var appRoutes = setOf(
	// the redirect list
	"affiliates", "audio-native", "history", "request-alpha-access", "subscription", "usage", "speech-synthesis", "dubs", "redirect",
	// the app paths
	"home", "ai-classifier", "conversational-ai", "developers", "dubbing", "onboarding", "onboarding-checklist", "payouts",
	"productions", "profiles", "sound-effects", "settings", "studio", "speech-to-text", "workspace", "voice-lab",
	"default-voices", "workspace-voices", "voiceover-studio", "voice-library", "voice-isolator", "publishing", "music", "eleven",
	// Timbre's own app pages reachable by link
	"invite", "share",
)

// The public (marketing) paths of spec §2; "*" stands for one slug segment.
var externalRoutes = []string{
	"/about", "/affiliates", "/affiliates/terms", "/api", "/blog", "/careers", "/contact-sales", "/customers", "/customers/*",
	"/docs/introduction", "/dubbing", "/enterprise", "/languages", "/languages/*", "/pricing", "/pricing/api", "/studio",
	"/sound-effects", "/sound-effects/*", "/text-to-speech", "/text-reader", "/voice-changer", "/voice-cloning", "/voice-library",
	"/voice-isolator", "/use-cases/audiobooks", "/use-cases/chatbots", "/use-cases/gaming", "/use-cases/videos", "/use-cases/*",
	"/safety", "/showcase", "/grants", "/payouts", "/terms-of-use-eu", "/use-policy", "/vla", "/vlaeu",
	// API resources the spec lists as redirect targets
	"/v1/dubs/*", "/v1/projects/*",
}

// integrationCallbackParams are the query keys an integration callback may carry (spec §2).
var integrationCallbackParams = setOf("code", "configurationId", "next", "source", "teamId")

var safeSegment = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.~-]*$`)

func setOf(xs ...string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// SafeRedirect applies the §2 rule to a requested redirect: it returns a same-origin path (with
// its query) when raw is allowed, else DefaultRedirect and false. origin is the server's public
// URL (scheme://host[:port]); an absolute raw URL must match it exactly. An empty raw gives the
// default and true (nothing unsafe was asked for).
func SafeRedirect(raw, origin string) (string, bool) {
	if raw == "" {
		return DefaultRedirect, true
	}
	if target, ok := safeRedirect(raw, origin); ok {
		return target, true
	}
	return DefaultRedirect, false
}

func safeRedirect(raw, origin string) (string, bool) {
	if len(raw) > 2048 {
		return "", false
	}
	for _, r := range raw {
		// Backslashes (browsers read them as slashes), control characters and spaces are never
		// part of a link we produce.
		if r == '\\' || r < 0x21 || r == 0x7f {
			return "", false
		}
	}
	lower := strings.ToLower(raw)
	// Encoded slashes, backslashes, dots and percent signs hide "//", "\" and ".." from checks.
	for _, enc := range []string{"%2f", "%5c", "%2e", "%25", "%00", "%09", "%0a", "%0d"} {
		if strings.Contains(lower, enc) {
			return "", false
		}
	}
	u, err := url.Parse(raw)
	if err != nil || u.Opaque != "" || u.User != nil || u.Fragment != "" && strings.ContainsAny(u.Fragment, "/:") {
		return "", false
	}
	if u.Scheme != "" || u.Host != "" || strings.HasPrefix(raw, "//") {
		o, err := url.Parse(origin)
		if err != nil || o.Host == "" || !strings.EqualFold(u.Scheme, o.Scheme) || !strings.EqualFold(u.Host, o.Host) {
			return "", false
		}
	} else if !strings.HasPrefix(raw, "/") {
		return "", false
	}
	p := u.Path
	if p == "" || !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") {
		return "", false
	}
	// The path must already be clean: no "..", ".", or doubled slashes (a trailing slash is fine).
	if clean := path.Clean(p); clean != strings.TrimSuffix(p, "/") && clean != p {
		return "", false
	}
	segs := strings.Split(strings.Trim(p, "/"), "/")
	for _, s := range segs {
		if !safeSegment.MatchString(s) || s == "." || s == ".." {
			return "", false
		}
	}
	if !allowedPath(segs, u.Query()) {
		return "", false
	}
	target := p
	if u.RawQuery != "" {
		target += "?" + u.RawQuery
	}
	return target, true
}

func allowedPath(segs []string, q url.Values) bool {
	if len(segs) >= 2 && segs[0] == "app" {
		// An integration callback: /app/…/callback with only the listed parameters.
		if segs[len(segs)-1] == "callback" && q.Get("code") != "" {
			for k := range q {
				if !integrationCallbackParams[k] {
					return false
				}
			}
			return true
		}
		return appRoutes[segs[1]]
	}
	for _, pattern := range externalRoutes {
		ps := strings.Split(strings.Trim(pattern, "/"), "/")
		if len(ps) != len(segs) {
			continue
		}
		match := true
		for i := range ps {
			if ps[i] != "*" && ps[i] != segs[i] {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}
