package app_test

// Benchmarks of the speech and history routes against their baselines, measured side by side in
// one run. scripts/bench.sh (make bench) runs them and prints a table with the goals:
//
//	BenchmarkStreamTTFB   time to the first byte of POST /v1/text-to-speech/{voice}/stream vs. the
//	                      raw engine synthesizing the stream's first sentence alone
//	BenchmarkStreamThroughput
//	                      characters per second of 1, 8 and 32 concurrent streams vs. the raw engine
//	                      synthesizing the same sentences with the same concurrency
//	BenchmarkHistoryList  GET /v1/history latency with 1,000,001 rows on SQLite and PostgreSQL
//
// They need -bench, so a plain `go test` never runs them. Each iteration measures the server and
// its baseline back to back, so both see the same machine state. The app is built the way
// `timbre serve` builds it (espeak-ng in a pool of worker processes, flite in process), on
// httptest's loopback server, with a logger that formats every record but discards it.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"timbre/internal/access"
	"timbre/internal/app"
	"timbre/internal/audio"
	"timbre/internal/config"
	"timbre/internal/engine"
	"timbre/internal/store"
	"timbre/internal/testdb"
	"timbre/internal/textnorm"
	"timbre/internal/tts"
)

// benchText is the multi-sentence English text every speech benchmark sends (≈ 12 s of audio).
const benchText = "The quick brown fox jumps over the lazy dog by the river. " +
	"Streaming speech should begin long before the whole passage is ready. " +
	"Each sentence is synthesized in turn and sent the moment it is done. " +
	"That keeps the first byte quick, even when the text is long. " +
	"Listeners hear the start while the rest is still being made."

var benchVoices = []struct{ name, id string }{
	{"sarah-espeak", sarah},
	{"rachel-flite", rachel},
}

// benchEnv is a running Timbre for a benchmark: newEnv's setup for a testing.TB (newEnv takes a
// *testing.T), with the production engine setup and several workspaces on the enterprise tier.
type benchEnv struct {
	tb     testing.TB
	app    *app.App
	srv    *httptest.Server
	client *http.Client
	users  []*store.User
	keys   []string // keys[i] belongs to users[i]'s workspace
}

