package app_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/coder/websocket"

	"timbre/internal/engine/enginetest"
	"timbre/internal/plan"
	"timbre/internal/store"
)

// realtimeText is spoken by a flite voice and streamed to the real-time route.
const realtimeText = "The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background. It is easy to tell the depth of a well."

// rtMessage is a server message of the real-time protocol, with when it arrived.
type rtMessage struct {
	MessageType string `json:"message_type"`
	Text        string `json:"text"`
	Error       string `json:"error"`
	SessionID   string `json:"session_id"`
	Config      *struct {
		SampleRate     int    `json:"sample_rate"`
		CommitStrategy string `json:"commit_strategy"`
	} `json:"config"`
	Words []struct {
		Text  string   `json:"text"`
		Type  string   `json:"type"`
		Start *float64 `json:"start"`
		End   *float64 `json:"end"`
	} `json:"words"`
	at time.Time
}

// dialRealtime opens the real-time WebSocket with the query and headers given.
func (e *env) dialRealtime(query string, hdr http.Header) (*websocket.Conn, *http.Response, error) {
	return dialRealtimeAt(e.srv.URL, query, hdr)
}

// dialRealtimeAt opens the real-time WebSocket of the server at srvURL (http://…).
func dialRealtimeAt(srvURL, query string, hdr http.Header) (*websocket.Conn, *http.Response, error) {
	url := "ws" + strings.TrimPrefix(srvURL, "http") + "/v1/speech-to-text/realtime?" + query
	return websocket.Dial(context.Background(), url, &websocket.DialOptions{HTTPHeader: hdr})
}

// collect reads messages until the connection closes; done is closed then.
func collect(conn *websocket.Conn) (msgs func() []rtMessage, done chan struct{}) {
	var mu sync.Mutex
	var all []rtMessage
	done = make(chan struct{})
	go func() {
		defer close(done)
		for {
			_, data, err := conn.Read(context.Background())
			if err != nil {
				return
			}
			m := rtMessage{at: time.Now()}
			_ = json.Unmarshal(data, &m)
			mu.Lock()
			all = append(all, m)
			mu.Unlock()
		}
	}()
	return func() []rtMessage { mu.Lock(); defer mu.Unlock(); return slices.Clone(all) }, done
}

func waitFor(t testing.TB, msgs func() []rtMessage, typ string, n int, within time.Duration) []rtMessage {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		var got []rtMessage
		for _, m := range msgs() {
			if m.MessageType == typ {
				got = append(got, m)
			}
		}
		if len(got) >= n {
			return got
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no %d %s messages within %v; got %+v", n, typ, within, msgs())
	return nil
}

func send(t testing.TB, conn *websocket.Conn, m map[string]any) {
	t.Helper()
	data, _ := json.Marshal(m)
	if err := conn.Write(context.Background(), websocket.MessageText, data); err != nil {
		t.Fatal(err)
	}
}

// plainWords is text as lower-case words without punctuation.
func plainWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' })
}

// realtimeSession is 16 kHz speech streamed to the real-time route in 100 ms chunks at
// real-time pace, then committed: every message that came back and when each chunk was sent.
type realtimeSession struct {
	conn      *websocket.Conn
	done      chan struct{} // closed when the connection is
	msgs      func() []rtMessage
	sentAt    []time.Time // sentAt[i]: when the chunk holding audio [i/10 s, (i+1)/10 s) was sent
	committed rtMessage   // committed_transcript_with_timestamps
	plain     rtMessage   // committed_transcript
	seconds   float64
}

