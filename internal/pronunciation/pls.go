package pronunciation

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// MaxPLSBytes bounds an uploaded PLS file.
const MaxPLSBytes = 2 << 20

// plsLexicon is W3C PLS 1.0 (https://www.w3.org/TR/pronunciation-lexicon/).
type plsLexicon struct {
	XMLName  xml.Name    `xml:"lexicon"`
	Alphabet string      `xml:"alphabet,attr"`
	Lexemes  []plsLexeme `xml:"lexeme"`
}

type plsLexeme struct {
	Graphemes []string     `xml:"grapheme"`
	Aliases   []string     `xml:"alias"`
	Phonemes  []plsPhoneme `xml:"phoneme"`
}

type plsPhoneme struct {
	Alphabet string `xml:"alphabet,attr"`
	Text     string `xml:",chardata"`
}

// ParsePLS reads a PLS lexicon as rules (one a grapheme; a lexeme's first alias, else its
// first phoneme). Documents with any DOCTYPE or ENTITY declaration are refused outright:
// encoding/xml would not expand them, but there is no reason for a lexicon to have one, and
// refusing leaves no room for entity expansion or external entities.
func ParsePLS(data []byte) ([]Rule, error) {
	if len(data) > MaxPLSBytes {
		return nil, fmt.Errorf("the file is larger than %d bytes", MaxPLSBytes)
	}
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = true
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("not well-formed XML: %v", err)
		}
		if _, ok := tok.(xml.Directive); ok {
			return nil, errors.New("DOCTYPE and ENTITY declarations are not allowed in a lexicon")
		}
	}
	var lex plsLexicon
	if err := xml.Unmarshal(data, &lex); err != nil {
		return nil, fmt.Errorf("not a PLS lexicon: %v", err)
	}
	if lex.XMLName.Local != "lexicon" {
		return nil, errors.New("not a PLS lexicon: the root element must be <lexicon>")
	}
	var rules []Rule
	for i, lx := range lex.Lexemes {
		var proto Rule
		switch {
		case len(lx.Aliases) > 0:
			a := strings.TrimSpace(lx.Aliases[0])
			proto = Rule{Type: "alias", Alias: &a}
		case len(lx.Phonemes) > 0:
			p := strings.TrimSpace(lx.Phonemes[0].Text)
			alpha := lx.Phonemes[0].Alphabet
			if alpha == "" {
				alpha = lex.Alphabet
			}
			proto = Rule{Type: "phoneme", Phoneme: &p, Alphabet: &alpha}
		default:
			return nil, fmt.Errorf("lexeme %d has neither an alias nor a phoneme", i+1)
		}
		if len(lx.Graphemes) == 0 {
			return nil, fmt.Errorf("lexeme %d has no grapheme", i+1)
		}
		for _, g := range lx.Graphemes {
			r := proto
			r.StringToReplace = strings.TrimSpace(g)
			rules = append(rules, r)
		}
	}
	return rules, nil
}

// RenderPLS writes rules as a PLS lexicon. Rules are case-sensitive whole words in PLS; the
// flags have no PLS form and are not written.
func RenderPLS(rules []Rule, lang string) []byte {
	var b bytes.Buffer
	b.WriteString(xml.Header)
	b.WriteString(`<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"` +
		` xsi:schemaLocation="http://www.w3.org/2005/01/pronunciation-lexicon http://www.w3.org/TR/2007/CR-pronunciation-lexicon-20071212/pls.xsd"` +
		` alphabet="ipa" xml:lang="` + esc(lang) + `">` + "\n")
	for _, r := range rules {
		b.WriteString("  <lexeme>\n    <grapheme>" + esc(r.StringToReplace) + "</grapheme>\n")
		switch {
		case r.Alias != nil:
			b.WriteString("    <alias>" + esc(*r.Alias) + "</alias>\n")
		case r.Phoneme != nil && r.Alphabet != nil:
			b.WriteString(`    <phoneme alphabet="` + esc(*r.Alphabet) + `">` + esc(*r.Phoneme) + "</phoneme>\n")
		}
		b.WriteString("  </lexeme>\n")
	}
	b.WriteString("</lexicon>\n")
	return b.Bytes()
}

func esc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}
