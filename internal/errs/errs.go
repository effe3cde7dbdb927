// Package errs is the one error type of Timbre's domains: a kind (what went wrong, in terms a
// caller can act on), a machine code (the API's detail.status) and a message for people. Services
// and the store return these; only the HTTP layer turns a kind into a status code (httpx), so the
// same services serve HTTP, WebSocket and command-line callers.
package errs

import (
	"errors"
	"fmt"
	"strings"
)

// Kind says what sort of failure an error is.
type Kind uint8

const (
	Internal        Kind = iota // a bug or an outage; the message is not shown to callers
	Invalid                     // the request is malformed (a field's problem is a *Validation)
	Unauthenticated             // no valid credentials, or credentials that lack a permission
	Forbidden                   // authenticated, but not allowed
	NotFound                    // nothing by that id in the caller's workspace
	Conflict                    // the state forbids it (already exists, already reviewed, …)
	Quota                       // a plan, key or member allowance is used up
	RateLimited                 // too many attempts or concurrent requests; try later
	TooLarge                    // a body or upload over its limit
	Unsupported                 // a media type or encoding the route does not take
	Upstream                    // an outside service (an engine, an identity provider) failed
	Unavailable                 // the server cannot do it now (shutting down, not configured)
	Timeout                     // the caller took too long (a body that trickles in)
)

var kindNames = [...]string{"internal", "invalid", "unauthenticated", "forbidden", "not_found",
	"conflict", "quota", "rate_limited", "too_large", "unsupported", "upstream", "unavailable", "timeout"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// Error is a domain error: {"detail":{"status":Code,"message":Message}} on the wire.
type Error struct {
	Kind    Kind
	Code    string
	Message string
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// New builds an error.
func New(kind Kind, code, message string) *Error {
	return &Error{Kind: kind, Code: code, Message: message}
}

// Errorf builds an error with a formatted message.
func Errorf(kind Kind, code, format string, args ...any) *Error {
	return &Error{Kind: kind, Code: code, Message: fmt.Sprintf(format, args...)}
}

// KindOf is the kind of err: its *Error's or *Validation's, Internal for anything else.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	var v *Validation
	if errors.As(err, &v) {
		return Invalid
	}
	return Internal
}

// Is reports whether err is a domain error of kind k.
func Is(err error, k Kind) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == k
}

// FieldError is one field's problem: {loc, msg, type} on the wire (a 422 entry).
type FieldError struct {
	Loc  []any  `json:"loc"`
	Msg  string `json:"msg"`
	Type string `json:"type"`
}

// Validation is a request with one or more invalid fields.
type Validation struct{ Fields []FieldError }

func (v *Validation) Error() string {
	parts := make([]string, len(v.Fields))
	for i, f := range v.Fields {
		parts[i] = fmt.Sprint(f.Loc) + ": " + f.Msg
	}
	return "validation: " + strings.Join(parts, "; ")
}

// Field is a validation error naming one field; where is "body", "query" or "path".
func Field(where, field, typ, msg string) *Validation {
	return &Validation{Fields: []FieldError{{Loc: []any{where, field}, Msg: msg, Type: typ}}}
}

// Validator collects field errors.
type Validator struct{ fields []FieldError }

// Add records a problem with a field.
func (v *Validator) Add(where, field, typ, msg string) {
	v.fields = append(v.fields, FieldError{Loc: []any{where, field}, Msg: msg, Type: typ})
}

// Err returns the collected errors, or nil.
func (v *Validator) Err() error {
	if len(v.fields) == 0 {
		return nil
	}
	return &Validation{Fields: v.fields}
}
