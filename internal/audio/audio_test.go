package audio

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"
)

func requireFFmpeg(t testing.TB) {
	t.Helper()
	for _, tool := range []string{FFmpeg, FFprobe} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
}

func tone(freq float64, rate int, seconds float64) []int16 {
	out := make([]int16, int(seconds*float64(rate)))
	for i := range out {
		out[i] = int16(12000 * math.Sin(2*math.Pi*freq*float64(i)/float64(rate)))
	}
	return out
}

// speechLike is noise shaped roughly like speech: low-passed noise with a 4 Hz syllable envelope
// plus a 120 Hz voiced buzz, so encoders see a spectrum and dynamics, not a single sine.
func speechLike(rate int, seconds float64) []int16 {
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([]int16, int(seconds*float64(rate)))
	var lp float64
	for i := range out {
		t := float64(i) / float64(rate)
		lp += 0.25 * (rng.NormFloat64() - lp)
		env := 0.5 + 0.5*math.Sin(2*math.Pi*4*t)
		buzz := math.Sin(2*math.Pi*120*t) + 0.5*math.Sin(2*math.Pi*240*t)
		out[i] = int16(max(-32000, min(32000, env*(6000*lp+4000*buzz))))
	}
	return out
}

func rms(s []int16) float64 {
	var sum float64
	for _, v := range s {
		sum += float64(v) * float64(v)
	}
	return math.Sqrt(sum / float64(max(1, len(s))))
}

// goertzel is the RMS amplitude of frequency freq in s.
func goertzel(s []int16, rate int, freq float64) float64 {
	w := 2 * math.Pi * freq / float64(rate)
	c := 2 * math.Cos(w)
	var s1, s2 float64
	for _, v := range s {
		s1, s2 = float64(v)+c*s1-s2, s1
	}
	power := s1*s1 + s2*s2 - c*s1*s2
	return math.Sqrt(2*power) / float64(len(s))
}

func TestParseFormat(t *testing.T) {
	if len(StreamingFormats) != 21 || len(NonStreamingFormats) != 28 || len(MusicFormats) != 26 {
		t.Fatalf("set sizes %d/%d/%d, want 21/28/26", len(StreamingFormats), len(NonStreamingFormats), len(MusicFormats))
	}
	for _, name := range slices.Concat(NonStreamingFormats, MusicFormats) {
		f, err := ParseFormat(name)
		if err != nil {
			t.Errorf("ParseFormat(%q): %v", name, err)
			continue
		}
		if name != AutoFormat && f.Name != name {
			t.Errorf("ParseFormat(%q).Name = %q", name, f.Name)
		}
	}
	cases := map[string]Format{
		"mp3_22050_32":  {"mp3_22050_32", "mp3", 22050, 32000},
		"mp3_48000_320": {"mp3_48000_320", "mp3", 48000, 320000},
		"opus_48000_64": {"opus_48000_64", "opus", 48000, 64000},
		"pcm_16000":     {"pcm_16000", "pcm", 16000, 256000},
		"ulaw_8000":     {"ulaw_8000", "ulaw", 8000, 64000},
		"alaw_8000":     {"alaw_8000", "alaw", 8000, 64000},
		"wav_44100":     {"wav_44100", "wav", 44100, 705600},
		"auto":          {"mp3_44100_128", "mp3", 44100, 128000},
	}
	for name, want := range cases {
		if got, _ := ParseFormat(name); got != want {
			t.Errorf("ParseFormat(%q) = %+v, want %+v", name, got, want)
		}
	}
	for _, bad := range []string{"", "mp3", "wav", "mp3_44100_100", "pcm_11025", "opus_24000_32", "MP3_44100_128", "mp3_44100_128 ", "flac_44100", "ulaw_16000", "mp3_44100"} {
		if f, err := ParseFormat(bad); err == nil {
			t.Errorf("ParseFormat(%q) = %+v, want error", bad, f)
		}
	}
}

func TestContentTypeAndExt(t *testing.T) {
	cases := []struct{ name, ct, ext string }{
		{"mp3_44100_128", "audio/mpeg", "mp3"},
		{"wav_16000", "audio/wav", "wav"},
		{"opus_48000_32", "audio/ogg", "opus"},
		{"pcm_24000", "audio/pcm", "pcm"},
		{"ulaw_8000", "audio/basic", "ulaw"},
		{"alaw_8000", "audio/x-alaw-basic", "alaw"},
	}
	for _, c := range cases {
		f, _ := ParseFormat(c.name)
		if f.ContentType() != c.ct || f.Ext() != c.ext {
			t.Errorf("%s: got %s %s, want %s %s", c.name, f.ContentType(), f.Ext(), c.ct, c.ext)
		}
	}
}

