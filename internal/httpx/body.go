package httpx

import (
	"net/http"
	"strconv"

	"timbre/internal/errs"
)

// WriteBody writes a whole file (audio, a download) with its type and length.
func WriteBody(w http.ResponseWriter, contentType string, data []byte) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	_, _ = w.Write(data)
}

// PageParams reads the page-numbered lists' query (the reference's audio-isolation history
// shape): page from 1 (default 1), page_size 1–1000 (default 100); a bad value is a 422 naming it.
func PageParams(r *http.Request) (page, pageSize int, err error) {
	q := r.URL.Query()
	var v errs.Validator
	page, pageSize = 1, 100
	if s := q.Get("page_size"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 1000 {
			v.Add("query", "page_size", "value_error", "Input should be an integer between 1 and 1000.")
		}
		pageSize = n
	}
	if s := q.Get("page"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 1_000_000 {
			v.Add("query", "page", "value_error", "Input should be an integer of at least 1.")
		}
		page = n
	}
	return page, pageSize, v.Err()
}
