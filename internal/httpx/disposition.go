package httpx

import (
	"net/url"
	"strings"
)

// AttachmentDisposition is the Content-Disposition header of a download: an ASCII filename for
// every client, plus filename* with the UTF-8 name when it has other characters (RFC 6266).
func AttachmentDisposition(name string) string {
	ascii := strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' {
			return '_'
		}
		return r
	}, name)
	v := `attachment; filename="` + ascii + `"`
	if ascii != name {
		v += "; filename*=UTF-8''" + url.PathEscape(name)
	}
	return v
}