func TestMP3FrameBitrate(t *testing.T) {
	for name, want := range map[string]int{"mp3_22050_32": 32000, "mp3_24000_48": 48000, "mp3_44100_128": 128000, "mp3_48000_240": 256000, "mp3_48000_320": 320000} {
		f, _ := ParseFormat(name)
		if got := MP3FrameBitrate(f); got != want {
			t.Errorf("MP3FrameBitrate(%s) = %d, want %d", name, got, want)
		}
	}
}

func TestRequiresTier(t *testing.T) {
	want := map[string]string{
		"mp3_44100_192": "creator", "mp3_48000_192": "creator", "mp3_48000_320": "creator",
		"pcm_44100": "pro", "wav_44100": "pro",
		"mp3_44100_128": "", "mp3_48000_128": "", "pcm_48000": "", "wav_48000": "", "opus_48000_192": "", "ulaw_8000": "",
	}
	for name, tier := range want {
		f, _ := ParseFormat(name)
		if got := RequiresTier(f); got != tier {
			t.Errorf("RequiresTier(%s) = %q, want %q", name, got, tier)
		}
	}
}

// probeEncoded runs ffprobe on encoded data, telling it the format of headerless data.
func probeEncoded(t *testing.T, data []byte, f Format) probeInfo {
	t.Helper()
	var in []string
	switch f.Codec {
	case CodecPCM:
		in = []string{"-f", "s16le", "-ar", strconv.Itoa(f.SampleRate), "-ac", "1"}
	case CodecULaw:
		in = []string{"-f", "mulaw", "-ar", strconv.Itoa(f.SampleRate), "-ac", "1"}
	case CodecALaw:
		in = []string{"-f", "alaw", "-ar", strconv.Itoa(f.SampleRate), "-ac", "1"}
	}
	path := filepath.Join(t.TempDir(), "audio."+f.Ext())
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	info, err := probe(context.Background(), path, in...)
	if err != nil {
		t.Fatalf("probe: %v", err)
	}
	return info
}

var ffmpegCodec = map[string]string{
	CodecMP3: "mp3", CodecOpus: "opus", CodecPCM: "pcm_s16le", CodecWAV: "pcm_s16le",
	CodecULaw: "pcm_mulaw", CodecALaw: "pcm_alaw", CodecAAC: "aac", CodecFLAC: "flac",
}