// benchDataDir is a fresh data directory for a benchmark's server, removed at the end. It lies
// under the repository's .bench-data/ (git ignores it), on the disk where a server keeps ./data,
// not in /tmp: on this project's machines, creating files in /tmp from many goroutines at once
// costs about three times the CPU it costs elsewhere on the same disk (0.6 against 0.18 ms per
// file, 32 goroutines each writing 500 kB files), which a server never meets. With a history file
// per request, those creations were 9 % of the process's CPU in the throughput benchmark.
func benchDataDir(tb testing.TB) string {
	tb.Helper()
	root := filepath.Join("..", "..", ".bench-data") // go test runs in internal/app
	if err := os.MkdirAll(root, 0o755); err != nil {
		tb.Fatal(err)
	}
	dir, err := os.MkdirTemp(root, "server-")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// newBenchEnv starts Timbre on SQLite or a fresh PostgreSQL database with `workspaces` verified
// users, each with its own workspace on the enterprise tier (unlimited characters, 15 concurrent
// requests) and an API key.
func newBenchEnv(tb testing.TB, d store.Dialect, workspaces int) *benchEnv {
	tb.Helper()
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	cfg := config.Bind(fs, config.Serve)
	cfg.DataDir = benchDataDir(tb)
	if d == store.Postgres {
		_, url := testdb.PostgresWithURL(tb)
		cfg.DatabaseURL = url
	}
	srv := httptest.NewUnstartedServer(nil)
	cfg.PublicURL = "http://" + srv.Listener.Addr().String()
	if err := cfg.Finish(); err != nil {
		tb.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	a, err := app.New(context.Background(), cfg, app.Options{InProcessEngines: false, Logger: log})
	if err != nil {
		tb.Fatal(err)
	}
	srv.Config.Handler = a.Handler()
	srv.Start()
	tb.Cleanup(func() { srv.Close(); a.Close() })
	// Keep a connection per concurrent stream alive (the default keeps 2 per host).
	tr := srv.Client().Transport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 128
	e := &benchEnv{tb: tb, app: a, srv: srv, client: &http.Client{Transport: tr}}
	ctx := context.Background()
	for i := range workspaces {
		u, err := a.Auth.CreateVerifiedUser(ctx, fmt.Sprintf("bench%d@example.com", i), "correct horse battery")
		if err != nil {
			tb.Fatal(err)
		}
		_, key, err := a.Auth.CreateAPIKey(ctx, u.ID, u.WorkspaceID, "bench key")
		if err != nil {
			tb.Fatal(err)
		}
		if err := a.DB.SetTier(ctx, u.WorkspaceID, "enterprise"); err != nil {
			tb.Fatal(err)
		}
		e.users, e.keys = append(e.users, u), append(e.keys, key)
	}
	return e
}

// prepare resolves a request exactly as the stream route does (tts.Service.Prepare: the
// voice's engine voice and prosody, normalisation, sentence spans) without charging anything,
// and checks the spans are textnorm's split of the normalised text.
func (e *benchEnv) prepare(voiceID, format, text string) *tts.Job {
	e.tb.Helper()
	f, err := audio.ParseFormat(format)
	if err != nil {
		e.tb.Fatal(err)
	}
	c := &access.Caller{UserID: e.users[0].ID, WorkspaceID: e.users[0].WorkspaceID}
	j, err := e.app.Speech.Prepare(context.Background(), c, voiceID, &tts.Body{Text: text}, f, true)
	if err != nil {
		e.tb.Fatal(err)
	}
	norm, _ := textnorm.Normalize(text, j.Language)
	if j.Normalized != norm || !slices.Equal(j.Spans, textnorm.SplitSentences(norm)) {
		e.tb.Fatalf("Prepare's text or spans differ from textnorm's: %q %v", j.Normalized, j.Spans)
	}
	if len(j.Spans) < 3 {
		e.tb.Fatalf("%d sentences, want a multi-sentence text", len(j.Spans))
	}
	return j
}

// benchRawRequest is the engine request the server makes for span i of the job (tts.Service.Run).
func benchRawRequest(j *tts.Job, i int) engine.Request {
	sp := j.Spans[i]
	return engine.Request{Text: j.Normalized[sp.Start:sp.End], Voice: j.Voice.EngineVoice, Language: j.Language, Prosody: j.Prosody}
}

// stream posts text to the stream route and reads the whole response. ttfb runs from just before
// the request is sent to the first byte of the body. It returns errors (it runs in goroutines).
func (e *benchEnv) stream(key, voiceID, format, text string) (ttfb time.Duration, n int, err error) {
	body, _ := json.Marshal(map[string]any{"text": text})
	req, err := http.NewRequest("POST", e.srv.URL+"/v1/text-to-speech/"+voiceID+"/stream?output_format="+format, bytes.NewReader(body))
	if err != nil {
		return 0, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("xi-api-key", key)
	start := time.Now()
	res, err := e.client.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(res.Body, 300))
		return 0, 0, fmt.Errorf("status %d: %s", res.StatusCode, msg)
	}
	buf := make([]byte, 64<<10)
	for {
		m, rerr := res.Body.Read(buf)
		if m > 0 && n == 0 {
			ttfb = time.Since(start)
		}
		n += m
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return 0, n, rerr
		}
	}
	if n == 0 {
		return 0, 0, errors.New("empty stream")
	}
	return ttfb, n, nil
}

func benchMillis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// benchPercentile of durations (sorts them).
func benchPercentile(durs []time.Duration, p float64) time.Duration {
	if len(durs) == 0 {
		return 0
	}
	slices.Sort(durs)
	return durs[int(p*float64(len(durs)-1)+0.5)]
}

