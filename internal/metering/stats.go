package metering

import (
	"context"
	"time"

	"timbre/internal/store"
)

// StatsQuery asks for a workspace's usage over time (GET /v1/usage/character-stats).
type StatsQuery struct {
	WorkspaceID string
	UserID      string // "" for the whole workspace
	From, To    time.Time
	Interval    string           // hour, day, week, month or cumulative
	By          store.UsageGroup // "" for one series, "All"
	Metric      string           // credits, tts_characters or request_count
}

// Stats is usage on a time axis: bucket starts in unix milliseconds, and per series one value
// per bucket.
type Stats struct {
	Time  []int64              `json:"time"`
	Usage map[string][]float64 `json:"usage"`
}

// MaxBuckets bounds the time axis of one Stats query.
const MaxBuckets = 10_000

// Buckets is how many points q's time axis has.
func (q StatsQuery) Buckets() int { return len(q.axis()) }

// axis lists the bucket starts from q.From up to q.To.
func (q StatsQuery) axis() []time.Time {
	if q.Interval == "cumulative" {
		return []time.Time{q.From}
	}
	var out []time.Time
	for t := q.bucket(q.From); t.Before(q.To) && len(out) <= MaxBuckets; t = q.next(t) {
		out = append(out, t)
	}
	return out
}

// bucket is the start (UTC) of the bucket t falls in.
func (q StatsQuery) bucket(t time.Time) time.Time {
	t = t.UTC()
	switch q.Interval {
	case "cumulative":
		return q.From
	case "hour":
		return t.Truncate(time.Hour)
	case "week": // weeks start on Monday
		d := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
		return d.AddDate(0, 0, -(int(d.Weekday())+6)%7)
	case "month":
		return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	}
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

func (q StatsQuery) next(t time.Time) time.Time {
	switch q.Interval {
	case "hour":
		return t.Add(time.Hour)
	case "week":
		return t.AddDate(0, 0, 7)
	case "month":
		return t.AddDate(0, 1, 0)
	}
	return t.AddDate(0, 0, 1)
}

// UsageStats sums the ledger for q: hour buckets from the database, or day buckets folded into
// weeks, months or one cumulative total. Every bucket of the axis is present, zero when unused.
func UsageStats(ctx context.Context, db Store, q StatsQuery) (*Stats, error) {
	sq := store.UsageQuery{WorkspaceID: q.WorkspaceID, UserID: q.UserID, From: q.From, To: q.To, BucketSeconds: 86400, By: q.By}
	if q.Interval == "hour" {
		sq.BucketSeconds = 3600
	}
	if q.Metric == "tts_characters" {
		sq.Product = string(TTS)
	}
	points, err := db.LedgerSeries(ctx, sq)
	if err != nil {
		return nil, err
	}
	axis := q.axis()
	index := make(map[int64]int, len(axis))
	st := &Stats{Time: make([]int64, len(axis)), Usage: map[string][]float64{}}
	for i, t := range axis {
		index[t.Unix()] = i
		st.Time[i] = t.UnixMilli()
	}
	if q.By == "" {
		st.Usage["All"] = make([]float64, len(axis))
	}
	for _, p := range points {
		i, ok := index[q.bucket(time.Unix(p.Bucket, 0)).Unix()]
		if !ok {
			continue
		}
		name := p.Series
		if q.By == "" {
			name = "All"
		}
		if st.Usage[name] == nil {
			st.Usage[name] = make([]float64, len(axis))
		}
		switch q.Metric {
		case "request_count":
			st.Usage[name][i] += float64(p.Count)
		case "tts_characters":
			st.Usage[name][i] += float64(p.Units)
		default:
			st.Usage[name][i] += float64(p.Credits)
		}
	}
	return st, nil
}