// streamRealtime opens a session at the server (srvURL) with the key (include_timestamps on),
// checks session_started, streams pcm (s16le at 16 kHz) at real-time pace, commits and waits for
// the committed transcripts. The caller closes the connection.
func streamRealtime(tb testing.TB, srvURL, key string, pcm []byte) *realtimeSession {
	tb.Helper()
	conn, _, err := dialRealtimeAt(srvURL, "model_id=scribe_v2_realtime&audio_format=pcm_16000&include_timestamps=true", http.Header{"xi-api-key": {key}})
	if err != nil {
		tb.Fatal(err)
	}
	s := &realtimeSession{conn: conn, seconds: float64(len(pcm)/2) / 16000}
	s.msgs, s.done = collect(conn)
	started := waitFor(tb, s.msgs, "session_started", 1, 30*time.Second)[0]
	if started.SessionID == "" || started.Config == nil || started.Config.SampleRate != 16000 || started.Config.CommitStrategy != "manual" {
		conn.CloseNow()
		tb.Fatalf("session_started: %+v", started)
	}
	const chunk = 3200 // 100 ms
	t0 := time.Now()
	for i := 0; i*chunk < len(pcm); i++ {
		time.Sleep(time.Until(t0.Add(time.Duration(i) * 100 * time.Millisecond)))
		s.sentAt = append(s.sentAt, time.Now())
		send(tb, conn, map[string]any{"message_type": "input_audio_chunk", "audio_base_64": base64.StdEncoding.EncodeToString(pcm[i*chunk : min((i+1)*chunk, len(pcm))]), "commit": false, "sample_rate": 16000})
	}
	send(tb, conn, map[string]any{"message_type": "input_audio_chunk", "audio_base_64": "", "commit": true, "sample_rate": 16000})
	s.committed = waitFor(tb, s.msgs, "committed_transcript_with_timestamps", 1, 30*time.Second)[0]
	s.plain = waitFor(tb, s.msgs, "committed_transcript", 1, time.Second)[0]
	return s
}

// partials are the partial transcripts the session received, in order.
func (s *realtimeSession) partials() []rtMessage {
	var out []rtMessage
	for _, m := range s.msgs() {
		if m.MessageType == "partial_transcript" {
			out = append(out, m)
		}
	}
	return out
}

// partialLatencies is, for each word of the committed transcript said only once, the time from
// sending the 100 ms chunk that holds the word's end to the first partial transcript that has
// the word (negative: the word was guessed before its end was sent), sorted; and how many words
// the committed transcript has.
func (s *realtimeSession) partialLatencies(tb testing.TB) (lat []time.Duration, words int) {
	tb.Helper()
	partials := s.partials()
	var ws []string
	var ends []float64
	for _, w := range s.committed.Words {
		if w.Type == "word" && w.End != nil {
			ws = append(ws, plainWords(w.Text)...)
			ends = append(ends, *w.End)
		}
	}
	if len(ws) != len(ends) {
		tb.Fatalf("words %v", ws)
	}
	for i, end := range ends {
		if slices.Index(ws, ws[i]) != i || slices.Contains(ws[i+1:], ws[i]) {
			continue // "the" would match another "the": only words said once are timed
		}
		c := min(int(end*10), len(s.sentAt)-1)
		for _, p := range partials {
			pw := plainWords(p.Text)
			// The word at about its place (the live hypothesis may have a word more or less
			// before it), in a partial sent no earlier than a second before its audio.
			at := slices.Index(pw[min(len(pw), max(0, i-3)):min(len(pw), i+4)], ws[i])
			if at >= 0 && p.at.After(s.sentAt[c].Add(-time.Second)) {
				lat = append(lat, p.at.Sub(s.sentAt[c]))
				break
			}
		}
	}
	slices.Sort(lat)
	return lat, len(ws)
}