// BenchmarkStreamTTFB compares the stream route's time to first byte with the raw engine's time
// to synthesize the stream's first sentence alone (engine.Synthesize on the app's own engine
// object, the same request the server makes for span 0). Goal: ttfb ≤ 1.1 × raw + 5 ms.
//
//	go test ./internal/app/ -run '^$' -bench BenchmarkStreamTTFB -benchtime 6s
func BenchmarkStreamTTFB(b *testing.B) {
	e := newBenchEnv(b, store.SQLite, 1)
	ctx := context.Background()
	for _, v := range benchVoices {
		for _, format := range []string{"pcm_22050", "mp3_44100_128"} {
			b.Run(v.name+"/"+format, func(b *testing.B) {
				j := e.prepare(v.id, format, benchText)
				eng := e.app.Engines[j.Voice.Engine]
				first := benchRawRequest(j, 0)
				server := func() time.Duration {
					t, _, err := e.stream(e.keys[0], v.id, format, benchText)
					if err != nil {
						b.Fatal(err)
					}
					return t
				}
				raw := func() time.Duration {
					start := time.Now()
					res, err := eng.Synthesize(ctx, first)
					d := time.Since(start)
					if err != nil || len(res.Audio.Samples) == 0 {
						b.Fatalf("raw synthesis: %v", err)
					}
					return d
				}
				server() // warm up: connection, ffmpeg's page cache, the engine
				raw()
				var ttfbs, raws []time.Duration
				i := 0
				for b.Loop() {
					// Alternate the order so neither side always runs on a just-used worker.
					var t, r time.Duration
					if i%2 == 0 {
						t, r = server(), raw()
					} else {
						r = raw()
						t = server()
					}
					i++
					ttfbs, raws = append(ttfbs, t), append(raws, r)
				}
				t50, r50 := benchMillis(benchPercentile(ttfbs, 0.5)), benchMillis(benchPercentile(raws, 0.5))
				b.ReportMetric(t50, "ttfb-ms")
				b.ReportMetric(benchMillis(benchPercentile(ttfbs, 0.9)), "ttfb-p90-ms")
				b.ReportMetric(r50, "raw-first-ms")
				b.ReportMetric(t50/r50, "ratio")
				b.ReportMetric(1.1*r50+5, "goal-ms")
				b.ReportMetric(float64(utf8.RuneCountInString(first.Text)), "first-chars")
			})
		}
	}
}

