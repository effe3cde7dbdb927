package httpx

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"timbre/internal/audio"
	"timbre/internal/errs"
)

// The query parameters the audio routes share. Each records what is wrong in v (a 422 naming
// the parameter once the caller returns v.Err()) and returns a value to go on with.

// OutputFormat reads output_format: def when it is absent; a name that is not one of allowed
// is an error.
func OutputFormat(q url.Values, v *errs.Validator, def string, allowed []string) audio.Format {
	name := q.Get("output_format")
	if name == "" {
		name = def
	}
	f, err := audio.ParseFormat(name)
	if err != nil || !slices.Contains(allowed, name) {
		v.Add("query", "output_format", "enum", fmt.Sprintf("Unsupported output_format '%s'. Use one of: %s.", name, strings.Join(allowed, ", ")))
	}
	return f
}

// QueryBool reads the boolean parameter name: def when it is absent.
func QueryBool(q url.Values, v *errs.Validator, name string, def bool) bool {
	s := q.Get(name)
	if s == "" {
		return def
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		v.Add("query", name, "bool_parsing", "Input should be a valid boolean.")
	}
	return b
}

// StreamingLatency checks optimize_streaming_latency, which the API still accepts (0–4) and
// Timbre does not need: its streams start with the first sentence (or clause) anyway.
func StreamingLatency(q url.Values, v *errs.Validator) {
	if s := q.Get("optimize_streaming_latency"); s != "" {
		if n, err := strconv.Atoi(s); err != nil || n < 0 || n > 4 {
			v.Add("query", "optimize_streaming_latency", "value_error", "Input should be an integer from 0 to 4.")
		}
	}
}