// TestRealtimeSpeechToText streams Timbre's own speech to the real-time route in 100 ms chunks at
// real-time pace: partial transcripts arrive while it plays, the committed transcript is the
// batch transcript of the same audio, and the audio seconds are charged. The partial latency —
// from sending the chunk that holds a word's end to the first partial that has the word — is
// reported (p50, p90) and its median must stay within 300 ms. BenchmarkRealtimePartialLatency
// prints the same figures.
func TestRealtimeSpeechToText(t *testing.T) {
	e := newEnv(t, store.SQLite)
	tts := e.do("POST", "/v1/text-to-speech/"+josh+"?output_format=pcm_16000", e.key, map[string]any{"text": realtimeText})
	expect(t, tts, 200)
	pcm := tts.body
	batchResp := e.postForm("/v1/speech-to-text", "file", pcm, map[string]any{"model_id": "scribe_v1", "file_format": "pcm_s16le_16"}, "xi-api-key", e.key)
	expect(t, batchResp, 200)
	var batch sttResponse
	_ = json.Unmarshal(batchResp.body, &batch)
	before := e.workspace().CharacterCount

	s := streamRealtime(t, e.srv.URL, e.key, pcm)
	defer s.conn.CloseNow()
	committed, plain, seconds := s.committed, s.plain, s.seconds
	// The live search never sees the whole utterance at once (live cepstral mean
	// normalisation), so it may differ from batch decoding in a word or two: the committed
	// transcript must agree with the batch one within 35 % of its words (measured: 7 %, the first
	// seconds of a session, before the live mean settles, differ most). Josh (kal16, a diphone
	// voice) makes the same audio every run; slt's noise excitation made the gap swing 4–37 %.
	if plain.Text != committed.Text {
		t.Fatalf("committed_transcript %q, with timestamps %q", plain.Text, committed.Text)
	}
	wer := enginetest.WER([]string{batch.Text}, []string{committed.Text})
	t.Logf("committed %q\nbatch     %q (%.0f %% apart)", committed.Text, batch.Text, wer)
	if wer > 35 {
		t.Fatalf("committed and batch transcripts %.0f %% apart", wer)
	}
	if found, total := recognised(realtimeText, committed.Text); found*10 < total*6 {
		t.Fatalf("recognised %d of %d words: %q", found, total, committed.Text)
	}

	// Partial latency per word of the committed transcript.
	partials := s.partials()
	if len(partials) < 3 {
		t.Fatalf("%d partial transcripts while streaming %.1f s", len(partials), seconds)
	}
	lat, words := s.partialLatencies(t)
	if len(lat) < 8 {
		t.Fatalf("only %d of %d words appeared in partials", len(lat), words)
	}
	p50, p90 := lat[len(lat)/2], lat[len(lat)*9/10]
	t.Logf("partial latency over %d of %d words: p50 %v, p90 %v (%d partials for %.1f s of audio)", len(lat), words, p50.Round(time.Millisecond), p90.Round(time.Millisecond), len(partials), seconds)
	if p50 > 300*time.Millisecond {
		t.Errorf("partial latency p50 %v, want ≤ 300 ms", p50)
	}

	_ = s.conn.Close(websocket.StatusNormalClosure, "")
	<-s.done
	want := plan.STTCredits(plan.Get("free"), seconds)
	deadline := time.Now().Add(5 * time.Second)
	for e.workspace().CharacterCount-before != want && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond) // the session settles as its handler returns
	}
	if got := e.workspace().CharacterCount - before; got != want {
		t.Fatalf("charged %d credits, want %d for %.2f s", got, want, seconds)
	}
}

