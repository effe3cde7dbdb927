package apitest_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"timbre/internal/apitest"
)

func jsonHeader() http.Header { return http.Header{"Content-Type": {"application/json"}} }

// TestCheck runs responses against the real openapi.json: the ones that keep to it pass, each
// kind of drift is named.
func TestCheck(t *testing.T) {
	models := httptest.NewRequest("GET", "/v1/models", nil)
	cases := []struct {
		name   string
		req    *http.Request
		status int
		body   string
		want   string // "" = passes; else a part of the message
	}{
		{"required fields left out", models, 200, `[{"model_id":"eleven_flash_v2_5","name":"Flash","can_do_text_to_speech":true}]`, "token_cost_factor"},
		{"a wrong type", models, 200, `[{"model_id":5}]`, `model_id`},
		{"an application error", models, 401, `{"detail":{"status":"invalid_api_key","message":"Invalid API key"}}`, ""},
		{"an error of another shape", models, 401, `{"error":"no key"}`, "does not match"},
		{"a 422 that names no field", httptest.NewRequest("GET", "/v1/history", nil), 422, `{"detail":[{"msg":"bad"}]}`, "does not match"},
		{"a missing required field", httptest.NewRequest("GET", "/v1/workspace/resources/x?resource_type=voice", nil), 200,
			`{"resource_id":"x","resource_name":null,"resource_type":"voice","creator_user_id":null,"role_to_group_ids":{},"share_options":[]}`,
			"anonymous_access_level_override"},
		{"Timbre's history resource type", httptest.NewRequest("GET", "/v1/workspace/resources/x?resource_type=history", nil), 200,
			`{"resource_id":"x","resource_name":null,"resource_type":"history","creator_user_id":null,"anonymous_access_level_override":null,"role_to_group_ids":{},"share_options":[]}`,
			""},
		{"a stream of JSON lines, one of them wrong", models, 200, "[]\n[{\"model_id\":7}]\n", "model_id"},
		{"a route outside the document", httptest.NewRequest("GET", "/app/voices", nil), 200, `{"anything":1}`, ""},
	}
	for _, c := range cases {
		msg := apitest.Check(c.req, c.status, jsonHeader(), []byte(c.body))
		switch {
		case c.want == "" && msg != "":
			t.Errorf("%s: want no complaint, got %s", c.name, msg)
		case c.want != "" && !strings.Contains(msg, c.want):
			t.Errorf("%s: want a complaint naming %q, got %q", c.name, c.want, msg)
		}
	}
}

// TestTransport: a client wrapped by Client reports a drifting response and still hands the body
// to the caller unread.
func TestTransport(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`[{"model_id":false}]`))
	}))
	defer srv.Close()
	rec := &recorder{TB: t}
	c := apitest.Client(rec, srv.Client())
	res, err := c.Get(srv.URL + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil || string(body) != `[{"model_id":false}]` {
		t.Fatalf("body handed on = %q, %v", body, err)
	}
	if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "GET /v1/models → 200 does not match") {
		t.Fatalf("reported %q, want one mismatch for GET /v1/models", rec.errs)
	}
}

// recorder catches the errors a check reports instead of failing the test.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) Helper() {}
