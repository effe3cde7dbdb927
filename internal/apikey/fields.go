package apikey

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"timbre/internal/errs"
	"timbre/internal/httpx"
)

// Sentinels of the PATCH bodies (the reference's "no_update" default and "clear").
const (
	noUpdate = "no_update"
	clearVal = "clear"
)

// body is a JSON object read field by field, so that absent, null, sentinel strings and values
// can be told apart as the reference's anyOf schemas require.
type body map[string]json.RawMessage

func decodeBody(r *http.Request, limit int64, optional bool) (body, error) {
	if optional && r.ContentLength == 0 {
		return body{}, nil
	}
	var b body
	if err := httpx.DecodeJSON(r, limit, &b); err != nil {
		if optional {
			if ve, ok := err.(*errs.Validation); ok && len(ve.Fields) == 1 && ve.Fields[0].Type == "missing" {
				return body{}, nil
			}
		}
		return nil, err
	}
	if b == nil {
		return nil, errs.Field("body", "body", "type_error", "Input should be a valid JSON object.")
	}
	return b, nil
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

// str returns the field as a string when it is one.
func str(raw json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// name reads a required (on create) or optional name.
func (b body) name(v *errs.Validator, required bool) *string {
	raw, ok := b["name"]
	if !ok || (!required && isNull(raw)) {
		if required {
			v.Add("body", "name", "missing", "Field required.")
		}
		return nil
	}
	s, ok := str(raw)
	if !ok {
		v.Add("body", "name", "string_type", "Input should be a valid string.")
		return nil
	}
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		v.Add("body", "name", "missing", "Please give it a name.")
		return nil
	case len([]rune(s)) > MaxNameLength:
		v.Add("body", "name", "value_error", fmt.Sprintf("The name must be at most %d characters.", MaxNameLength))
		return nil
	}
	return &s
}

// permissions reads a list of the API's permission names or "all" (and "no_update" when
// patching); nil means unchanged or absent.
func (b body) permissions(v *errs.Validator, required, patch bool) []string {
	raw, ok := b["permissions"]
	if !ok {
		if required {
			v.Add("body", "permissions", "missing", "Field required: a list of permissions, or \"all\".")
		}
		return nil
	}
	if s, isStr := str(raw); isStr {
		switch {
		case s == All:
			return []string{All}
		case patch && s == noUpdate:
			return nil
		}
		v.Add("body", "permissions", "value_error", fmt.Sprintf("Input should be a list of permissions or \"all\", not %q.", s))
		return nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil || isNull(raw) {
		v.Add("body", "permissions", "type_error", "Input should be a list of permission names, or \"all\".")
		return nil
	}
	if len(list) == 0 {
		v.Add("body", "permissions", "too_short", "Give at least one permission, or \"all\".")
		return nil
	}
	out := make([]string, 0, len(list))
	for _, p := range list {
		if !Known(p) && p != All {
			v.Add("body", "permissions", "enum", fmt.Sprintf("Unknown permission %q. Input should be one of: %s.", p, strings.Join(Permissions, ", ")))
			return nil
		}
		if p == All {
			return []string{All}
		}
		if !contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// characterLimit reads an integer, null (no limit), or when patching "clear" / "no_update".
// It returns the limit, whether to clear it, and whether the field changes anything.
func (b body) characterLimit(v *errs.Validator, patch bool) (limit *int64, clear, set bool) {
	raw, ok := b["character_limit"]
	if !ok {
		return nil, false, false
	}
	if isNull(raw) {
		return nil, true, true
	}
	if s, isStr := str(raw); isStr {
		if patch && s == noUpdate {
			return nil, false, false
		}
		if patch && s == clearVal {
			return nil, true, true
		}
		v.Add("body", "character_limit", "int_type", "Input should be a valid integer"+map[bool]string{true: ", \"clear\" or \"no_update\".", false: " or null."}[patch])
		return nil, false, false
	}
	var n int64
	if err := json.Unmarshal(raw, &n); err != nil {
		v.Add("body", "character_limit", "int_type", "Input should be a valid integer.")
		return nil, false, false
	}
	if n < 0 || n > MaxCharacterLimit {
		v.Add("body", "character_limit", "value_error", fmt.Sprintf("Input should be from 0 to %d.", MaxCharacterLimit))
		return nil, false, false
	}
	return &n, false, true
}

// isEnabled reads a boolean or "no_update".
func (b body) isEnabled(v *errs.Validator) *bool {
	raw, ok := b["is_enabled"]
	if !ok {
		return nil
	}
	if s, isStr := str(raw); isStr && s == noUpdate {
		return nil
	}
	var on bool
	if err := json.Unmarshal(raw, &on); err != nil || isNull(raw) {
		v.Add("body", "is_enabled", "bool_type", "Input should be a valid boolean or \"no_update\".")
		return nil
	}
	return &on
}

// thirdParty reads third_party_disable_allowed: a boolean, null (the workspace default), or when
// patching "clear" / "no_update".
func (b body) thirdParty(v *errs.Validator, patch bool) (val *bool, clear bool) {
	raw, ok := b["third_party_disable_allowed"]
	if !ok {
		return nil, false
	}
	if isNull(raw) {
		return nil, patch
	}
	if s, isStr := str(raw); isStr && patch && (s == noUpdate || s == clearVal) {
		return nil, s == clearVal
	}
	var on bool
	if err := json.Unmarshal(raw, &on); err != nil {
		v.Add("body", "third_party_disable_allowed", "bool_type", "Input should be a valid boolean.")
		return nil, false
	}
	return &on, false
}

// allowedIPs accepts only "no allowlist": Timbre does not restrict keys by address yet, and
// accepting a list it would not enforce would be worse than refusing it.
func (b body) allowedIPs(v *errs.Validator, patch bool) {
	raw, ok := b["allowed_ips"]
	if !ok || isNull(raw) {
		return
	}
	if s, isStr := str(raw); isStr && patch && (s == noUpdate || s == clearVal) {
		return
	}
	v.Add("body", "allowed_ips", "value_error", "IP allowlists for API keys are not supported by this server; omit allowed_ips.")
}