// The real-time route's refusals: no key (the handshake fails with 401), a plain request (400),
// bad parameters (a 422 naming them, or invalid_request on a WebSocket), bad messages
// (input_error), and a single-use realtime_scribe token works once.
func TestRealtimeSpeechToTextRefusals(t *testing.T) {
	e := newEnv(t, store.SQLite)
	before := e.workspace().CharacterCount
	if _, res, err := e.dialRealtime("model_id=scribe_v2_realtime", nil); err == nil || res == nil || res.StatusCode != 401 {
		t.Fatalf("no key: %v %v", res, err)
	}
	expect(t, e.do("GET", "/v1/speech-to-text/realtime?model_id=scribe_v2_realtime", e.key, nil), 400)
	loc := fieldError(t, e.do("GET", "/v1/speech-to-text/realtime?model_id=scribe_v2_realtime&audio_format=mp3_44100", e.key, nil))
	if loc[len(loc)-1] != "audio_format" {
		t.Fatalf("bad audio_format: %v", loc)
	}

	refused := func(query, wantType string, msg map[string]any) string {
		t.Helper()
		conn, _, err := e.dialRealtime(query, http.Header{"xi-api-key": {e.key}})
		if err != nil {
			t.Fatal(err)
		}
		defer conn.CloseNow()
		msgs, done := collect(conn)
		if msg != nil {
			waitFor(t, msgs, "session_started", 1, 30*time.Second)
			send(t, conn, msg)
		}
		<-done
		got := waitFor(t, msgs, wantType, 1, time.Second)[0]
		return got.Error
	}
	if text := refused("model_id=whisper&vad_silence_threshold_secs=9", "invalid_request", nil); !strings.Contains(text, "model_id") || !strings.Contains(text, "vad_silence_threshold_secs") {
		t.Fatalf("invalid_request names %q", text)
	}
	if text := refused("model_id=scribe_v2_realtime", "input_error", map[string]any{"message_type": "input_audio_chunk", "audio_base_64": "!!", "commit": false}); !strings.Contains(text, "base64") {
		t.Fatalf("bad base64: %q", text)
	}
	if text := refused("model_id=scribe_v2_realtime&audio_format=pcm_16000", "input_error", map[string]any{"message_type": "input_audio_chunk", "audio_base_64": "", "sample_rate": 44100}); !strings.Contains(text, "sample_rate") {
		t.Fatalf("sample rate mismatch: %q", text)
	}
	if text := refused("model_id=scribe_v2_realtime", "input_error", map[string]any{"message_type": "hello"}); !strings.Contains(text, "message_type") {
		t.Fatalf("unknown message: %q", text)
	}
	deadline := time.Now().Add(5 * time.Second) // sessions settle as their handlers return
	for e.workspace().CharacterCount != before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if got := e.workspace().CharacterCount; got != before {
		t.Fatalf("sessions without audio charged %d credits", got-before)
	}

	tok := e.do("POST", "/v1/single-use-token/realtime_scribe", e.key, nil)
	expect(t, tok, 200)
	token, _ := tok.json(t)["token"].(string)
	conn, _, err := e.dialRealtime("model_id=scribe_v2_realtime&token="+token, nil)
	if err != nil {
		t.Fatal(err)
	}
	msgs, done := collect(conn)
	waitFor(t, msgs, "session_started", 1, 30*time.Second)
	_ = conn.Close(websocket.StatusNormalClosure, "")
	<-done
	if _, res, err := e.dialRealtime("model_id=scribe_v2_realtime&token="+token, nil); err == nil || res.StatusCode != 401 {
		t.Fatalf("a spent token: %v %v", res, err)
	}
}

