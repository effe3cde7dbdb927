package audio

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Paths of the ffmpeg and ffprobe executables (looked up in PATH by default).
var (
	FFmpeg  = "ffmpeg"
	FFprobe = "ffprobe"
)

// ffmpegArgs builds the command line that reads s16le mono at inRate on stdin and writes f on
// stdout. streaming adds the flags that push every packet out as soon as it is encoded.
func ffmpegArgs(inRate int, f Format, streaming bool) []string {
	args := []string{"-hide_banner", "-loglevel", "error", "-nostats"}
	if streaming {
		// Raw input needs no probing; without these ffmpeg waits for up to 5 s of audio
		// (analyzeduration) before it starts encoding.
		args = append(args, "-probesize", "32", "-analyzeduration", "0", "-fflags", "+nobuffer")
		// A filter graph otherwise starts a thread per CPU when the first frame arrives, which
		// delays the first bytes by ~0.2 ms; one audio stream gains nothing from them (the
		// output is the same byte for byte).
		args = append(args, "-filter_threads", "1")
	}
	args = append(args, "-f", "s16le", "-ar", strconv.Itoa(inRate), "-ac", "1", "-i", "pipe:0",
		"-map_metadata", "-1", "-fflags", "+bitexact", "-flags:a", "+bitexact",
		"-ac", "1", "-ar", strconv.Itoa(f.SampleRate))
	switch f.Codec {
	case CodecMP3:
		// CBR (libmp3lame's default with -b:a), no ID3 tag and no Xing frame, so a stream is
		// plain MPEG frames that can be cut and concatenated anywhere.
		args = append(args, "-c:a", "libmp3lame", "-b:a", kbps(MP3FrameBitrate(f)),
			"-id3v2_version", "0", "-write_id3v1", "0", "-write_xing", "0", "-f", "mp3")
	case CodecOpus:
		// Constrained VBR keeps the average at the requested bitrate while letting easy frames
		// (silence) use fewer bits.
		args = append(args, "-c:a", "libopus", "-b:a", kbps(f.Bitrate), "-vbr", "constrained", "-f", "ogg")
		if streaming {
			// The ogg muxer otherwise collects up to 1 s of packets per page.
			args = append(args, "-page_duration", "20000")
		}
	case CodecAAC:
		// ADTS frames: each carries its own header, so the stream plays from any point and
		// needs no seekable output.
		args = append(args, "-c:a", "aac", "-b:a", kbps(f.Bitrate), "-f", "adts")
	case CodecFLAC:
		// On a pipe the muxer cannot go back to fill in the total length; players don't need it.
		args = append(args, "-c:a", "flac", "-sample_fmt", "s16", "-f", "flac")
	default:
		panic("audio: ffmpeg is not used for " + f.Codec)
	}
	if streaming {
		args = append(args, "-flush_packets", "1")
	}
	return append(args, "pipe:1")
}

func kbps(bitrate int) string { return strconv.Itoa(bitrate/1000) + "k" }

// runFFmpeg runs ffmpeg with stdin as input and returns its stdout.
func runFFmpeg(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, FFmpeg, args...)
	cmd.Stdin = bytes.NewReader(stdin)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		return nil, toolError("ffmpeg", ctx, err, &stderr)
	}
	return out.Bytes(), nil
}

// toolError wraps a failed child process's error with its stderr, or with ctx's error when the
// process was killed because ctx ended.
func toolError(tool string, ctx context.Context, err error, stderr *bytes.Buffer) error {
	if ctx.Err() != nil {
		return fmt.Errorf("audio: %s: %w", tool, ctx.Err())
	}
	if msg := strings.TrimSpace(stderr.String()); msg != "" {
		return fmt.Errorf("audio: %s: %w: %s", tool, err, lastLines(msg, 5))
	}
	return fmt.Errorf("audio: %s: %w", tool, err)
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "; ")
}

// withTempFile writes data to a temporary file for fn. Files rather than pipes let ffmpeg seek,
// which some containers (mp4/m4a with the index at the end) need.
func withTempFile(data []byte, fn func(path string) error) error {
	f, err := os.CreateTemp("", "timbre-audio-*")
	if err != nil {
		return fmt.Errorf("audio: %w", err)
	}
	defer os.Remove(f.Name())
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("audio: %w", err)
	}
	return fn(f.Name())
}

// Decode decodes any audio file ffmpeg understands (mp3, ogg/opus, wav, flac, m4a, webm, …) to
// mono 16-bit samples at the file's own sample rate. Raw pcm/ulaw/alaw data has no header to
// detect; use DecodeAs for those.
func Decode(ctx context.Context, data []byte) (samples []int16, rate int, err error) {
	if len(data) == 0 {
		return nil, 0, errors.New("audio: no data to decode")
	}
	err = withTempFile(data, func(path string) error {
		// WAV output carries the sample rate, so one process suffices.
		out, err := runFFmpeg(ctx, nil, "-hide_banner", "-loglevel", "error", "-nostdin", "-i", path,
			"-vn", "-ac", "1", "-c:a", "pcm_s16le", "-f", "wav", "pipe:1")
		if err != nil {
			return err
		}
		samples, rate, err = parseWAV(out)
		return err
	})
	return samples, rate, err
}

