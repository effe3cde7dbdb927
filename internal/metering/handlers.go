package metering

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"timbre/internal/access"
	"timbre/internal/errs"
	"timbre/internal/httpx"
	"timbre/internal/store"
)

// Handlers serves the usage route, read from the ledger.
type Handlers struct {
	DB Store
}

// Routes registers the handlers.
func (h *Handlers) Routes(rt *httpx.Router) {
	rt.Authed("GET /v1/usage/character-stats", h.characterStats, httpx.Perm("user_read"))
}

// breakdowns maps the API's breakdown_type values Timbre serves to ledger groups; series are
// named by id (voice_id, user_id, key id, model_id) or product.
var breakdowns = map[string]store.UsageGroup{
	"none": "", "voice": store.UsageByVoice, "user": store.UsageByUser, "api_keys": store.UsageByAPIKey,
	"product_type": store.UsageByProduct, "model": store.UsageByModel,
}

// characterStats is GET /v1/usage/character-stats: the caller's usage (or, with
// include_workspace_metrics, the workspace's, for admins) per hour, day, week, month or in total.
func (h *Handlers) characterStats(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	var v errs.Validator
	ms := func(name string) int64 {
		s := q.Get(name)
		if s == "" {
			v.Add("query", name, "missing", "Field required: "+name+" (unix milliseconds).")
			return 0
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 {
			v.Add("query", name, "int_parsing", "Input should be a valid integer (unix milliseconds).")
		}
		return n
	}
	start, end := ms("start_unix"), ms("end_unix")
	if v.Err() == nil && end <= start {
		v.Add("query", "end_unix", "value_error", "end_unix must be after start_unix.")
	}
	workspace := false
	if s := q.Get("include_workspace_metrics"); s != "" {
		b, err := strconv.ParseBool(s)
		if err != nil {
			v.Add("query", "include_workspace_metrics", "bool_parsing", "Input should be a valid boolean.")
		}
		workspace = b
	}
	breakdown := q.Get("breakdown_type")
	if breakdown == "" {
		breakdown = "none"
	}
	by, ok := breakdowns[breakdown]
	if !ok {
		v.Add("query", "breakdown_type", "enum", "Supported breakdown types: none, voice, user, api_keys, product_type, model.")
	} else if breakdown == "user" && !workspace {
		v.Add("query", "breakdown_type", "value_error", "breakdown_type cannot be 'user' unless include_workspace_metrics is true.")
	}
	interval := q.Get("aggregation_interval")
	switch interval {
	case "":
		interval = "day"
	case "hour", "day", "week", "month", "cumulative":
	default:
		v.Add("query", "aggregation_interval", "enum", "Input should be 'hour', 'day', 'week', 'month' or 'cumulative'.")
	}
	metric := q.Get("metric")
	switch metric {
	case "":
		metric = "credits"
	case "credits", "tts_characters", "request_count":
	default:
		v.Add("query", "metric", "enum", "Supported metrics: credits, tts_characters, request_count.")
	}
	if err := v.Err(); err != nil {
		return err
	}
	c := access.CallerFrom(r.Context())
	sq := StatsQuery{WorkspaceID: c.WorkspaceID, UserID: c.UserID, From: time.UnixMilli(start), To: time.UnixMilli(end), Interval: interval, By: by, Metric: metric}
	if workspace {
		if c.Role != access.RoleAdmin {
			return errs.Errorf(errs.Forbidden, "insufficient_permissions", "Only workspace admins can read the workspace's usage.")
		}
		sq.UserID = ""
	}
	if n := sq.Buckets(); n > MaxBuckets {
		return errs.Field("query", "aggregation_interval", "value_error", fmt.Sprintf("The window holds more than %d %s buckets; pick a longer interval or a shorter window.", MaxBuckets, interval))
	}
	st, err := UsageStats(r.Context(), h.DB, sq)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, st)
	return nil
}