func TestEncodeEveryFormat(t *testing.T) {
	requireFFmpeg(t)
	names := slices.Concat(NonStreamingFormats, []string{"mp3_48000_128", "mp3_48000_192", "mp3_48000_240", "mp3_48000_320"}, OpenAIOnlyFormats)
	const inRate = 24000
	signals := map[string][]int16{"tone": tone(440, inRate, 1), "speech": speechLike(inRate, 1)}
	for _, name := range names {
		for sigName, sig := range signals {
			t.Run(name+"/"+sigName, func(t *testing.T) {
				t.Parallel()
				f, err := ParseFormat(name)
				if err != nil {
					t.Fatal(err)
				}
				data, err := Encode(context.Background(), sig, inRate, f)
				if err != nil {
					t.Fatal(err)
				}
				info := probeEncoded(t, data, f)
				if info.Codec != ffmpegCodec[f.Codec] {
					t.Errorf("codec %q, want %q", info.Codec, ffmpegCodec[f.Codec])
				}
				if info.SampleRate != f.SampleRate {
					t.Errorf("sample rate %d, want %d", info.SampleRate, f.SampleRate)
				}
				switch f.Codec {
				case CodecOpus:
					// VBR (constrained) plus Ogg overhead on a 1 s file: only roughly the target.
					if r := float64(info.Bitrate) / float64(f.Bitrate); r < 0.6 || r > 1.4 {
						t.Errorf("bitrate %d, want ≈ %d", info.Bitrate, f.Bitrate)
					}
				case CodecMP3: // CBR: exact
					if info.Bitrate != MP3FrameBitrate(f) {
						t.Errorf("bitrate %d, want %d", info.Bitrate, MP3FrameBitrate(f))
					}
				case CodecAAC: // average bitrate over a short file: roughly the target
					if r := float64(info.Bitrate) / float64(f.Bitrate); r < 0.5 || r > 1.5 {
						t.Errorf("bitrate %d, want ≈ %d", info.Bitrate, f.Bitrate)
					}
				case CodecFLAC:
					// Written to a pipe, the header cannot be given the length afterwards, so
					// ffprobe reports neither duration nor bitrate: judge the decoded audio.
					if compressed := float64(len(data)) * 8; compressed >= float64(f.Bitrate) {
						t.Errorf("%d bytes for 1 s: not compressed below the raw rate %d", len(data), f.Bitrate)
					}
					info.Duration = 1
				default: // uncompressed: exact
					if info.Bitrate != f.Bitrate {
						t.Errorf("bitrate %d, want %d", info.Bitrate, f.Bitrate)
					}
				}
				// mp3 adds the encoder delay/padding (≈ 50 ms) to the stream.
				if math.Abs(info.Duration-1) > 0.08 {
					t.Errorf("duration %.3f s, want ≈ 1 s", info.Duration)
				}

				got, rate, err := DecodeAs(context.Background(), data, f)
				if err != nil {
					t.Fatal(err)
				}
				if rate != f.SampleRate {
					t.Errorf("decoded rate %d, want %d", rate, f.SampleRate)
				}
				if d := float64(len(got)) / float64(rate); math.Abs(d-1) > 0.08 {
					t.Errorf("decoded %.3f s, want ≈ 1 s", d)
				}
				if r := rms(got) / rms(sig); r < 0.5 || r > 1.5 {
					t.Errorf("decoded RMS %.0f vs input %.0f", rms(got), rms(sig))
				}
				if sigName == "tone" {
					// Most of the energy must still be at 440 Hz (resampling and codecs keep pitch).
					if a := goertzel(got, rate, 440); a < 0.8*rms(got) {
						t.Errorf("440 Hz amplitude %.0f of RMS %.0f", a, rms(got))
					}
				}
			})
		}
	}
}

func TestEncodeBadArgs(t *testing.T) {
	ctx := context.Background()
	f, _ := ParseFormat("pcm_16000")
	if _, err := Encode(ctx, tone(440, 16000, 0.1), 0, f); err == nil {
		t.Error("zero input rate accepted")
	}
	if _, err := Encode(ctx, nil, 16000, Format{Name: "vorbis_44100", Codec: "vorbis", SampleRate: 44100}); err == nil {
		t.Error("unknown codec accepted")
	}
	if _, err := NewStreamEncoder(ctx, 16000, Format{}, io.Discard); err == nil {
		t.Error("zero format accepted")
	}
}

func TestEncodePCMSameRateIsExact(t *testing.T) {
	f, _ := ParseFormat("pcm_22050")
	in := speechLike(22050, 0.3)
	data, err := Encode(context.Background(), in, 22050, f)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(PCMSamples(data), in) {
		t.Fatal("pcm at the same rate is not a byte copy")
	}
}

func TestWAVRoundTrip(t *testing.T) {
	in := speechLike(16000, 0.2)
	b := WAV(in, 16000)
	if len(b) != 44+2*len(in) {
		t.Fatalf("len %d", len(b))
	}
	got, rate, err := parseWAV(b)
	if err != nil || rate != 16000 || !slices.Equal(got, in) {
		t.Fatalf("parseWAV: rate %d err %v equal %v", rate, err, slices.Equal(got, in))
	}
	if _, _, err := parseWAV([]byte("RIFF????WAVEjunk")); err == nil {
		t.Error("garbage WAV accepted")
	}
}

