package entities

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Entity is one entity found in a text: its text, type and position. StartChar and EndChar
// count characters (runes) from the start of the text, end exclusive, as the API reports them.
type Entity struct {
	Text      string `json:"text"`
	Type      string `json:"entity_type"`
	StartChar int    `json:"start_char"`
	EndChar   int    `json:"end_char"`
	start     int    // byte offsets into the text
	end       int
}

// Bytes gives the entity's position as byte offsets into the text it was found in.
func (e Entity) Bytes() (start, end int) { return e.start, e.end }

// token is one whitespace-separated word of the text, with surrounding punctuation trimmed off.
type token struct {
	raw        string // as written, punctuation trimmed
	low        string // lower case
	start, end int    // byte offsets of raw in the text
	capital    bool   // starts with an upper-case letter
	sentStart  bool   // first word of a sentence
	stop       bool   // followed by sentence-ending punctuation
	comma      bool   // followed by a comma (or ; :)
}

type doc struct {
	text string
	toks []token
}

func tokenize(text string) *doc {
	d := &doc{text: text}
	sentStart := true
	i := 0
	for i < len(text) {
		for i < len(text) && isSpace(text[i]) {
			i++
		}
		j := i
		for j < len(text) && !isSpace(text[j]) {
			j++
		}
		if j == i {
			break
		}
		s, e := i, j
		for s < e && strings.ContainsRune(`"'([{<`, rune(text[s])) {
			s++
		}
		for e > s && strings.ContainsRune(`.,;:!?"')]}>`, rune(text[e-1])) {
			e--
		}
		trail := text[e:j]
		if s < e {
			r, _ := utf8.DecodeRuneInString(text[s:e])
			t := token{raw: text[s:e], low: strings.ToLower(text[s:e]), start: s, end: e, capital: unicode.IsUpper(r), sentStart: sentStart}
			t.stop = strings.ContainsAny(trail, ".!?")
			t.comma = strings.ContainsAny(trail, ",;:")
			d.toks = append(d.toks, t)
			sentStart = t.stop
		}
		i = j
	}
	return d
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (d *doc) low(i int) string {
	if i < 0 || i >= len(d.toks) {
		return ""
	}
	return d.toks[i].low
}

// candidate is a found entity before the caller's selection and overlaps are applied.
type candidate struct {
	typ        string
	start, end int // byte offsets
	prio       int // higher wins an overlap
}

// Detect finds the entities of the types in want in text, in order of position, none
// overlapping another (an overlap keeps the more specific finding: an email over the name in
// it, a card number over a phone number).
func Detect(text string, want Set) []Entity {
	if len(want) == 0 {
		return nil
	}
	d := tokenize(text)
	var cands []candidate
	add := func(typ string, s, e, prio int) {
		if want[typ] && s < e {
			cands = append(cands, candidate{typ, s, e, prio})
		}
	}
	d.emails(add)
	d.urls(add)
	d.ips(add)
	d.digitRuns(add)
	d.dates(want, add)
	d.money(add)
	d.ages(add)
	d.names(want, add)
	d.offensive(add)

	sort.SliceStable(cands, func(a, b int) bool {
		if cands[a].prio != cands[b].prio {
			return cands[a].prio > cands[b].prio
		}
		return cands[a].end-cands[a].start > cands[b].end-cands[b].start
	})
	var kept []candidate
	for _, c := range cands {
		free := true
		for _, k := range kept {
			if c.start < k.end && k.start < c.end {
				free = false
				break
			}
		}
		if free {
			kept = append(kept, c)
		}
	}
	sort.Slice(kept, func(a, b int) bool { return kept[a].start < kept[b].start })
	out := make([]Entity, 0, len(kept))
	for _, c := range kept {
		out = append(out, Entity{
			Text: text[c.start:c.end], Type: c.typ,
			StartChar: utf8.RuneCountInString(text[:c.start]), EndChar: utf8.RuneCountInString(text[:c.end]),
			start: c.start, end: c.end,
		})
	}
	return out
}

// Priorities of overlapping findings.
const (
	prioOffensive = iota
	prioName
	prioAge
	prioMoney
	prioDate
	prioPhone
	prioSSN
	prioCard
	prioIP
	prioURL
	prioEmail
)

type adder func(typ string, start, end, prio int)

// ---- numbers -------------------------------------------------------------------------------

var digitWords = map[string]string{
	"zero": "0", "oh": "0", "o": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5",
	"six": "6", "seven": "7", "eight": "8", "nine": "9",
}

var units = map[string]int{
	"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
	"nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
	"sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}

var tens = map[string]int{
	"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
}

var ordinals = map[string]int{
	"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
	"ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14,
	"fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19,
	"twentieth": 20, "thirtieth": 30,
}

var (
	reWrittenNumber = regexp.MustCompile(`^\d{1,3}(,\d{3})+(\.\d+)?$|^\d+(\.\d+)?$`)
	reDigitGroup    = regexp.MustCompile(`^\+?\d+(-\d+)*$`)
	reOrdinalDigits = regexp.MustCompile(`^(\d{1,2})(st|nd|rd|th)$`)
)

// cardinal reads a number at token i, written ("42", "1,000.50") or in words ("forty two",
// "three hundred and five", "twenty-one"): its value and how many tokens it took.
func (d *doc) cardinal(i int) (float64, int, bool) {
	if i >= len(d.toks) {
		return 0, 0, false
	}
	if w := d.toks[i].low; reWrittenNumber.MatchString(w) {
		v, err := strconv.ParseFloat(strings.ReplaceAll(w, ",", ""), 64)
		return v, 1, err == nil
	}
	total, current, n := 0, 0, 0
	last := "" // unit, teen, tens, scale
	any := false
	for j := i; j < len(d.toks); j++ {
		parts := strings.Split(d.toks[j].low, "-")
		ok := true
		for _, w := range parts {
			switch {
			case w == "a" && !any && j+1 < len(d.toks) && (d.toks[j+1].low == "hundred" || d.toks[j+1].low == "thousand"):
				current, last = 1, "unit"
			case tens[w] > 0 && (last == "" || last == "scale"):
				current += tens[w]
				last = "tens"
			case units[w] > 0 || w == "zero":
				u := units[w]
				switch {
				case last == "" || last == "scale":
					current += u
				case last == "tens" && u < 10 && u > 0:
					current += u
				default:
					ok = false
				}
				if ok {
					if u >= 10 {
						last = "teen"
					} else {
						last = "unit"
					}
				}
			case w == "hundred" && any && current > 0 && current < 100:
				current *= 100
				last = "scale"
			case (w == "thousand" || w == "million" || w == "billion") && any:
				scale := map[string]int{"thousand": 1000, "million": 1000000, "billion": 1000000000}[w]
				total += max(current, 1) * scale
				current, last = 0, "scale"
			case w == "and" && last == "scale" && j+1 < len(d.toks) && isNumberWord(d.toks[j+1].low):
				// "three hundred and five"
			default:
				ok = false
			}
			if !ok {
				break
			}
			any = true
		}
		if !ok {
			break
		}
		n = j - i + 1
		if d.toks[j].stop || d.toks[j].comma {
			break
		}
	}
	if n == 0 {
		return 0, 0, false
	}
	if d.toks[i+n-1].low == "and" {
		n--
	}
	return float64(total + current), n, true
}

func isNumberWord(w string) bool {
	_, u := units[w]
	return u || tens[w] > 0 || w == "hundred" || w == "thousand"
}

// digitsAt reads spoken or written digits at token i: a digit word ("four", "oh" after the
// first), "double five", "triple oh", or a written group ("4111", "555-1234", "+44").
func (d *doc) digitsAt(i int, first bool) (digits string, n int, written bool) {
	if i >= len(d.toks) {
		return "", 0, false
	}
	w := d.toks[i].low
	if reDigitGroup.MatchString(w) {
		return strings.NewReplacer("-", "", "+", "").Replace(w), 1, true
	}
	if (w == "double" || w == "triple") && i+1 < len(d.toks) && !d.toks[i].stop {
		if g, ok := digitWords[d.toks[i+1].low]; ok && d.toks[i+1].low != "o" {
			if w == "double" {
				return g + g, 2, false
			}
			return g + g + g, 2, false
		}
	}
	if g, ok := digitWords[w]; ok && (!first || (w != "oh" && w != "o")) {
		return g, 1, false
	}
	return "", 0, false
}

// digitRun is a sequence of digits read aloud or written in groups.
type digitRun struct {
	from, to int    // tokens [from, to)
	digits   string // all digits
	groups   []int  // the digits each written group holds (none when spoken)
	plus     bool   // started with "+"
}

// digitRuns finds card numbers (Luhn-checked), social security numbers and phone numbers.
func (d *doc) digitRuns(add adder) {
	for i := 0; i < len(d.toks); {
		run := digitRun{from: i}
		j := i
		for j < len(d.toks) {
			g, n, written := d.digitsAt(j, j == i)
			if n == 0 {
				if j > i && (d.toks[j].low == "dash" || d.toks[j].low == "hyphen") && j+1 < len(d.toks) {
					if _, n2, _ := d.digitsAt(j+1, false); n2 > 0 {
						j++
						continue
					}
				}
				break
			}
			if written {
				for _, part := range strings.Split(strings.TrimPrefix(d.toks[j].low, "+"), "-") {
					run.groups = append(run.groups, len(part))
				}
				run.plus = run.plus || (j == i && strings.HasPrefix(d.toks[j].low, "+"))
			}
			run.digits += g
			j += n
			if d.toks[j-1].comma {
				break
			}
		}
		if j == i {
			i++
			continue
		}
		run.to = j
		d.classifyDigits(run, add)
		i = j
	}
}

func (d *doc) classifyDigits(r digitRun, add adder) {
	s, e := d.toks[r.from].start, d.toks[r.to-1].end
	if s > 0 && d.text[s-1] == '(' && strings.Contains(d.text[s:e], ")") { // "(415) 555-0123"
		s--
	}
	n := len(r.digits)
	spoken := len(r.groups) == 0
	switch {
	case n >= 13 && n <= 19 && Luhn(r.digits):
		add("credit_card", s, e, prioCard)
	case n == 9 && (equalInts(r.groups, []int{3, 2, 4}) || d.context(r.from, 8, "social", "ssn", "security")):
		add("ssn", s, e, prioSSN)
	case n == 10 && (spoken || len(r.groups) > 1 || d.context(r.from, 8, phoneWords...)),
		n == 11 && r.digits[0] == '1',
		n >= 11 && n <= 13 && r.plus,
		n == 7 && (equalInts(r.groups, []int{3, 4}) || d.context(r.from, 8, phoneWords...)):
		add("phone_number", s, e, prioPhone)
	}
}

var phoneWords = []string{"phone", "call", "number", "cell", "mobile", "dial", "reach", "text", "fax", "telephone"}

// context says whether one of the words occurs among the n tokens before token i.
func (d *doc) context(i, n int, words ...string) bool {
	for j := max(0, i-n); j < i; j++ {
		for _, w := range words {
			if d.toks[j].low == w || strings.HasPrefix(d.toks[j].low, w+"'") {
				return true
			}
		}
	}
	return false
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Luhn says whether digits pass the Luhn checksum of card numbers.
func Luhn(digits string) bool {
	sum, double := 0, false
	for i := len(digits) - 1; i >= 0; i-- {
		c := digits[i]
		if c < '0' || c > '9' {
			return false
		}
		v := int(c - '0')
		if double {
			v *= 2
			if v > 9 {
				v -= 9
			}
		}
		sum += v
		double = !double
	}
	return len(digits) > 1 && sum%10 == 0
}

// ---- emails, URLs, IP addresses --------------------------------------------------------------

var (
	reEmail = regexp.MustCompile(`^[a-z0-9][a-z0-9._%+-]*@[a-z0-9-]+(\.[a-z0-9-]+)*\.[a-z]{2,}$`)
	reURL   = regexp.MustCompile(`^(https?://[^\s]+|www\.[a-z0-9-]+(\.[a-z0-9-]+)+(/[^\s]*)?|[a-z0-9-]+(\.[a-z0-9-]+)*\.(` + tldPattern + `)(/[^\s]*)?)$`)
	reIPv4  = regexp.MustCompile(`^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$`)
)

const tldPattern = `com|org|net|edu|gov|io|co|uk|us|de|fr|info|biz|me|ai|app|dev|ca|au|eu|nl|es|it|ch|se|tv|xyz|ie|nz|jp|in`

var tlds = func() map[string]bool {
	m := map[string]bool{}
	for _, t := range strings.Split(tldPattern, "|") {
		m[t] = true
	}
	return m
}()

// notLocalPart are words that stand before "at" in speech without being an email's user name
// ("look at google dot com" names a site, not an address).
var notLocalPart = map[string]bool{
	"look": true, "me": true, "us": true, "him": true, "her": true, "them": true, "it": true, "you": true,
	"i": true, "we": true, "they": true, "is": true, "are": true, "was": true, "be": true, "stay": true,
	"live": true, "lives": true, "work": true, "works": true, "meet": true, "arrive": true, "here": true,
	"there": true, "that": true, "this": true, "what": true, "and": true, "or": true, "the": true, "a": true,
	"find": true, "online": true, "available": true, "site": true, "website": true, "page": true,
}

func isLabel(w string) bool {
	if w == "" || w == "dot" || w == "at" {
		return false
	}
	for _, c := range w {
		if !unicode.IsLetter(c) && !unicode.IsDigit(c) && c != '-' {
			return false
		}
	}
	return true
}

// spokenDomain reads "example dot com" (labels joined by "dot", the last a top-level domain)
// starting at token i; it returns the index past it, or i.
func (d *doc) spokenDomain(i int) int {
	j := i
	if !isLabel(d.low(j)) || d.toks[j].stop || d.toks[j].comma {
		return i
	}
	end := i
	for d.low(j+1) == "dot" && isLabel(d.low(j+2)) && !d.toks[j].stop && !d.toks[j+1].stop {
		j += 2
		if tlds[d.low(j)] {
			end = j + 1
		}
		if d.toks[j].stop || d.toks[j].comma {
			break
		}
	}
	return end
}

// emails finds written addresses and spoken ones: "john at example dot com",
// "john dot smith at mail dot example dot org", "j underscore doe at example dot net".
func (d *doc) emails(add adder) {
	for i, t := range d.toks {
		if reEmail.MatchString(t.low) {
			add("email_address", t.start, t.end, prioEmail)
			continue
		}
		if t.low != "at" || i == 0 || t.stop {
			continue
		}
		end := d.spokenDomain(i + 1)
		if end == i+1 {
			continue
		}
		// The user name: a word, joined to earlier words by dot, underscore or dash.
		k := i - 1
		if !isLabel(d.low(k)) || notLocalPart[d.low(k)] || d.toks[k].stop || d.toks[k].comma {
			continue
		}
		for k >= 2 && (d.low(k-1) == "dot" || d.low(k-1) == "underscore" || d.low(k-1) == "dash") && isLabel(d.low(k-2)) && !d.toks[k-2].stop && !d.toks[k-2].comma {
			k -= 2
		}
		add("email_address", d.toks[k].start, d.toks[end-1].end, prioEmail)
	}
}

// urls finds written addresses ("https://…", "www.example.com", "example.org/path") and spoken
// ones ("www dot example dot com slash pricing").
func (d *doc) urls(add adder) {
	for i := 0; i < len(d.toks); i++ {
		t := d.toks[i]
		if !strings.Contains(t.low, "@") && reURL.MatchString(t.low) && !reIPv4.MatchString(t.low) && strings.ContainsAny(t.low, "abcdefghijklmnopqrstuvwxyz") {
			add("url", t.start, t.end, prioURL)
			continue
		}
		end := d.spokenDomain(i)
		if end == i {
			continue
		}
		for d.low(end) == "slash" && isLabel(d.low(end+1)) && !d.toks[end-1].stop {
			end += 2
		}
		add("url", t.start, d.toks[end-1].end, prioURL)
		i = end - 1
	}
}

// ips finds IPv4 addresses, written or spoken ("one nine two dot one six eight dot one dot one",
// "ten point zero point zero point one").
func (d *doc) ips(add adder) {
	for i, t := range d.toks {
		if m := reIPv4.FindStringSubmatch(t.low); m != nil {
			ok := true
			for _, g := range m[1:] {
				if v, _ := strconv.Atoi(g); v > 255 {
					ok = false
				}
			}
			if ok {
				add("ip_address", t.start, t.end, prioIP)
			}
			continue
		}
		j, groups := i, 0
		for groups < 4 {
			n := d.octet(j)
			if n == 0 {
				break
			}
			groups++
			j += n
			if groups < 4 {
				if (d.low(j) != "dot" && d.low(j) != "point") || d.toks[j-1].stop {
					break
				}
				j++
			}
		}
		if groups == 4 {
			add("ip_address", t.start, d.toks[j-1].end, prioIP)
		}
	}
}

// octet reads 0–255 at token i as up to three digit words or a number: the tokens it took.
func (d *doc) octet(i int) int {
	digits, n := "", 0
	for n < 3 {
		g, k, _ := d.digitsAt(i+n, n == 0)
		if k != 1 || len(g) != 1 {
			break
		}
		digits += g
		n++
	}
	if n > 1 {
		v, _ := strconv.Atoi(digits)
		if v <= 255 {
			return n
		}
		return 0
	}
	if v, k, ok := d.cardinal(i); ok && v <= 255 && v == float64(int(v)) {
		return k
	}
	return 0
}