// BenchmarkStreamThroughput compares characters per second through the stream route with the
// raw engine, both driven by c goroutines each doing one text per phase: the server through
// POST …/stream (pcm_22050, whole response read), the engine with the same sentence-by-sentence
// requests the server makes, on the same engine object (the espeak-ng worker pool; flite in
// process). Requests are spread round-robin over 3 enterprise workspaces (15 slots each), so 32
// streams never meet the per-workspace limit. Goal: server ≥ 90 % of raw.
//
//	go test ./internal/app/ -run '^$' -bench BenchmarkStreamThroughput -benchtime 6s
func BenchmarkStreamThroughput(b *testing.B) {
	const format = "pcm_22050"
	e := newBenchEnv(b, store.SQLite, 3)
	ctx := context.Background()
	chars := utf8.RuneCountInString(benchText)
	// A started server whose engines have not synthesized anything yet. The set-up's garbage
	// (migrations, seeding) is collected and handed back first: otherwise "idle" counts heap the
	// server no longer uses and reads higher than the streaming peaks.
	runtime.GC()
	debug.FreeOSMemory()
	idle, idlePSS := benchRSS(), benchPSS()
	for _, v := range benchVoices {
		j := e.prepare(v.id, format, benchText)
		eng := e.app.Engines[j.Voice.Engine]
		for _, c := range []int{1, 8, 32} {
			b.Run(fmt.Sprintf("%s/c%d", v.name, c), func(b *testing.B) {
				var failed atomic.Value
				run := func(fn func(worker int) error) time.Duration {
					var wg sync.WaitGroup
					start := time.Now()
					for w := range c {
						wg.Add(1)
						go func() {
							defer wg.Done()
							if err := fn(w); err != nil {
								failed.CompareAndSwap(nil, err)
							}
						}()
					}
					wg.Wait()
					return time.Since(start)
				}
				raw := func(int) error {
					for i := range j.Spans {
						res, err := eng.Synthesize(ctx, benchRawRequest(j, i))
						if err != nil {
							return err
						}
						res.Release() // as the server does once a sentence is sent
					}
					return nil
				}
				server := func(w int) error {
					_, _, err := e.stream(e.keys[w%len(e.keys)], v.id, format, benchText)
					return err
				}
				// Warm up: one connection per stream, with a short text.
				run(func(w int) error {
					_, _, err := e.stream(e.keys[w%len(e.keys)], v.id, format, "Warm up.")
					return err
				})
				// Each iteration runs raw, server, server, raw (ABBA), so load that rises or falls
				// during the iteration (this machine is shared) weighs on both sides alike. Besides
				// wall time, each phase's CPU time (this process and its engine workers) is summed:
				// CPU per character does not depend on what else the machine is doing.
				var rawTime, serverTime, rawCPU, serverCPU time.Duration
				var rawSelf, serverSelf time.Duration // this process's share of the CPU (not the workers')
				var streaming atomic.Bool             // the server phase is running
				phase := func(fn func(int) error, wall, cpu, self *time.Duration) {
					c0, s0 := benchProcessCPU(), benchSelfCPU()
					*wall += run(fn)
					*cpu += benchProcessCPU() - c0
					*self += benchSelfCPU() - s0
				}
				// Resident memory is sampled every 50 ms in both phases and its peak kept while the
				// server streams: the sampling reads /proc files for every thread and child (3 % of
				// the machine's CPU at 20 ms), so it is taken from both sides alike.
				var peak atomic.Int64
				stopSampling := make(chan struct{})
				sampled := make(chan struct{})
				go func() {
					defer close(sampled)
					tick := time.NewTicker(50 * time.Millisecond)
					defer tick.Stop()
					for {
						select {
						case <-stopSampling:
							return
						case <-tick.C:
							if m := benchRSS(); streaming.Load() && m > peak.Load() {
								peak.Store(m)
							}
						}
					}
				}()
				i := 0
				for b.Loop() {
					phase(raw, &rawTime, &rawCPU, &rawSelf)
					streaming.Store(true)
					phase(server, &serverTime, &serverCPU, &serverSelf)
					phase(server, &serverTime, &serverCPU, &serverSelf)
					streaming.Store(false)
					phase(raw, &rawTime, &rawCPU, &rawSelf)
					i++
				}
				close(stopSampling)
				<-sampled
				if err, _ := failed.Load().(error); err != nil {
					b.Fatal(err)
				}
				total := float64(2 * i * c * chars)
				srv, rw := total/serverTime.Seconds(), total/rawTime.Seconds()
				b.ReportMetric(srv, "server-chars/s")
				b.ReportMetric(rw, "raw-chars/s")
				b.ReportMetric(100*srv/rw, "pct-of-raw")
				b.ReportMetric(benchMillis(serverCPU)/total*1000, "server-cpu-ms/kchar")
				b.ReportMetric(benchMillis(rawCPU)/total*1000, "raw-cpu-ms/kchar")
				// The same split by process: the server and the benchmark's client, without the
				// engine workers. The raw side's is the pool reading the workers' audio.
				b.ReportMetric(benchMillis(serverSelf)/total*1000, "server-self-cpu-ms/kchar")
				b.ReportMetric(benchMillis(rawSelf)/total*1000, "raw-self-cpu-ms/kchar")
				b.ReportMetric(float64(idle)/(1<<20), "idle-rss-MB")
				b.ReportMetric(float64(idlePSS)/(1<<20), "idle-pss-MB")
				b.ReportMetric(float64(peak.Load())/(1<<20), "peak-rss-MB")
			})
		}
	}
}

// benchProcessCPU is the CPU time (user + system) used so far by this process, its children that
// have exited, and its live children (the engine workers) as /proc reports them (10 ms ticks).
func benchProcessCPU() time.Duration {
	var self, kids syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	total := time.Duration(self.Utime.Nano() + self.Stime.Nano() + kids.Utime.Nano() + kids.Stime.Nano())
	for _, pid := range benchChildren() {
		data, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil {
			continue
		}
		// Fields after the command name (which is in parentheses and may hold spaces): state is
		// field 3, utime 14, stime 15.
		i := bytes.LastIndexByte(data, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(data[i+1:]))
		if len(f) < 13 {
			continue
		}
		ut, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		total += time.Duration(ut+st) * 10 * time.Millisecond // USER_HZ is 100 on Linux
	}
	return total
}

// benchSelfCPU is the CPU time (user + system) used so far by this process alone.
func benchSelfCPU() time.Duration {
	var self syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	return time.Duration(self.Utime.Nano() + self.Stime.Nano())
}

// benchChildren lists this process's live child processes from each thread's
// /proc/self/task/*/children, which is cheap enough to sample every 20 ms (scanning every
// /proc/[pid]/stat was not: on a busy machine it took a quarter of this process's CPU).
func benchChildren() []string {
	var pids []string
	files, _ := filepath.Glob("/proc/self/task/*/children")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err == nil {
			pids = append(pids, strings.Fields(string(data))...)
		}
	}
	return pids
}

