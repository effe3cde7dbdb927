// Package httpx holds what every HTTP handler shares: the API's error shapes, JSON reading with
// size limits and field validation, and the authenticated caller carried in the request context.
package httpx

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"os"
	"strings"
	"timbre/internal/errs"
	"unicode/utf8"
)

// Common errors of the HTTP layer.
var (
	ErrUnauthorized = errs.New(errs.Unauthenticated, "invalid_api_key", "Invalid API key")
	ErrNotFound     = errs.New(errs.NotFound, "not_found", "Not found")
	ErrCSRF         = errs.New(errs.Forbidden, "csrf_failed", "The request's CSRF token is missing or wrong. Reload the page and try again.")
	ErrNotJSON      = errs.New(errs.Unsupported, "unsupported_media_type", "Send the request body as JSON with Content-Type: application/json.")
	// A body that ends before its Content-Length (or its last chunk) is the client's fault.
	errBodyCutShort = errs.New(errs.Invalid, "body_incomplete", "The request body ended before its announced length.")
	errBodyTimeout  = errs.New(errs.Timeout, "body_timeout", "The request body did not arrive in time.")
)

// statusOf is the one place a domain error's kind becomes an HTTP status. Quota is 401 because
// that is the ElevenLabs API's answer to quota_exceeded.
var statusOf = map[errs.Kind]int{
	errs.Internal:        http.StatusInternalServerError,
	errs.Invalid:         http.StatusBadRequest,
	errs.Unauthenticated: http.StatusUnauthorized,
	errs.Forbidden:       http.StatusForbidden,
	errs.NotFound:        http.StatusNotFound,
	errs.Conflict:        http.StatusConflict,
	errs.Quota:           http.StatusUnauthorized,
	errs.RateLimited:     http.StatusTooManyRequests,
	errs.TooLarge:        http.StatusRequestEntityTooLarge,
	errs.Unsupported:     http.StatusUnsupportedMediaType,
	errs.Upstream:        http.StatusBadGateway,
	errs.Unavailable:     http.StatusServiceUnavailable,
	errs.Timeout:         http.StatusRequestTimeout,
}

// Status is the HTTP status for a domain error's kind.
func Status(k errs.Kind) int {
	if s, ok := statusOf[k]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// WriteJSON writes v as JSON with status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// ErrorBody is a domain error as the API shows it: {"detail": {"status": code, "message": …}}.
type ErrorBody struct {
	Detail ErrorDetail `json:"detail"`
}

// ErrorDetail is the machine code and the message for people of a domain error.
type ErrorDetail struct {
	Status  string `json:"status"`
	Message string `json:"message"`
}

// ValidationBody is a 422's body: the problems, each naming its field.
type ValidationBody struct {
	Detail []errs.FieldError `json:"detail"`
}

// OK writes {"status":"ok"}, the API's answer to a successful change.
func OK(w http.ResponseWriter) { WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"}) }

// WriteError writes err in the API's shape: validation errors as 422, domain errors with their
// kind's status, anything else as a logged 500 that tells the caller nothing internal.
func WriteError(w http.ResponseWriter, r *http.Request, err error) {
	var ve *errs.Validation
	var de *errs.Error
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &ve):
		WriteJSON(w, http.StatusUnprocessableEntity, ValidationBody{Detail: ve.Fields})
	case errors.As(err, &de) && de.Kind != errs.Internal:
		WriteJSON(w, Status(de.Kind), ErrorBody{Detail: ErrorDetail{Status: de.Code, Message: de.Message}})
	case errors.Is(err, io.ErrUnexpectedEOF):
		WriteError(w, r, errBodyCutShort)
	case errors.Is(err, os.ErrDeadlineExceeded):
		// The body read deadline (Router.BodyTimeout) passed: the body trickled in too slowly.
		WriteError(w, r, errBodyTimeout)
	case errors.As(err, &mbe):
		WriteJSON(w, http.StatusRequestEntityTooLarge, ErrorBody{Detail: ErrorDetail{Status: "payload_too_large",
			Message: fmt.Sprintf("The request body is larger than the limit of %d bytes.", mbe.Limit)}})
	case errors.Is(err, context.Canceled):
		// The client went away; nothing to tell it.
	default:
		Logger(r.Context()).Error("request failed", "err", err)
		WriteJSON(w, http.StatusInternalServerError, ErrorBody{Detail: ErrorDetail{Status: "internal_error", Message: "Something went wrong, please try again later."}})
	}
}

