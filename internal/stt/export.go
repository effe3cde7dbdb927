package stt

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"strings"

	docx "github.com/fumiama/go-docx"
	"github.com/go-pdf/fpdf"
)

// ExportOptions is one entry of additional_formats (the API's ExportOptions, discriminated by
// Format). Nil fields take the format's defaults (see defaults).
type ExportOptions struct {
	Format                 string   `json:"format"`
	IncludeSpeakers        *bool    `json:"include_speakers"`
	IncludeTimestamps      *bool    `json:"include_timestamps"`
	SegmentOnSilenceLonger *float64 `json:"segment_on_silence_longer_than_s"`
	MaxSegmentDuration     *float64 `json:"max_segment_duration_s"`
	MaxSegmentChars        *int     `json:"max_segment_chars"`
	MaxCharactersPerLine   *int     `json:"max_characters_per_line"`
}

// UnmarshalJSON reads an export's options under the reference's snake_case names and under the
// camelCase ones the official JavaScript SDK sends: it passes additional_formats through as
// written (`{"format":"srt","includeSpeakers":true}`), not through its snake_case serializer.
// Where both spellings of one option are given, the snake_case one wins.
func (o *ExportOptions) UnmarshalJSON(data []byte) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return err
	}
	snake := make(map[string]json.RawMessage, len(fields))
	for k, v := range fields {
		if s := snakeCase(k); s != k {
			if _, given := fields[s]; given {
				continue
			}
			k = s
		}
		snake[k] = v
	}
	norm, err := json.Marshal(snake)
	if err != nil {
		return err
	}
	type plain ExportOptions // without this method
	return json.Unmarshal(norm, (*plain)(o))
}