// benchProcesses sums bytes(the /proc file name of process pid) over this process and its
// child processes; a file that cannot be read (the child ended) counts nothing.
func benchProcesses(name string, bytes func(data string) int64) int64 {
	var total int64
	for _, pid := range append([]string{"self"}, benchChildren()...) {
		if data, err := os.ReadFile("/proc/" + pid + "/" + name); err == nil {
			total += bytes(string(data))
		}
	}
	return total
}

// benchRSS is the resident memory (VmRSS) of this process — the server, and the benchmark's HTTP
// client beside it — plus that of its child processes (the engine workers), from /proc.
func benchRSS() int64 {
	return benchProcesses("statm", func(data string) int64 {
		if f := strings.Fields(data); len(f) > 1 {
			pages, _ := strconv.ParseInt(f[1], 10, 64)
			return pages * int64(os.Getpagesize())
		}
		return 0
	})
}

// benchPSS is the proportional set size (Pss) of this process and its child processes: resident
// memory with each shared page divided among the processes that map it. The engine workers run
// this executable, so the pages of the binary they share with the server count once, not once
// per process as in benchRSS. Reading it walks every mapping: it is taken once, at idle.
func benchPSS() int64 {
	return benchProcesses("smaps_rollup", func(data string) int64 {
		for _, line := range strings.Split(data, "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "Pss:" {
				kb, _ := strconv.ParseInt(f[1], 10, 64)
				return kb << 10
			}
		}
		return 0
	})
}