// DecodeJSON reads a JSON body of at most limit bytes into dst. Unknown fields are ignored (the
// API adds fields over time and SDKs send them), but malformed JSON, wrong types and text that is
// not valid UTF-8 give a 422 naming the field. The body must be sent as application/json: a
// browser sends other types (text/plain forms) across sites without asking first.
func DecodeJSON(r *http.Request, limit int64, dst any) error {
	body := http.MaxBytesReader(nil, r.Body, limit)
	data, err := io.ReadAll(body)
	if err != nil {
		return err
	}
	if len(strings.TrimSpace(string(data))) == 0 {
		return errs.Field("body", "body", "missing", "Field required: the request needs a JSON body.")
	}
	if !IsJSONContentType(r.Header.Get("Content-Type")) {
		return ErrNotJSON
	}
	if bad := firstInvalidText(data); bad >= 0 {
		// encoding/json would quietly turn the bad bytes (or a lone surrogate escape) into U+FFFD,
		// and the text would be spoken and charged that way.
		return &errs.Validation{Fields: []errs.FieldError{{Loc: append([]any{"body"}, jsonPathAt(data, bad)...),
			Msg: "Text must be valid UTF-8 (no invalid bytes, no unpaired surrogates).", Type: "unicode_error"}}}
	}
	if err := json.Unmarshal(data, dst); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			field := te.Field
			if field == "" {
				field = "body"
			}
			return errs.Field("body", field, "type_error", fmt.Sprintf("Input should be a valid %s.", te.Type.Kind()))
		}
		return errs.Field("body", "body", "json_invalid", "JSON decode error: "+err.Error())
	}
	return nil
}

// IsJSONContentType says whether a Content-Type header names JSON (application/json or a
// +json type, any parameters).
func IsJSONContentType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && (mt == "application/json" || strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))
}

// firstInvalidText is the offset of the first byte that is not valid UTF-8, or of the first
// \u escape of an unpaired UTF-16 surrogate, in a JSON document; -1 when there is none.
// (Backslashes occur only inside strings, so escapes need no parsing of the document.)
func firstInvalidText(data []byte) int {
	if utf8.Valid(data) && !bytes.Contains(data, []byte(`\ud`)) && !bytes.Contains(data, []byte(`\uD`)) {
		return -1 // the common case, without the byte-by-byte walk
	}
	for i := 0; i < len(data); {
		if data[i] == '\\' && i+1 < len(data) {
			if data[i+1] != 'u' {
				i += 2
				continue
			}
			if r, ok := hex4(data, i+2); ok && r >= 0xD800 && r <= 0xDFFF {
				low, ok := hex4(data, i+8)
				if r >= 0xDC00 || i+7 >= len(data) || data[i+6] != '\\' || data[i+7] != 'u' || !ok || low < 0xDC00 || low > 0xDFFF {
					return i
				}
				i += 12
				continue
			}
			i += 2
			continue
		}
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return -1
}

// hex4 reads the four hex digits at data[i:i+4].
func hex4(data []byte, i int) (rune, bool) {
	if i+4 > len(data) {
		return 0, false
	}
	var r rune
	for _, c := range data[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// jsonPathAt names where in a JSON document the byte at offset bad is: the keys (and array
// indexes) leading to the string that holds it, e.g. ["text"] or ["voice_settings", "style"];
// ["body"] when it is outside any value.
func jsonPathAt(data []byte, bad int) []any {
	type level struct {
		array bool
		key   any // the current key, or the index of the current element
		atKey bool
	}
	var stack []*level
	dec := json.NewDecoder(strings.NewReader(string(data)))
	for {
		tok, err := dec.Token()
		if err != nil {
			return []any{"body"}
		}
		var top *level
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if delim, ok := tok.(json.Delim); ok {
			switch delim {
			case '{', '[':
				if top != nil && top.array {
					top.key = top.key.(int) + 1
				}
				stack = append(stack, &level{array: delim == '[', key: -1, atKey: delim == '{'})
			case '}', ']':
				stack = stack[:len(stack)-1]
				if len(stack) > 0 {
					stack[len(stack)-1].atKey = !stack[len(stack)-1].array
				}
			}
			continue
		}
		if top != nil && top.array {
			top.key = top.key.(int) + 1
		}
		if top != nil && !top.array && top.atKey {
			top.key = tok
		}
		if dec.InputOffset() > int64(bad) {
			path := []any{}
			for _, l := range stack {
				path = append(path, l.key)
			}
			if len(path) == 0 {
				return []any{"body"}
			}
			return path
		}
		if top != nil && !top.array {
			top.atKey = !top.atKey
		}
	}
}

type ctxKey int

const (
	loggerKey ctxKey = iota
	requestIDKey
)

// WithLogger stores a request-scoped logger.
func WithLogger(ctx context.Context, l *slog.Logger) context.Context {
	return context.WithValue(ctx, loggerKey, l)
}

// Logger returns the request-scoped logger (with its request id), or the default one.
func Logger(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(loggerKey).(*slog.Logger); ok {
		return l
	}
	return slog.Default()
}

// WithRequestID stores the request id.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey, id)
}

// RequestID returns the request id.
func RequestID(ctx context.Context) string {
	s, _ := ctx.Value(requestIDKey).(string)
	return s
}

// Handler is an http handler that returns an error to be written in the API's shape.
type Handler func(w http.ResponseWriter, r *http.Request) error

// ServeHTTP runs h and writes its error, if any.
func (h Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := h(w, r); err != nil {
		WriteError(w, r, err)
	}
}