// TestG711MatchesFFmpeg checks the Go µ-law/A-law encoders byte for byte against ffmpeg's.
func TestG711MatchesFFmpeg(t *testing.T) {
	requireFFmpeg(t)
	in := make([]int16, 65536)
	for i := range in {
		in[i] = int16(i - 32768) // every 16-bit value
	}
	for _, c := range []struct{ codec, ff string }{{CodecULaw, "mulaw"}, {CodecALaw, "alaw"}} {
		want, err := runFFmpeg(context.Background(), PCMBytes(in), "-loglevel", "error",
			"-f", "s16le", "-ar", "8000", "-ac", "1", "-i", "pipe:0", "-f", c.ff, "pipe:1")
		if err != nil {
			t.Fatal(err)
		}
		// ffmpeg quantises through a 14-bit table, so a few inputs right at a decision level land
		// on the neighbouring code; both codes must then bracket the input.
		got := encodeRaw(nil, c.codec, in)
		if len(got) != len(want) {
			t.Fatalf("%s: %d bytes, ffmpeg %d", c.codec, len(got), len(want))
		}
		diff := 0
		for i, x := range in {
			if got[i] == want[i] {
				continue
			}
			diff++
			a, b := decodeRaw(c.codec, got[i:i+1])[0], decodeRaw(c.codec, want[i:i+1])[0]
			if lo, hi := min(a, b), max(a, b); x < lo || x > hi {
				t.Errorf("%s: %d → %d (ffmpeg %d)", c.codec, x, a, b)
			}
		}
		if diff > len(in)/50 {
			t.Errorf("%s: %d of %d codes differ from ffmpeg", c.codec, diff, len(in))
		}
		// Decoding every code and re-encoding it must give the code back.
		for code := range 256 {
			dec := decodeRaw(c.codec, []byte{byte(code)})
			re := encodeRaw(nil, c.codec, dec)[0]
			if re != byte(code) && !(c.codec == CodecULaw && code == 0x7F) { // µ-law has two zeros
				t.Errorf("%s: code %#x → %d → %#x", c.codec, code, dec[0], re)
			}
		}
	}
}

func TestResample(t *testing.T) {
	rates := []int{8000, 16000, 22050, 24000, 44100, 48000}
	for _, in := range rates {
		for _, out := range rates {
			if in == out {
				continue
			}
			src := tone(440, in, 0.5)
			got := Resample(src, in, out)
			wantLen := (len(src)*out + in - 1) / in
			if len(got) != wantLen {
				t.Errorf("%d→%d: %d samples, want %d", in, out, len(got), wantLen)
			}
			mid := got[len(got)/4 : 3*len(got)/4] // skip the filter's edges
			if a := goertzel(mid, out, 440); math.Abs(a-rms(src)) > 0.02*rms(src) {
				t.Errorf("%d→%d: 440 Hz amplitude %.0f, want %.0f", in, out, a, rms(src))
			}
		}
	}
	// Downsampling must remove content above the new Nyquist frequency instead of aliasing it.
	hi := tone(10000, 44100, 0.5)
	if r := rms(Resample(hi, 44100, 8000)); r > 0.01*rms(hi) {
		t.Errorf("10 kHz tone leaks through 44.1→8 kHz: RMS %.0f", r)
	}
	// An odd rate pair (more phases than the precomputed table allows) still works.
	odd := Resample(tone(440, 44101, 0.2), 44101, 48000)
	if a := goertzel(odd[len(odd)/4:3*len(odd)/4], 48000, 440); a < 0.95*rms(tone(440, 44101, 0.2)) {
		t.Errorf("odd rates: 440 Hz amplitude %.0f", a)
	}
}

func TestResampleIncrementalMatchesOneShot(t *testing.T) {
	src := speechLike(22050, 0.7)
	want := Resample(src, 22050, 8000)
	r := newResampler(22050, 8000)
	var got []int16
	rng := rand.New(rand.NewPCG(3, 4))
	for rest := src; len(rest) > 0; {
		n := min(len(rest), rng.IntN(700))
		got = r.process(got, rest[:n])
		rest = rest[n:]
	}
	got = r.flush(got)
	if !slices.Equal(got, want) {
		t.Fatalf("incremental output differs (len %d vs %d)", len(got), len(want))
	}
}