// BenchmarkHistoryList measures GET /v1/history?page_size=100 through the whole HTTP stack (key
// lookup, query, JSON) with 1,000,001 history rows in the caller's workspace, on SQLite and on a
// fresh PostgreSQL database: the first page, a page 90,000 rows deep
// (start_after_history_item_id), a search for a word found in 1,000 rows, a search that finds
// nothing, the voice filter, and the date filters (date_before_unix in the middle, newest first;
// date_after_unix in the middle, oldest first; a date range with the voice filter; a date before
// every row, which finds nothing), and the search with the voice filter (no match has that voice)
// and with date_before_unix. Alongside, the same store.ListHistory call made directly gives
// the database's share. Goal: p99 < 20 ms.
//
// testdb.SeedHistory's rows carry no alignments, while every row a TTS request creates does (the
// JSON of both character alignments, ~20 KB for a 300-character text), and the list returns
// them. The extra case "first-aligned" gives the 100 newest rows the alignments of a real
// generation of benchText and lists the first page again.
//
//	go test ./internal/app/ -run '^$' -bench BenchmarkHistoryList -benchtime 6s
func BenchmarkHistoryList(b *testing.B) {
	const rows, pageSize = 1_000_001, 100
	for _, d := range testdb.Dialects() {
		b.Run(string(d), func(b *testing.B) {
			e := newBenchEnv(b, d, 2)
			u := e.users[0]
			ctx := context.Background()
			begin := time.Now()
			const start = 1_700_000_000 // row i is dated start + i
			ids := testdb.SeedHistory(b, e.app.DB, u.WorkspaceID, u.ID, rows, 1, time.Unix(start, 0))
			// Every 1,000th row (seq 1000, 2000, …) says "zephyr": a word in 1,000 rows to search for.
			seeded := time.Since(begin)
			benchExec(b, e, "UPDATE history SET text = text || ' A zephyr passes.' WHERE workspace_id = ? AND seq % 1000 = 0", u.WorkspaceID)
			// Printed, not logged: a benchmark's log is shown only with -v. scripts/bench.sh
			// copies this line into its table.
			fmt.Printf("history seed: %s, %d rows in %.1f s\n", d, rows, seeded.Seconds())
			deepAfter := ids[rows-1-89_999]
			// A second member of the workspace owns none of the rows; the newest 150 are shared
			// with them one by one (history is personal: their list is the shared part).
			viewer, err := e.app.Auth.CreateVerifiedUser(ctx, "bench-viewer@example.com", "correct horse battery")
			if err != nil {
				b.Fatal(err)
			}
			joinWorkspace(b, e.app.DB, u.WorkspaceID, u.ID, viewer, access.RoleEditor)
			_, viewerKey, err := e.app.Auth.CreateAPIKey(ctx, viewer.ID, u.WorkspaceID, "viewer key")
			if err != nil {
				b.Fatal(err)
			}
			for _, id := range ids[rows-150:] {
				if err := e.app.DB.ShareResource(ctx, u.WorkspaceID, store.ResourceHistory, id,
					store.Share{PrincipalType: "user", PrincipalID: viewer.ID, Role: "viewer"}, time.Now()); err != nil {
					b.Fatal(err)
				}
			}
			type listCase struct {
				name, query string
				f           store.HistoryFilter
				first       string
				setup       func()
				key         string // the caller's key ("" = the owner's)
				empty       bool   // the page has no items
			}
			cases := []listCase{
				{name: "first", f: store.HistoryFilter{PageSize: pageSize, VisibleTo: u.ID}, first: ids[rows-1]},
				{name: "deep", query: "&start_after_history_item_id=" + deepAfter,
					f: store.HistoryFilter{PageSize: pageSize, StartAfterID: deepAfter, VisibleTo: u.ID}, first: ids[rows-1-90_000]},
				{name: "first-aligned", f: store.HistoryFilter{PageSize: pageSize, VisibleTo: u.ID}, first: ids[rows-1],
					setup: func() { benchAlignNewest(b, e, rows-pageSize-1) }},
				{name: "shared", f: store.HistoryFilter{PageSize: pageSize, VisibleTo: viewer.ID}, first: ids[rows-1], key: viewerKey},
				{name: "search-hit", query: "&search=zephyr", f: store.HistoryFilter{PageSize: pageSize, Search: "zephyr", VisibleTo: u.ID},
					first: ids[999_999]},
				{name: "search-miss", query: "&search=xylophone", f: store.HistoryFilter{PageSize: pageSize, Search: "xylophone", VisibleTo: u.ID},
					empty: true},
				{name: "voice", query: "&voice_id=voice_2", f: store.HistoryFilter{PageSize: pageSize, VoiceID: "voice_2", VisibleTo: u.ID},
					first: ids[999_997]},
				// Row i is dated start + i: the rows dated before the middle, newest first; those
				// from it on, oldest first; and a date range in the middle with the voice filter.
				{name: "date-before", query: "&date_before_unix=" + strconv.FormatInt(start+500_000, 10),
					f: store.HistoryFilter{PageSize: pageSize, DateBefore: start + 500_000, VisibleTo: u.ID}, first: ids[499_999]},
				{name: "date-after", query: "&sort_direction=asc&date_after_unix=" + strconv.FormatInt(start+500_000, 10),
					f: store.HistoryFilter{PageSize: pageSize, DateAfter: start + 500_000, Ascending: true, VisibleTo: u.ID}, first: ids[500_000]}, // inclusive
				{name: "date-voice", query: "&voice_id=voice_2&date_after_unix=" + strconv.FormatInt(start+300_000, 10) + "&date_before_unix=" + strconv.FormatInt(start+700_000, 10),
					f:     store.HistoryFilter{PageSize: pageSize, VoiceID: "voice_2", DateAfter: start + 300_000, DateBefore: start + 700_000, VisibleTo: u.ID},
					first: ids[699_997]},
				// Search with a filter: no row with the word has voice_2; the rows dated before the
				// middle with the word.
				{name: "search-voice", query: "&search=zephyr&voice_id=voice_2",
					f: store.HistoryFilter{PageSize: pageSize, Search: "zephyr", VoiceID: "voice_2", VisibleTo: u.ID}, empty: true},
				{name: "search-date", query: "&search=zephyr&date_before_unix=" + strconv.FormatInt(start+500_000, 10),
					f: store.HistoryFilter{PageSize: pageSize, Search: "zephyr", DateBefore: start + 500_000, VisibleTo: u.ID}, first: ids[499_999]},
				{name: "date-none", query: "&date_before_unix=" + strconv.FormatInt(start, 10),
					f: store.HistoryFilter{PageSize: pageSize, DateBefore: start, VisibleTo: u.ID}, empty: true},
			}
			for _, c := range cases {
				b.Run(c.name, func(b *testing.B) {
					if c.setup != nil {
						c.setup()
					}
					url := e.srv.URL + "/v1/history?page_size=100" + c.query
					get := func() time.Duration {
						req, _ := http.NewRequest("GET", url, nil)
						key := e.keys[0]
						if c.key != "" {
							key = c.key
						}
						req.Header.Set("xi-api-key", key)
						start := time.Now()
						res, err := e.client.Do(req)
						if err != nil {
							b.Fatal(err)
						}
						data, err := io.ReadAll(res.Body)
						res.Body.Close()
						d := time.Since(start)
						if err != nil || res.StatusCode != 200 {
							b.Fatalf("status %d: %v %.300s", res.StatusCode, err, data)
						}
						var page struct {
							History []struct {
								ID string `json:"history_item_id"`
							} `json:"history"`
							HasMore bool `json:"has_more"`
						}
						if err := json.Unmarshal(data, &page); err != nil || !c.empty && (len(page.History) != pageSize || !page.HasMore || page.History[0].ID != c.first) ||
							c.empty && (len(page.History) != 0 || page.HasMore) {
							b.Fatalf("wrong page (%v): %d items, has_more %v", err, len(page.History), page.HasMore)
						}
						return d
					}
					direct := func() time.Duration {
						start := time.Now()
						page, more, err := e.app.DB.ListHistory(ctx, u.WorkspaceID, c.f)
						d := time.Since(start)
						if err != nil || !c.empty && (len(page) != pageSize || !more || page[0].ID != c.first) || c.empty && (len(page) != 0 || more) {
							b.Fatalf("wrong page: %v", err)
						}
						return d
					}
					for range 10 { // warm up caches and connections
						get()
						direct()
					}
					var httpDurs, dbDurs []time.Duration
					for b.Loop() {
						httpDurs = append(httpDurs, get())
						dbDurs = append(dbDurs, direct())
					}
					b.ReportMetric(benchMillis(benchPercentile(httpDurs, 0.5)), "p50-ms")
					b.ReportMetric(benchMillis(benchPercentile(httpDurs, 0.99)), "p99-ms")
					b.ReportMetric(benchMillis(benchPercentile(dbDurs, 0.5)), "db-p50-ms")
					b.ReportMetric(benchMillis(benchPercentile(dbDurs, 0.99)), "db-p99-ms")
				})
			}
		})
	}
}