// DecodeChannels decodes like Decode but keeps the channels apart instead of mixing them down:
// one slice of 16-bit samples per channel, in the file's channel order (left, right, … as
// ffmpeg orders them), at the file's own sample rate. ffmpeg writes the channels interleaved in
// one WAV stream and they are split here, so the file is read and decoded once whatever its
// number of channels. A mono file gives one channel.
func DecodeChannels(ctx context.Context, data []byte) (channels [][]int16, rate int, err error) {
	if len(data) == 0 {
		return nil, 0, errors.New("audio: no data to decode")
	}
	err = withTempFile(data, func(path string) error {
		out, err := runFFmpeg(ctx, nil, "-hide_banner", "-loglevel", "error", "-nostdin", "-i", path,
			"-vn", "-c:a", "pcm_s16le", "-f", "wav", "pipe:1")
		if err != nil {
			return err
		}
		channels, rate, err = parseWAVChannels(out)
		return err
	})
	return channels, rate, err
}

// DecodeAs decodes data known to be in format f. Raw formats are decoded in Go; the rest go
// through Decode.
func DecodeAs(ctx context.Context, data []byte, f Format) ([]int16, int, error) {
	switch f.Codec {
	case CodecPCM, CodecULaw, CodecALaw:
		return decodeRaw(f.Codec, data), f.SampleRate, nil
	case CodecWAV:
		if s, r, err := parseWAV(data); err == nil {
			return s, r, nil
		}
	}
	return Decode(ctx, data)
}

// probeInfo is what Probe reports.
type probeInfo struct {
	Duration   float64 // seconds
	SampleRate int     // Hz
	Bitrate    int     // bits per second (the stream's, else the container's average)
	Codec      string  // ffmpeg codec name: mp3, opus, pcm_s16le, pcm_mulaw, …
}

// Probe reports the duration, sample rate, bitrate and codec of the first audio stream in data.
func Probe(ctx context.Context, data []byte) (durationSec float64, sampleRate, bitrate int, codec string, err error) {
	var info probeInfo
	err = withTempFile(data, func(path string) error {
		info, err = probe(ctx, path)
		return err
	})
	return info.Duration, info.SampleRate, info.Bitrate, info.Codec, err
}

// probe runs ffprobe; extra arguments (e.g. "-f", "s16le") go before the input.
func probe(ctx context.Context, path string, inputArgs ...string) (probeInfo, error) {
	args := append([]string{"-v", "error", "-select_streams", "a:0",
		"-show_entries", "stream=codec_name,sample_rate,bit_rate,duration:format=duration,bit_rate",
		"-of", "json"}, inputArgs...)
	cmd := exec.CommandContext(ctx, FFprobe, append(args, path)...)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return probeInfo{}, toolError("ffprobe", ctx, err, &stderr)
	}
	// ffprobe prints numbers as strings, and omits fields it does not know.
	var res struct {
		Streams []struct {
			CodecName  string `json:"codec_name"`
			SampleRate string `json:"sample_rate"`
			BitRate    string `json:"bit_rate"`
			Duration   string `json:"duration"`
		} `json:"streams"`
		Format struct {
			Duration string `json:"duration"`
			BitRate  string `json:"bit_rate"`
		} `json:"format"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		return probeInfo{}, fmt.Errorf("audio: ffprobe output: %w", err)
	}
	if len(res.Streams) == 0 {
		return probeInfo{}, errors.New("audio: no audio stream")
	}
	s := res.Streams[0]
	info := probeInfo{Codec: s.CodecName}
	info.SampleRate, _ = strconv.Atoi(s.SampleRate)
	if info.Bitrate, _ = strconv.Atoi(s.BitRate); info.Bitrate == 0 {
		info.Bitrate, _ = strconv.Atoi(res.Format.BitRate)
	}
	if info.Duration, _ = strconv.ParseFloat(res.Format.Duration, 64); info.Duration == 0 {
		info.Duration, _ = strconv.ParseFloat(s.Duration, 64)
	}
	return info, nil
}

// MP3FrameBitrate is the CBR bitrate used for an mp3 format: f.Bitrate when MPEG audio defines
// frames of that size at f's sample rate, else the next larger one. Only mp3_48000_240 is
// affected: MPEG-1 has no 240 kbps frames, and 256 kbps CBR keeps the promised quality while
// staying constant-bitrate (streams without a Xing header need CBR for duration estimates).
func MP3FrameBitrate(f Format) int {
	table := []int{8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160} // MPEG-2, ≤ 24 kHz
	if f.SampleRate >= 32000 {
		table = []int{32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320} // MPEG-1
	}
	for _, kbps := range table {
		if kbps*1000 >= f.Bitrate {
			return kbps * 1000
		}
	}
	return table[len(table)-1] * 1000
}