// TestStreamGoFormatsMatchEncode streams in uneven chunks and compares with Encode.
func TestStreamGoFormatsMatchEncode(t *testing.T) {
	src := speechLike(24000, 0.8)
	for _, name := range []string{"pcm_24000", "pcm_16000", "pcm_44100", "ulaw_8000", "alaw_8000", "wav_22050", "mp3_44100_128", "mp3_24000_48", "mp3_22050_32"} {
		f, _ := ParseFormat(name)
		want, err := Encode(context.Background(), src, 24000, f)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		e, err := NewStreamEncoder(context.Background(), 24000, f, &buf)
		if err != nil {
			t.Fatal(err)
		}
		for rest := src; len(rest) > 0; {
			n := min(len(rest), 1234)
			if err := e.Write(rest[:n]); err != nil {
				t.Fatal(err)
			}
			rest = rest[n:]
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		got := buf.Bytes()
		if f.Codec == CodecWAV { // the streamed header has an open-ended length
			got, want = got[44:], want[44:]
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: streamed %d bytes differ from Encode's %d", name, len(got), len(want))
		}
	}
}

// TestStreamFirstWriteArrivesBeforeClose is the latency contract: encoded audio for the first
// chunk reaches the writer while the stream is still open.
func TestStreamFirstWriteArrivesBeforeClose(t *testing.T) {
	requireFFmpeg(t)
	for _, c := range []struct {
		name string
		min  int // ≈ 0.8 s of encoded audio: all but the encoder look-ahead arrived
	}{
		{"mp3_44100_128", 12800}, {"mp3_22050_32", 3200}, {"opus_48000_64", 6400}, {"ulaw_8000", 7000},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, _ := ParseFormat(c.name)
			pr, pw := io.Pipe()
			got := make(chan int, 1024)
			all := make(chan []byte, 1)
			go func() {
				var acc []byte
				buf := make([]byte, 4096)
				for {
					n, err := pr.Read(buf)
					acc = append(acc, buf[:n]...)
					got <- len(acc)
					if err != nil {
						all <- acc
						return
					}
				}
			}()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			e, err := NewStreamEncoder(ctx, 24000, f, pw)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			if err := e.Write(speechLike(24000, 1)); err != nil {
				t.Fatal(err)
			}
			timeout := time.After(5 * time.Second)
		wait:
			for {
				select {
				case n := <-got:
					if n >= c.min {
						t.Logf("%d bytes after %v", n, time.Since(start))
						break wait
					}
				case <-timeout:
					t.Fatalf("first write's audio did not arrive before Close")
				}
			}
			// A second chunk, then close; the whole stream must decode to ≈ 2 s.
			if err := e.Write(speechLike(24000, 1)); err != nil {
				t.Fatal(err)
			}
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			pw.Close()
			data := <-all
			samples, rate, err := DecodeAs(ctx, data, f)
			if err != nil {
				t.Fatal(err)
			}
			if d := float64(len(samples)) / float64(rate); math.Abs(d-2) > 0.1 {
				t.Errorf("streamed audio is %.3f s, want ≈ 2 s", d)
			}
		})
	}
}

type failWriter struct{ n int }

func (w *failWriter) Write(p []byte) (int, error) {
	if w.n--; w.n < 0 {
		return 0, errors.New("client went away")
	}
	return len(p), nil
}

func TestStreamWriterErrorStopsEncoder(t *testing.T) {
	requireFFmpeg(t)
	f, _ := ParseFormat("mp3_44100_128")
	e, err := NewStreamEncoder(context.Background(), 24000, f, &failWriter{n: 1})
	if err != nil {
		t.Fatal(err)
	}
	var werr error
	for i := 0; i < 200 && werr == nil; i++ { // 200 s of audio: far more than any pipe buffer
		werr = e.Write(speechLike(24000, 1))
	}
	cerr := e.Close()
	if werr == nil && cerr == nil {
		t.Fatal("writer error was not reported")
	}
	if cerr == nil || !bytes.Contains([]byte(cerr.Error()), []byte("client went away")) {
		t.Errorf("Close error %v does not name the writer's error", cerr)
	}
}