// benchExec runs a statement (with ? placeholders) straight on e's database.
func benchExec(b *testing.B, e *benchEnv, q string, args ...any) {
	var err error
	if e.app.DB.Dialect == store.Postgres {
		for i := range args {
			q = strings.Replace(q, "?", "$"+strconv.Itoa(i+1), 1)
		}
		_, err = e.app.DB.PG.Exec(context.Background(), q, args...)
	} else {
		_, err = e.app.DB.SQLiteDB.ExecContext(context.Background(), q, args...)
	}
	if err != nil {
		b.Fatalf("%s: %v", q, err)
	}
}

// benchAlignNewest gives the seeded rows of e's first workspace with seq > afterSeq the alignments a
// real stream of benchText stored (made in the second workspace, so the first one's pages keep
// their rows).
func benchAlignNewest(b *testing.B, e *benchEnv, afterSeq int) {
	b.Helper()
	ctx := context.Background()
	if _, _, err := e.stream(e.keys[1], sarah, "pcm_22050", benchText); err != nil {
		b.Fatal(err)
	}
	// List pages leave alignments out; the item itself has them.
	items, _, err := e.app.DB.ListHistory(ctx, e.users[1].WorkspaceID, store.HistoryFilter{PageSize: 1})
	if err != nil || len(items) != 1 {
		b.Fatalf("no history item from the stream: %v", err)
	}
	item, err := e.app.DB.History(ctx, e.users[1].WorkspaceID, items[0].ID)
	if err != nil || item.Alignments == "" {
		b.Fatalf("no alignments stored by a stream: %v", err)
	}
	al, ws := item.Alignments, e.users[0].WorkspaceID
	if e.app.DB.Dialect == store.Postgres {
		_, err = e.app.DB.PG.Exec(ctx, "UPDATE history SET alignments = $1 WHERE workspace_id = $2 AND seq > $3", al, ws, afterSeq)
	} else {
		_, err = e.app.DB.SQLiteDB.ExecContext(ctx, "UPDATE history SET alignments = ? WHERE workspace_id = ? AND seq > ?", al, ws, afterSeq)
	}
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("alignments of %d bytes on each of the newest rows", len(al))
}
