package docs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"
)

// object is a JSON object that remembers its key order, so documents keep the order of their
// source (schema properties read best in the order their authors wrote them) and every output is
// byte-for-byte reproducible. Values are *object, []any, string, json.Number, bool or nil.
type object struct {
	keys []string
	vals map[string]any
}

func newObject() *object { return &object{vals: map[string]any{}} }

func (o *object) get(k string) (any, bool) {
	if o == nil {
		return nil, false
	}
	v, ok := o.vals[k]
	return v, ok
}

// obj returns the member k when it is an object.
func (o *object) obj(k string) *object {
	v, _ := o.get(k)
	x, _ := v.(*object)
	return x
}

// str returns the member k when it is a string.
func (o *object) str(k string) string {
	v, _ := o.get(k)
	s, _ := v.(string)
	return s
}

// arr returns the member k when it is an array.
func (o *object) arr(k string) []any {
	v, _ := o.get(k)
	a, _ := v.([]any)
	return a
}

func (o *object) boolean(k string) bool {
	v, _ := o.get(k)
	b, _ := v.(bool)
	return b
}

// set adds or replaces k; a new key goes last.
func (o *object) set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *object) del(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	for i, x := range o.keys {
		if x == k {
			o.keys = append(o.keys[:i:i], o.keys[i+1:]...)
			break
		}
	}
}

func (o *object) len() int {
	if o == nil {
		return 0
	}
	return len(o.keys)
}

// clone deep-copies a JSON value.
func clone(v any) any {
	switch x := v.(type) {
	case *object:
		c := &object{keys: append([]string(nil), x.keys...), vals: make(map[string]any, len(x.vals))}
		for k, e := range x.vals {
			c.vals[k] = clone(e)
		}
		return c
	case []any:
		c := make([]any, len(x))
		for i, e := range x {
			c[i] = clone(e)
		}
		return c
	default:
		return v
	}
}

// parseJSON reads one JSON value, keeping object key order and number literals.
func parseJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := parseValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("unexpected data after the JSON value (offset %d)", dec.InputOffset())
	}
	return v, nil
}

func parseValue(dec *json.Decoder) (any, error) {
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	d, ok := t.(json.Delim)
	if !ok {
		return t, nil
	}
	switch d {
	case '{':
		o := newObject()
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := parseValue(dec)
			if err != nil {
				return nil, err
			}
			o.set(kt.(string), v)
		}
		_, err := dec.Token()
		return o, err
	case '[':
		a := []any{}
		for dec.More() {
			v, err := parseValue(dec)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := dec.Token()
		return a, err
	}
	return nil, fmt.Errorf("unexpected %v at offset %d", d, dec.InputOffset())
}

// parseObject reads a JSON document whose top level is an object.
func parseObject(data []byte) (*object, error) {
	v, err := parseJSON(data)
	if err != nil {
		return nil, err
	}
	o, ok := v.(*object)
	if !ok {
		return nil, errors.New("the top level is not a JSON object")
	}
	return o, nil
}

// marshalIndent writes v as JSON indented by two spaces, in key order, without HTML escaping,
// ending with a newline.
func marshalIndent(v any) []byte {
	var b bytes.Buffer
	writeValue(&b, v, "")
	b.WriteByte('\n')
	return b.Bytes()
}

func writeValue(b *bytes.Buffer, v any, indent string) {
	switch x := v.(type) {
	case *object:
		if x.len() == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		for i, k := range x.keys {
			b.WriteString(indent + "  ")
			writeString(b, k)
			b.WriteString(": ")
			writeValue(b, x.vals[k], indent+"  ")
			if i < len(x.keys)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "}")
	case []any:
		if len(x) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for i, e := range x {
			b.WriteString(indent + "  ")
			writeValue(b, e, indent+"  ")
			if i < len(x)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "]")
	case string:
		writeString(b, x)
	case json.Number:
		b.WriteString(x.String())
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case nil:
		b.WriteString("null")
	case int:
		b.WriteString(strconv.Itoa(x))
	default:
		panic(fmt.Sprintf("docs: cannot write %T as JSON", v))
	}
}

// compactJSON writes v on one line (for examples).
func compactJSON(v any) string {
	var b bytes.Buffer
	writeCompact(&b, v)
	return b.String()
}

func writeCompact(b *bytes.Buffer, v any) {
	switch x := v.(type) {
	case *object:
		b.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				b.WriteString(", ")
			}
			writeString(b, k)
			b.WriteString(": ")
			writeCompact(b, x.vals[k])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeCompact(b, e)
		}
		b.WriteByte(']')
	default:
		writeValue(b, v, "")
	}
}

const hexDigits = "0123456789abcdef"

func writeString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b.WriteByte('\\')
				b.WriteByte(c)
			case c == '\n':
				b.WriteString(`\n`)
			case c == '\r':
				b.WriteString(`\r`)
			case c == '\t':
				b.WriteString(`\t`)
			case c < 0x20 || c == 0x7f:
				b.WriteString(`\u00`)
				b.WriteByte(hexDigits[c>>4])
				b.WriteByte(hexDigits[c&0xf])
			default:
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\ufffd`)
		case r == '\u2028' || r == '\u2029':
			b.WriteString(`\u202`)
			b.WriteByte(hexDigits[r&0xf])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('"')
}

// ks lists the keys in order; nil for a nil object.
func (o *object) ks() []string {
	if o == nil {
		return nil
	}
	return o.keys
}