func TestStreamContextCancel(t *testing.T) {
	requireFFmpeg(t)
	f, _ := ParseFormat("opus_48000_32")
	ctx, cancel := context.WithCancel(context.Background())
	e, err := NewStreamEncoder(ctx, 16000, f, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Write(tone(440, 16000, 0.5)); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := e.Close(); !errors.Is(err, context.Canceled) {
		t.Errorf("Close after cancel: %v", err)
	}
	if err := e.Write(tone(440, 16000, 0.1)); err == nil {
		t.Error("Write after Close succeeded")
	}
}

func TestDecodeAndProbe(t *testing.T) {
	requireFFmpeg(t)
	ctx := context.Background()
	if _, _, err := Decode(ctx, []byte("definitely not audio")); err == nil {
		t.Error("Decode accepted garbage")
	}
	if _, _, err := Decode(ctx, nil); err == nil {
		t.Error("Decode accepted nothing")
	}
	f, _ := ParseFormat("mp3_44100_64")
	mp3, err := Encode(ctx, tone(440, 22050, 2), 22050, f)
	if err != nil {
		t.Fatal(err)
	}
	d, rate, br, codec, err := Probe(ctx, mp3)
	if err != nil || codec != "mp3" || rate != 44100 || br != 64000 || math.Abs(d-2) > 0.1 {
		t.Errorf("Probe = %v %d %d %q %v", d, rate, br, codec, err)
	}
	// Decode → WAV, as history download does.
	s, rate, err := Decode(ctx, mp3)
	if err != nil || rate != 44100 {
		t.Fatalf("Decode: rate %d err %v", rate, err)
	}
	d, rate, _, codec, err = Probe(ctx, WAV(s, rate))
	if err != nil || codec != "pcm_s16le" || rate != 44100 || math.Abs(d-2) > 0.1 {
		t.Errorf("Probe(wav) = %v %d %q %v", d, rate, codec, err)
	}
}

// interleavedWAV is a 16-bit WAV file with one channel per slice (all of the same length).
func interleavedWAV(rate int, chans ...[]int16) []byte {
	n, c := len(chans[0]), len(chans)
	h := binary.LittleEndian.AppendUint32([]byte("RIFF"), uint32(36+2*n*c))
	h = append(h, "WAVEfmt "...)
	h = binary.LittleEndian.AppendUint32(h, 16)
	h = binary.LittleEndian.AppendUint16(h, 1)
	h = binary.LittleEndian.AppendUint16(h, uint16(c))
	h = binary.LittleEndian.AppendUint32(h, uint32(rate))
	h = binary.LittleEndian.AppendUint32(h, uint32(2*rate*c))
	h = binary.LittleEndian.AppendUint16(h, uint16(2*c))
	h = binary.LittleEndian.AppendUint16(h, 16)
	h = append(h, "data"...)
	h = binary.LittleEndian.AppendUint32(h, uint32(2*n*c))
	for i := range n {
		for _, ch := range chans {
			h = binary.LittleEndian.AppendUint16(h, uint16(ch[i]))
		}
	}
	return h
}

// DecodeChannels keeps each channel of a compressed multi-channel file apart, in order.
func TestDecodeChannels(t *testing.T) {
	requireFFmpeg(t)
	ctx := context.Background()
	freqs := []float64{440, 1000, 2500}
	var chans [][]int16
	for _, f := range freqs {
		chans = append(chans, tone(f, 22050, 0.5))
	}
	flac, err := runFFmpeg(ctx, interleavedWAV(22050, chans...), "-hide_banner", "-loglevel", "error",
		"-f", "wav", "-i", "pipe:0", "-c:a", "flac", "-f", "flac", "pipe:1")
	if err != nil {
		t.Fatal(err)
	}
	got, rate, err := DecodeChannels(ctx, flac)
	if err != nil || rate != 22050 || len(got) != 3 {
		t.Fatalf("DecodeChannels: %d channels at %d Hz, %v", len(got), rate, err)
	}
	for c, f := range freqs {
		if len(got[c]) != len(chans[c]) {
			t.Fatalf("channel %d: %d samples, want %d", c, len(got[c]), len(chans[c]))
		}
		for o, g := range freqs {
			level := goertzel(got[c], rate, g)
			if o == c && level < 8000 || o != c && level > 100 {
				t.Errorf("channel %d (%g Hz): %g Hz at %.0f", c, f, g, level)
			}
		}
	}
	mono, _, err := DecodeChannels(ctx, WAV(tone(440, 16000, 0.2), 16000))
	if err != nil || len(mono) != 1 || len(mono[0]) != 3200 {
		t.Fatalf("mono: %d channels, %v", len(mono), err)
	}
	if _, _, err := DecodeChannels(ctx, []byte("not audio")); err == nil {
		t.Error("DecodeChannels accepted garbage")
	}
}

func BenchmarkEncodeMP3_60s(b *testing.B) {
	requireFFmpeg(b)
	f, _ := ParseFormat("mp3_44100_128")
	src := speechLike(24000, 60)
	b.SetBytes(int64(2 * len(src)))
	for b.Loop() {
		if _, err := Encode(context.Background(), src, 24000, f); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkResample24kTo44k_60s(b *testing.B) {
	src := speechLike(24000, 60)
	b.SetBytes(int64(2 * len(src)))
	for b.Loop() {
		Resample(src, 24000, 44100)
	}
}

func BenchmarkULaw8k_60s(b *testing.B) {
	f, _ := ParseFormat("ulaw_8000")
	src := speechLike(24000, 60)
	b.SetBytes(int64(2 * len(src)))
	for b.Loop() {
		Encode(context.Background(), src, 24000, f)
	}
}