// snakeCase turns a camelCase name into snake_case ("maxSegmentDurationS" →
// "max_segment_duration_s"); other names come back as they are.
func snakeCase(name string) string {
	var b strings.Builder
	for i, r := range name {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// ExportFormats are the formats additional_formats accepts.
var ExportFormats = []string{"segmented_json", "docx", "pdf", "txt", "html", "srt"}

// exportSpec is an export's options with the reference's defaults filled in.
type exportSpec struct {
	speakers, timestamps bool
	silence, maxDuration float64 // 0 = no limit
	maxChars, lineChars  int     // 0 = no limit
}

func (o ExportOptions) spec() exportSpec {
	s := exportSpec{speakers: true, timestamps: true}
	switch o.Format {
	case "srt":
		s = exportSpec{speakers: false, timestamps: true, silence: 0.8, maxDuration: 4, maxChars: 84, lineChars: 42}
	case "txt":
		s.lineChars = 100
	}
	if o.IncludeSpeakers != nil {
		s.speakers = *o.IncludeSpeakers
	}
	if o.IncludeTimestamps != nil {
		s.timestamps = *o.IncludeTimestamps
	}
	if o.SegmentOnSilenceLonger != nil {
		s.silence = *o.SegmentOnSilenceLonger
	}
	if o.MaxSegmentDuration != nil {
		s.maxDuration = *o.MaxSegmentDuration
	}
	if o.MaxSegmentChars != nil {
		s.maxChars = *o.MaxSegmentChars
	}
	if o.MaxCharactersPerLine != nil {
		s.lineChars = *o.MaxCharactersPerLine
	}
	return s
}

// segment is a run of words that an export shows together (a subtitle, a paragraph).
type segment struct {
	Text    string  `json:"text"`
	Start   float64 `json:"start_time"`
	End     float64 `json:"end_time"`
	Speaker string  `json:"speaker_id,omitempty"`
	Words   []Word  `json:"words"`
}

// segments groups t's words: a new segment starts at a change of speaker, after a pause longer
// than spec.silence, or where the segment would grow past spec.maxDuration or spec.maxChars.
// Without any of those limits a segment is a sentence.
func segments(t *Transcript, s exportSpec) []segment {
	var out []segment
	var cur *segment
	for _, w := range t.Words {
		if w.Type != "word" {
			continue
		}
		start, end := deref(w.Start), deref(w.End)
		speaker := ""
		if w.SpeakerID != nil {
			speaker = *w.SpeakerID
		}
		split := cur == nil || speaker != cur.Speaker ||
			s.silence > 0 && start-cur.End > s.silence ||
			s.maxDuration > 0 && end-cur.Start > s.maxDuration ||
			s.maxChars > 0 && len(cur.Text)+1+len(w.Text) > s.maxChars ||
			s.silence == 0 && s.maxDuration == 0 && s.maxChars == 0 && strings.HasSuffix(cur.Text, ".")
		if split {
			out = append(out, segment{Start: start, Speaker: speaker})
			cur = &out[len(out)-1]
		} else {
			cur.Text += " "
		}
		cur.Text += w.Text
		cur.End = end
		cur.Words = append(cur.Words, w)
	}
	return out
}

func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

// Export renders t in the format o asks for. docx and pdf are binary and come base64-encoded.
func Export(t *Transcript, o ExportOptions) (AdditionalFormat, error) {
	s := o.spec()
	segs := segments(t, s)
	f := AdditionalFormat{RequestedFormat: o.Format, FileExtension: o.Format}
	switch o.Format {
	case "txt":
		f.ContentType = "text/plain"
		f.Content = exportTxt(segs, s)
	case "srt":
		f.ContentType = "application/x-subrip"
		f.Content = exportSRT(segs, s)
	case "html":
		f.ContentType = "text/html"
		f.Content = exportHTML(segs, s)
	case "segmented_json":
		f.ContentType, f.FileExtension = "application/json", "json"
		if !s.timestamps || !s.speakers {
			for i := range segs {
				if !s.speakers {
					segs[i].Speaker = ""
				}
			}
		}
		data, err := json.Marshal(struct {
			Segments []segment `json:"segments"`
		}{nonNil(segs)})
		if err != nil {
			return f, err
		}
		f.Content = string(data)
	case "docx":
		data, err := exportDocx(segs, s)
		if err != nil {
			return f, err
		}
		f.ContentType = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
		f.IsBase64Encoded, f.Content = true, base64.StdEncoding.EncodeToString(data)
	case "pdf":
		data, err := exportPDF(segs, s)
		if err != nil {
			return f, err
		}
		f.ContentType = "application/pdf"
		f.IsBase64Encoded, f.Content = true, base64.StdEncoding.EncodeToString(data)
	default:
		return f, fmt.Errorf("stt: unknown export format %q", o.Format)
	}
	return f, nil
}

func nonNil(s []segment) []segment {
	if s == nil {
		return []segment{}
	}
	return s
}

// label is a segment's heading line in the text exports: its speaker and times, as asked.
func label(sg segment, s exportSpec, clock func(float64) string) string {
	var parts []string
	if s.speakers && sg.Speaker != "" {
		parts = append(parts, sg.Speaker)
	}
	if s.timestamps {
		parts = append(parts, "["+clock(sg.Start)+" - "+clock(sg.End)+"]")
	}
	return strings.Join(parts, " ")
}

func exportTxt(segs []segment, s exportSpec) string {
	var b strings.Builder
	for _, sg := range segs {
		if l := label(sg, s, clockDot); l != "" {
			b.WriteString(l + "\n")
		}
		for _, line := range wrap(sg.Text, s.lineChars) {
			b.WriteString(line + "\n")
		}
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

func exportSRT(segs []segment, s exportSpec) string {
	var b strings.Builder
	for i, sg := range segs {
		fmt.Fprintf(&b, "%d\n%s --> %s\n", i+1, clockComma(sg.Start), clockComma(sg.End))
		text := sg.Text
		if s.speakers && sg.Speaker != "" {
			text = "[" + sg.Speaker + "] " + text
		}
		for _, line := range wrap(text, s.lineChars) {
			b.WriteString(line + "\n")
		}
		b.WriteString("\n")
	}
	return b.String()
}

func exportHTML(segs []segment, s exportSpec) string {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Transcript</title></head><body>\n")
	for _, sg := range segs {
		b.WriteString("<p>")
		if l := label(sg, s, clockDot); l != "" {
			b.WriteString("<strong>" + html.EscapeString(l) + "</strong><br>")
		}
		b.WriteString(html.EscapeString(sg.Text) + "</p>\n")
	}
	b.WriteString("</body></html>\n")
	return b.String()
}

func exportDocx(segs []segment, s exportSpec) ([]byte, error) {
	doc := docx.New().WithDefaultTheme()
	for _, sg := range segs {
		p := doc.AddParagraph()
		if l := label(sg, s, clockDot); l != "" {
			p.AddText(l).Bold()
			p.AddText("\n")
		}
		p.AddText(sg.Text)
	}
	var buf bytes.Buffer
	if _, err := doc.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func exportPDF(segs []segment, s exportSpec) ([]byte, error) {
	pdf := fpdf.New("P", "mm", "A4", "")
	pdf.SetTitle("Transcript", true)
	pdf.AddPage()
	// The core fonts speak Windows-1252; the translator maps what it can of UTF-8 onto it.
	tr := pdf.UnicodeTranslatorFromDescriptor("")
	for _, sg := range segs {
		if l := label(sg, s, clockDot); l != "" {
			pdf.SetFont("Helvetica", "B", 10)
			pdf.MultiCell(0, 5, tr(l), "", "L", false)
		}
		pdf.SetFont("Helvetica", "", 11)
		pdf.MultiCell(0, 6, tr(sg.Text), "", "L", false)
		pdf.Ln(3)
	}
	var buf bytes.Buffer
	if err := pdf.Output(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// wrap breaks text into lines of at most n bytes at spaces (n <= 0: one line).
func wrap(text string, n int) []string {
	if n <= 0 || len(text) <= n {
		return []string{text}
	}
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > n {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(lines, line)
}

// clockComma is an SRT time (00:01:02,345); clockDot the same with a dot.
func clockComma(sec float64) string { return strings.Replace(clockDot(sec), ".", ",", 1) }

func clockDot(sec float64) string {
	ms := int64(sec*1000 + 0.5)
	return fmt.Sprintf("%02d:%02d:%02d.%03d", ms/3_600_000, ms/60_000%60, ms/1000%60, ms%1000)
}