// commit_strategy=vad: two sentences with a 2-second pause between them come back as two
// committed transcripts without a commit from the client, the second timed after the pause.
func TestRealtimeSpeechToTextVADCommits(t *testing.T) {
	e := newEnv(t, store.SQLite)
	var pcm []byte
	for i, text := range []string{"Glue the sheet to the dark blue background.", "It is easy to tell the depth of a well."} {
		if i > 0 {
			pcm = append(pcm, make([]byte, 2*16000*2)...)
		}
		r := e.do("POST", "/v1/text-to-speech/"+rachel+"?output_format=pcm_16000", e.key, map[string]any{"text": text})
		expect(t, r, 200)
		pcm = append(pcm, r.body...)
	}
	pcm = append(pcm, make([]byte, 2*16000*2)...)
	conn, _, err := e.dialRealtime("model_id=scribe_v2_realtime&commit_strategy=vad&vad_silence_threshold_secs=1&include_timestamps=true", http.Header{"xi-api-key": {e.key}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	msgs, done := collect(conn)
	waitFor(t, msgs, "session_started", 1, 30*time.Second)
	for at := 0; at < len(pcm); at += 3200 { // faster than real time: pauses are measured in the audio
		send(t, conn, map[string]any{"message_type": "input_audio_chunk", "audio_base_64": base64.StdEncoding.EncodeToString(pcm[at:min(at+3200, len(pcm))])})
	}
	got := waitFor(t, msgs, "committed_transcript_with_timestamps", 2, 30*time.Second)
	first, second := got[0], got[1]
	if len(first.Words) == 0 || len(second.Words) == 0 {
		t.Fatalf("commits without words: %+v", got)
	}
	firstEnd, secondStart := *first.Words[len(first.Words)-1].End, *second.Words[0].Start
	if secondStart < firstEnd+1.5 {
		t.Fatalf("second utterance starts at %.2f s, the first ends at %.2f s: not timed from the session's start", secondStart, firstEnd)
	}
	// Each commit holds its own sentence. The live search sometimes mishears the first one
	// ("later she did are good at ground" for "… dark blue background"), keeping its end.
	if !strings.Contains(strings.ToLower(first.Text), "ground") || !strings.Contains(strings.ToLower(second.Text), "easy") {
		t.Fatalf("commits %q and %q", first.Text, second.Text)
	}
	_ = conn.Close(websocket.StatusNormalClosure, "")
	<-done
}

// A server shutting down ends its real-time sessions: what was heard is committed and sent, the
// socket closes with 1001 (going away), the session is charged, Drain returns, and new sessions
// are refused with 503.
func TestRealtimeSpeechToTextShutdown(t *testing.T) {
	e := newEnv(t, store.SQLite)
	tts := e.do("POST", "/v1/text-to-speech/"+josh+"?output_format=pcm_16000", e.key, map[string]any{"text": realtimeText})
	expect(t, tts, 200)
	before := e.workspace().CharacterCount
	conn, _, err := e.dialRealtime("model_id=scribe_v2_realtime&audio_format=pcm_16000", http.Header{"xi-api-key": {e.key}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	var mu sync.Mutex
	var all []rtMessage
	var closeErr error
	msgs := func() []rtMessage { mu.Lock(); defer mu.Unlock(); return slices.Clone(all) }
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			_, data, err := conn.Read(context.Background())
			if err != nil {
				closeErr = err
				return
			}
			var m rtMessage
			_ = json.Unmarshal(data, &m)
			mu.Lock()
			all = append(all, m)
			mu.Unlock()
		}
	}()
	waitFor(t, msgs, "session_started", 1, 10*time.Second)
	pcm := tts.body
	for len(pcm) > 0 {
		n := min(len(pcm), 3200)
		send(t, conn, map[string]any{"message_type": "input_audio_chunk", "audio_base_64": base64.StdEncoding.EncodeToString(pcm[:n])})
		pcm = pcm[n:]
	}
	// Wait until the audio was heard — the latest partial holds most of the words (on a busy
	// machine the decoder can fall seconds behind the socket, and a quiet spell alone does not
	// say it caught up) — and then until the partials stop changing.
	waitFor(t, msgs, "partial_transcript", 1, 30*time.Second)
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		latest := ""
		for _, m := range msgs() {
			if m.MessageType == "partial_transcript" {
				latest = m.Text
			}
		}
		if found, total := recognised(realtimeText, latest); found*10 >= total*6 {
			break
		}
	}
	for n, quiet := 0, time.Now(); time.Since(quiet) < 1500*time.Millisecond; time.Sleep(50 * time.Millisecond) {
		if m := len(msgs()); m != n {
			n, quiet = m, time.Now()
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := e.app.Realtime.Drain(ctx); err != nil {
		t.Fatalf("Drain: %v", err)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the connection stayed open after Drain")
	}
	committed := waitFor(t, msgs, "committed_transcript", 1, time.Second)
	if found, total := recognised(realtimeText, committed[0].Text); found*10 < total*6 {
		t.Fatalf("committed on shutdown: recognised %d of %d words: %q", found, total, committed[0].Text)
	}
	if websocket.CloseStatus(closeErr) != websocket.StatusGoingAway {
		t.Fatalf("close status %v, want 1001 going away (err %v)", websocket.CloseStatus(closeErr), closeErr)
	}
	seconds := float64(len(tts.body)/2) / 16000
	if got, want := e.workspace().CharacterCount-before, plan.STTCredits(plan.Get("free"), seconds); got != want {
		t.Fatalf("charged %d credits, want %d for %.2f s", got, want, seconds)
	}
	_, res, err := e.dialRealtime("model_id=scribe_v2_realtime&audio_format=pcm_16000", http.Header{"xi-api-key": {e.key}})
	if err == nil || res == nil || res.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("a new session while draining: %v %+v, want 503", err, res)
	}
}
