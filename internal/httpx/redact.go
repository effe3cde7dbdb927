package httpx

import "strings"

// secretPathSegments are the routes that carry a secret (a backup code, an invitation code) in
// their path, as the API reference has them: prefix, then the secret segment, then any rest.
var secretPathSegments = []string{
	"/v1/user/backup-code/",
	"/api/workspace/invites/",
	"/v1/workspace/invites/",
}

// RedactPath is path with the secret segment of those routes replaced, for logs: a log line
// must not hand out a working code.
func RedactPath(path string) string {
	for _, prefix := range secretPathSegments {
		rest, ok := strings.CutPrefix(path, prefix)
		if !ok || rest == "" {
			continue
		}
		if _, after, found := strings.Cut(rest, "/"); found {
			return prefix + "[redacted]/" + after
		}
		return prefix + "[redacted]"
	}
	return path
}
