package textnorm

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Normalize rewrites text so a speech engine reads it as a person would: numbers, dates, times,
// money, percentages, units, abbreviations and symbols become words. English ("en", also the
// default for an empty lang) gets the full treatment; Spanish, French and German get numbers,
// negatives, decimals, percentages and symbols; other languages are returned unchanged.
//
// mapping has one entry per byte of out: the byte offset in text that the byte came from.
// Copied text maps byte for byte; an expansion spreads its output over the characters it replaces
// in order ("$5" → "five dollars": the first half maps to '$', the second to '5'), so mapping is
// non-decreasing and every value is the start of a character of text (or a byte inside a copied one).
func Normalize(text, lang string) (out string, mapping []int) {
	n := &normalizer{text: text, lang: baseLang(lang)}
	n.out = make([]byte, 0, len(text)+len(text)/4)
	n.mapping = make([]int, 0, cap(n.out))
	if !slices.Contains([]string{"en", "es", "fr", "de"}, n.lang) {
		for i := range len(text) {
			n.mapping = append(n.mapping, i)
		}
		return text, n.mapping
	}
	for i := 0; i < len(text); {
		i = n.step(i)
	}
	return string(n.out), n.mapping
}

// baseLang reduces "en-US", "EN_gb", "eng" to "en"; "" is English.
func baseLang(lang string) string {
	lang = strings.ToLower(lang)
	if k := strings.IndexAny(lang, "-_"); k >= 0 {
		lang = lang[:k]
	}
	switch lang {
	case "", "eng":
		return "en"
	case "spa":
		return "es"
	case "fra", "fre":
		return "fr"
	case "deu", "ger":
		return "de"
	}
	return lang
}

type normalizer struct {
	text    string
	lang    string
	out     []byte
	mapping []int
}

func (n *normalizer) put(b byte, from int) {
	n.out = append(n.out, b)
	n.mapping = append(n.mapping, from)
}

// copyRune copies the character at i unchanged and returns the index after it.
func (n *normalizer) copyRune(i int) int {
	_, size := utf8.DecodeRuneInString(n.text[i:])
	for k := range size {
		n.put(n.text[i+k], i+k)
	}
	return i + size
}

// emit writes words in place of text[from:to]. The output characters are spread evenly over the
// input characters, and spaces are added where the words would otherwise touch a letter or digit.
func (n *normalizer) emit(from, to int, words string) {
	var starts []int
	for i := from; i < to; {
		starts = append(starts, i)
		_, size := utf8.DecodeRuneInString(n.text[i:to])
		i += size
	}
	if len(starts) == 0 || words == "" {
		return
	}
	if last, _ := utf8.DecodeLastRune(n.out); isAlnum(last) {
		n.put(' ', from)
	}
	total := utf8.RuneCountInString(words)
	k := 0
	for i := 0; i < len(words); {
		_, size := utf8.DecodeRuneInString(words[i:])
		src := starts[k*len(starts)/total]
		for b := range size {
			n.put(words[i+b], src)
		}
		i += size
		k++
	}
	if next, _ := utf8.DecodeRuneInString(n.text[to:]); to < len(n.text) && isAlnum(next) {
		n.put(' ', starts[len(starts)-1])
	}
}

func isAlnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

func (n *normalizer) digitAt(i int) bool { return i < len(n.text) && isDigit(n.text[i]) }

// boundaryAt reports whether no letter or digit starts at i.
func (n *normalizer) boundaryAt(i int) bool {
	r, _ := utf8.DecodeRuneInString(n.text[i:])
	return i >= len(n.text) || !isAlnum(r)
}

func (n *normalizer) runeAt(i int) (rune, int) {
	if i >= len(n.text) {
		return 0, 0
	}
	return utf8.DecodeRuneInString(n.text[i:])
}

func (n *normalizer) prevRune(i int) rune {
	r, _ := utf8.DecodeLastRuneInString(n.text[:i])
	return r
}

// step normalizes whatever starts at i and returns where the next step starts.
func (n *normalizer) step(i int) int {
	r, size := n.runeAt(i)
	prev := n.prevRune(i)
	next, _ := n.runeAt(i + size)
	en := n.lang == "en"
	if en && (r == '(' || r >= '0' && r <= '9') && !isAlnum(prev) {
		if words, end := n.phone(i); end > i {
			n.emit(i, end, words)
			return end
		}
	}
	switch {
	case r >= '0' && r <= '9':
		if j := n.number(i, i); j > i {
			return j
		}
	case (r == '-' || r == '−') && !isAlnum(prev) && next >= '0' && next <= '9':
		if j := n.number(i, i+size); j > i {
			return j
		}
	case (r == '-' || r == '−') && en && !isAlnum(prev) && currencies[next].one != "":
		if j := n.currency(i, i+size); j > i {
			return j
		}
	case (r == '-' || r == '–') && en && unicode.IsDigit(prev) && next >= '0' && next <= '9':
		n.emit(i, i+size, "to") // a range: 10-20
		return i + size
	case en && currencies[r].one != "":
		if j := n.currency(i, i); j > i {
			return j
		}
	case en && unicode.IsLetter(r) && !isAlnum(prev):
		if j := n.abbreviation(i); j > i {
			return j
		}
		if j := n.monthDay(i); j > i {
			return j
		}
	case r == '#' && next >= '0' && next <= '9' && en:
		n.emit(i, i+size, "number")
		return i + size
	default:
		if w := symbolWords[n.lang][r]; w != "" {
			n.emit(i, i+size, w)
			return i + size
		}
	}
	return n.copyRune(i)
}

var symbolWords = map[string]map[rune]string{
	"en": {'&': "and", '@': "at", '+': "plus", '=': "equals", '%': "percent", '×': "times", '°': "degrees"},
	"es": {'&': "y", '@': "arroba", '+': "más", '=': "igual a", '%': "por ciento", '×': "por"},
	"fr": {'&': "et", '@': "arobase", '+': "plus", '=': "égal", '%': "pour cent", '×': "fois"},
	"de": {'&': "und", '@': "at", '+': "plus", '=': "gleich", '%': "Prozent", '×': "mal"},
}

// number is a scanned numeral: digit strings without separators.
type number struct {
	whole, frac string // frac is empty without a decimal part
	grouped     bool   // written with thousands separators
}

func (num number) isInt() bool { return num.frac == "" }

// one reports whether the number is exactly 1 (for singular units).
func (num number) one() bool { return num.whole == "1" && strings.Trim(num.frac, "0") == "" }

// scanNumber reads digits with optional thousands separators and decimal part at i. English uses
// 1,234.5; the other languages 1.234,5 (a '.' not followed by exactly three digits is taken as a
// decimal point too, as in 1.5).
func scanNumber(t string, i int, lang string) (number, int) {
	group, dec := byte(','), byte('.')
	if lang != "en" {
		group, dec = '.', ','
	}
	j := digitsEnd(t, i)
	num := number{whole: t[i:j]}
	if j-i <= 3 {
		for j+4 <= len(t) && t[j] == group && digitsEnd(t, j+1) == j+4 {
			num.whole += t[j+1 : j+4]
			num.grouped = true
			j += 4
		}
	}
	if j+1 < len(t) && (t[j] == dec || (t[j] == '.' && !num.grouped)) && isDigit(t[j+1]) {
		k := digitsEnd(t, j+1)
		num.frac = t[j+1 : k]
		j = k
	}
	return num, j
}

func digitsEnd(t string, i int) int {
	for i < len(t) && isDigit(t[i]) {
		i++
	}
	return i
}

// plain reads a number as a cardinal or decimal.
func (n *normalizer) plain(num number) string {
	w := cardinal(num.whole, n.lang)
	if num.frac != "" {
		w += " " + decimalWord[n.lang] + " " + digitWords(num.frac, n.lang)
	}
	return w
}

// number normalizes a numeral starting at digits (start < digits when a minus sign precedes it),
// together with what the numeral forms a unit with: dates, times, ordinals, percentages,
// currencies and measurement units.
func (n *normalizer) number(start, digits int) int {
	neg := start < digits
	if !neg && n.lang == "en" {
		for _, f := range []func(int) (string, int){n.date, n.clock} {
			if words, end := f(digits); end > digits {
				n.emit(start, end, words)
				return end
			}
		}
	}
	num, end := scanNumber(n.text, digits, n.lang)
	var words string
	if n.lang == "en" {
		words, end = n.enSuffixed(num, start, end)
	} else if j := n.skipSpace(end); j < len(n.text) && n.text[j] == '%' {
		words, end = n.plain(num)+" "+percentWord[n.lang], j+1
	}
	if words == "" {
		words = n.plain(num)
		if v := int(parseSmall(num.whole)); num.isInt() && !num.grouped && !neg && len(num.whole) == 4 {
			switch {
			case n.lang == "en" && v >= 1000 && v < 2100 && n.yearContext(start, end):
				words = enYear(v)
			case n.lang == "de":
				words = deYear(v)
			}
		}
	}
	if neg {
		words = minusWord[n.lang] + " " + words
	}
	n.emit(start, end, words)
	return end
}

// skipSpace skips one ordinary space at i.
func (n *normalizer) skipSpace(i int) int {
	if i < len(n.text) && n.text[i] == ' ' {
		return i + 1
	}
	return i
}

// enSuffixed reads an English number together with a suffix (1st, 1990s, 5 pm, 50%, 20€, 5 km);
// it returns "" when there is none.
func (n *normalizer) enSuffixed(num number, start, end int) (string, int) {
	t := n.text
	rest := t[end:]
	if num.isInt() {
		// Ordinals: 1st, 22nd, 3rd, 4th.
		if len(rest) >= 2 && n.boundaryAt(end+2) {
			switch strings.ToLower(rest[:2]) {
			case "st", "nd", "rd", "th":
				return enOrdinal(cardinal(num.whole, "en")), end + 2
			}
		}
		// Decades: 1990s, the 80s, '80s.
		if !num.grouped && strings.HasSuffix(num.whole, "0") {
			s := 0
			if strings.HasPrefix(rest, "s") {
				s = 1
			} else if strings.HasPrefix(rest, "'s") || strings.HasPrefix(rest, "’s") {
				s = len(rest[:strings.IndexByte(rest, 's')+1])
			}
			if s > 0 && n.boundaryAt(end+s) {
				v := int(parseSmall(num.whole))
				prev := n.prevRune(start)
				switch {
				case len(num.whole) == 4:
					return enPlural(enYear(v)), end + s
				case len(num.whole) == 2 && (prev == '\'' || prev == '’' || slices.Contains([]string{"the", "early", "mid", "late"}, n.prevWord(start))):
					return enPlural(enBelow100(v)), end + s
				}
			}
		}
		// Times without minutes: 5 pm, 11a.m.
		if v := parseSmall(num.whole); v >= 1 && v <= 12 && len(num.whole) <= 2 {
			if ampm, e := n.amPm(end); e > end {
				return enCardinal(v) + " " + ampm, e
			}
		}
	}
	j := n.skipSpace(end)
	if j < len(t) && t[j] == '%' {
		return n.plain(num) + " percent", j + 1
	}
	// Currency after the amount: 20€, 5 USD.
	if r, size := n.runeAt(j); currencies[r].one != "" && n.boundaryAt(j+size) {
		return money(num, currencies[r], ""), j + size
	}
	for code, cur := range currencyCodes {
		if strings.HasPrefix(t[j:], code) && n.boundaryAt(j+len(code)) {
			return money(num, cur, ""), j + len(code)
		}
	}
	// Units: 5 km, 20°C, 10s. One-letter units must touch the number ("5 m" stays "five m").
	for _, u := range units {
		if strings.HasPrefix(t[end:], u.sym) && n.boundaryAt(end+len(u.sym)) {
			return n.plain(num) + " " + u.name(num), end + len(u.sym)
		}
		if j > end && utf8.RuneCountInString(u.sym) > 1 && strings.HasPrefix(t[j:], u.sym) && n.boundaryAt(j+len(u.sym)) {
			return n.plain(num) + " " + u.name(num), j + len(u.sym)
		}
	}
	return "", end
}

type unit struct{ sym, singular, plural string }

func (u unit) name(num number) string {
	if num.one() {
		return u.singular
	}
	return u.plural
}

// units, longest symbols first so "km/h" wins over "km" and "ms" over "m".
var units = func() []unit {
	u := []unit{
		{"km/h", "kilometer per hour", "kilometers per hour"}, {"kph", "kilometer per hour", "kilometers per hour"},
		{"mph", "mile per hour", "miles per hour"}, {"m/s", "meter per second", "meters per second"},
		{"km", "kilometer", "kilometers"}, {"cm", "centimeter", "centimeters"}, {"mm", "millimeter", "millimeters"},
		{"m", "meter", "meters"}, {"mi", "mile", "miles"}, {"ft", "foot", "feet"},
		{"kg", "kilogram", "kilograms"}, {"mg", "milligram", "milligrams"}, {"g", "gram", "grams"},
		{"lbs", "pound", "pounds"}, {"lb", "pound", "pounds"}, {"oz", "ounce", "ounces"},
		{"ml", "milliliter", "milliliters"}, {"l", "liter", "liters"}, {"L", "liter", "liters"},
		{"°C", "degree Celsius", "degrees Celsius"}, {"°F", "degree Fahrenheit", "degrees Fahrenheit"},
		{"°", "degree", "degrees"},
		{"TB", "terabyte", "terabytes"}, {"GB", "gigabyte", "gigabytes"}, {"MB", "megabyte", "megabytes"},
		{"KB", "kilobyte", "kilobytes"}, {"kB", "kilobyte", "kilobytes"},
		{"GHz", "gigahertz", "gigahertz"}, {"MHz", "megahertz", "megahertz"}, {"kHz", "kilohertz", "kilohertz"},
		{"Hz", "hertz", "hertz"},
		{"ms", "millisecond", "milliseconds"}, {"sec", "second", "seconds"}, {"s", "second", "seconds"},
		{"min", "minute", "minutes"}, {"hrs", "hour", "hours"}, {"hr", "hour", "hours"}, {"h", "hour", "hours"},
	}
	slices.SortStableFunc(u, func(a, b unit) int { return len(b.sym) - len(a.sym) })
	return u
}()

type currency struct{ one, many, subOne, subMany string }

var currencies = map[rune]currency{
	'$': {"dollar", "dollars", "cent", "cents"},
	'€': {"euro", "euros", "cent", "cents"},
	'£': {"pound", "pounds", "penny", "pence"},
	'¥': {"yen", "yen", "", ""},
	'₹': {"rupee", "rupees", "paisa", "paise"},
}

var currencyCodes = map[string]currency{
	"USD": currencies['$'], "EUR": currencies['€'], "GBP": currencies['£'], "JPY": currencies['¥'], "INR": currencies['₹'],
}

// money reads an amount: "five dollars", "one dollar and fifty cents", "one point five million
// dollars".
func money(num number, cur currency, scale string) string {
	unitName := cur.many
	if num.one() && scale == "" {
		unitName = cur.one
	}
	if scale != "" || num.frac == "" || len(num.frac) != 2 || cur.subOne == "" {
		w := cardinal(num.whole, "en")
		if num.frac != "" && strings.Trim(num.frac, "0") != "" {
			w += " point " + digitWords(num.frac, "en")
		}
		if scale != "" {
			w += " " + scale
		}
		return w + " " + unitName
	}
	cents := parseSmall(num.frac)
	if num.whole == "1" {
		unitName = cur.one
	}
	var parts []string
	if num.whole != "0" || cents == 0 {
		parts = append(parts, cardinal(num.whole, "en")+" "+unitName)
	}
	if cents > 0 {
		sub := cur.subMany
		if cents == 1 {
			sub = cur.subOne
		}
		parts = append(parts, enCardinal(cents)+" "+sub)
	}
	return strings.Join(parts, " and ")
}

var scaleWords = []struct{ sym, word string }{
	{" thousand", "thousand"}, {" million", "million"}, {" billion", "billion"}, {" trillion", "trillion"},
	{"bn", "billion"}, {"tn", "trillion"}, {"k", "thousand"}, {"K", "thousand"}, {"m", "million"}, {"M", "million"},
	{"B", "billion"},
}

// currency reads money written with the symbol first ($5, -$1.50, €20, £3.2bn); start < sym
// when a minus sign precedes it.
func (n *normalizer) currency(start, sym int) int {
	r, size := n.runeAt(sym)
	j := n.skipSpace(sym + size)
	if !n.digitAt(j) {
		return start
	}
	num, end := scanNumber(n.text, j, "en")
	scale := ""
	for _, s := range scaleWords {
		if strings.HasPrefix(n.text[end:], s.sym) && n.boundaryAt(end+len(s.sym)) {
			scale, end = s.word, end+len(s.sym)
			break
		}
	}
	words := money(num, currencies[r], scale)
	if start < sym {
		words = "minus " + words
	}
	n.emit(start, end, words)
	return end
}

// Patterns tried at the start of a numeral. They must not be followed by another digit.
var (
	isoDateRE = regexp.MustCompile(`^(\d{4})-(\d{1,2})-(\d{1,2})`)
	usDateRE  = regexp.MustCompile(`^(\d{1,2})/(\d{1,2})/(\d{4})`)
	clockRE   = regexp.MustCompile(`^(\d{1,2}):(\d{2})(?::(\d{2}))?`)
	phoneRE   = regexp.MustCompile(`^(?:(?:\(\d{3}\) ?|\d{3}[-.])\d{3}[-.]\d{4}|\d{3}-\d{4})`)
)

// match runs an anchored pattern at i and returns the submatches and the end, or nil when it does
// not match or a digit (or, unless letterOK, a letter) follows.
func (n *normalizer) match(re *regexp.Regexp, i int, letterOK bool) ([]string, int) {
	// The patterns are short; a bounded window keeps each attempt O(1) on long texts.
	m := re.FindStringSubmatchIndex(n.text[i:min(len(n.text), i+32)])
	if m == nil || n.digitAt(i+m[1]) || (!letterOK && !n.boundaryAt(i+m[1])) {
		return nil, i
	}
	subs := make([]string, len(m)/2)
	for k := range subs {
		if m[2*k] >= 0 {
			subs[k] = n.text[i+m[2*k] : i+m[2*k+1]]
		}
	}
	return subs, i + m[1]
}

func atoi(s string) int { v, _ := strconv.Atoi(s); return v }

// date reads 2024-03-05 and 03/05/2024 (month first unless that is impossible) as
// "March fifth, twenty twenty-four".
func (n *normalizer) date(i int) (string, int) {
	var y, m, d int
	var end int
	if s, e := n.match(isoDateRE, i, false); s != nil {
		y, m, d, end = atoi(s[1]), atoi(s[2]), atoi(s[3]), e
	} else if s, e := n.match(usDateRE, i, false); s != nil {
		m, d, y, end = atoi(s[1]), atoi(s[2]), atoi(s[3]), e
		if m > 12 && d <= 12 {
			m, d = d, m
		}
	} else {
		return "", i
	}
	if m < 1 || m > 12 || d < 1 || d > 31 {
		return "", i
	}
	return enMonths[m] + " " + enOrdinal(enCardinal(int64(d))) + ", " + enYear(y), end
}

// clock reads 3:30, 15:05:09 and 3:30 pm.
func (n *normalizer) clock(i int) (string, int) {
	s, end := n.match(clockRE, i, true) // a letter may follow: 3:30PM
	if s == nil {
		return "", i
	}
	h, m, sec := atoi(s[1]), atoi(s[2]), atoi(s[3])
	ampm, e := n.amPm(end)
	if h > 24 || m > 59 || sec > 59 || (e == end && !n.boundaryAt(end)) {
		return "", i
	}
	words := enCardinal(int64(h))
	switch {
	case m == 0 && e > end:
	case m == 0 && h <= 12:
		words += " o'clock"
	case m == 0:
		words += " hundred"
	case m < 10:
		words += " oh " + enOnes[m]
	default:
		words += " " + enBelow100(m)
	}
	if sec > 0 {
		words += " and " + enCardinal(int64(sec)) + " seconds"
	}
	if e > end {
		words += " " + ampm
	}
	return words, e
}

// amPm matches " pm", "PM", " a.m." at i. A final period that also ends the sentence is left in
// the text.
func (n *normalizer) amPm(i int) (string, int) {
	t := n.text
	j := n.skipSpace(i)
	if j >= len(t) || !strings.ContainsRune("aApP", rune(t[j])) {
		return "", i
	}
	letter := unicode.ToLower(rune(t[j]))
	k := j + 1
	dotted := k < len(t) && t[k] == '.'
	if dotted {
		k++
	}
	if k >= len(t) || (t[k] != 'm' && t[k] != 'M') {
		return "", i
	}
	k++
	if dotted && k < len(t) && t[k] == '.' {
		if after := firstRuneAfterSpace(t, k+1); after != 0 && !unicode.IsUpper(after) {
			k++ // "5 p.m. on Monday": the period belongs to the abbreviation
		}
	}
	if !n.boundaryAt(k) {
		return "", i
	}
	return string(letter) + " m", k
}

// phone reads US-style phone numbers digit by digit: (555) 123-4567, 555-1234.
func (n *normalizer) phone(i int) (string, int) {
	s, end := n.match(phoneRE, i, false)
	if s == nil {
		return "", i
	}
	var groups []string
	for _, g := range strings.FieldsFunc(n.text[i:end], func(r rune) bool { return r < '0' || r > '9' }) {
		groups = append(groups, digitWords(g, "en"))
	}
	return strings.Join(groups, ", "), end
}

// yearContext reports whether the 4-digit number at [start, end) reads as a year: after "in",
// "since", a month…, before "AD"/"BC", or in a range of years (1939–1945).
func (n *normalizer) yearContext(start, end int) bool {
	if n.yearWordBefore(start) {
		return true
	}
	prev := n.prevWord(start)
	if p := n.prevWordStart(start); p > 0 {
		// "March 5, 2024": a day number after a month name.
		if len(prev) <= 2 && prev != "" && isDigit(prev[0]) && monthIndex(n.prevWord(p)) > 0 {
			return true
		}
		// "in 1990 and 2024": a second year.
		if prev == "and" || prev == "or" || prev == "to" || prev == "through" {
			q := n.prevWordStart(p)
			if e := digitsEnd(n.text, q); e-q == 4 && atoi(n.text[q:e]) >= 1000 && atoi(n.text[q:e]) < 2100 && n.yearWordBefore(q) {
				return true
			}
		}
	}
	t := n.text
	if rest := strings.TrimPrefix(t[end:], " "); len(rest) >= 2 {
		for _, era := range []string{"AD", "BC", "BCE", "CE", "A.D.", "B.C."} {
			if strings.HasPrefix(rest, era) && n.boundaryAt(len(t)-len(rest)+len(era)) {
				return true
			}
		}
	}
	dash := func(s string) bool { return strings.HasPrefix(s, "-") || strings.HasPrefix(s, "–") }
	if rest := t[end:]; dash(rest) {
		_, size := utf8.DecodeRuneInString(rest)
		if digitsEnd(t, end+size) == end+size+4 {
			return true
		}
	}
	if r, size := utf8.DecodeLastRuneInString(t[:start]); r == '-' || r == '–' {
		p := start - size
		if p >= 4 && digitsEnd(t, p-4) == p && (p == 4 || !isDigit(t[p-5])) {
			return true
		}
	}
	return false
}

// yearWordBefore reports whether the word before byte i introduces a year ("in", "since", a month…).
func (n *normalizer) yearWordBefore(i int) bool {
	prev := n.prevWord(i)
	return yearWords[prev] || monthIndex(prev) > 0
}

var yearWords = set("in", "since", "from", "until", "till", "by", "of", "year", "during", "before", "after",
	"around", "circa", "c", "ca", "between", "summer", "winter", "spring", "autumn", "fall", "early", "late",
	"mid", "born", "died", "founded", "established", "built", "released", "published")

// prevWordStart returns the start of the word before byte i, skipping spaces and commas. Only
// the last 32 bytes of a word are looked at, so scanning stays linear on text without spaces.
func (n *normalizer) prevWordStart(i int) int {
	t := n.text
	j := i
	for j > 0 && (t[j-1] == ' ' || t[j-1] == ',' || t[j-1] == '\n') {
		j--
	}
	for limit := j - 32; j > 0 && j > limit; {
		r, size := utf8.DecodeLastRuneInString(t[:j])
		if !isAlnum(r) && r != '.' {
			break
		}
		j -= size
	}
	return j
}

// prevWord returns the lower-cased word before byte i without trailing dots ("Dec." → "dec").
func (n *normalizer) prevWord(i int) string {
	t := n.text
	j := i
	for j > 0 && (t[j-1] == ' ' || t[j-1] == ',' || t[j-1] == '\n') {
		j--
	}
	return strings.ToLower(strings.Trim(t[n.prevWordStart(i):j], "."))
}

// monthIndex returns 1–12 for a lower-case month name or its three-letter abbreviation, else 0.
func monthIndex(w string) int {
	for m := 1; m <= 12; m++ {
		name := strings.ToLower(enMonths[m])
		if w == name || (len(w) >= 3 && strings.HasPrefix(name, w) && (len(w) == 3 || w == "sept")) {
			return m
		}
	}
	return 0
}

// monthDay reads "March 5" and "Mar. 5th" as "March fifth", keeping the month as written.
func (n *normalizer) monthDay(i int) int {
	t := n.text
	j := i
	for j < len(t) && (t[j] >= 'a' && t[j] <= 'z' || t[j] >= 'A' && t[j] <= 'Z') {
		j++
	}
	word := t[i:j]
	if len(word) < 3 || !unicode.IsUpper(rune(word[0])) || monthIndex(strings.ToLower(word)) == 0 {
		return i
	}
	if j < len(t) && t[j] == '.' {
		j++
	}
	k := n.skipSpace(j)
	if k == j || !n.digitAt(k) {
		return i
	}
	e := digitsEnd(t, k)
	if e-k > 2 || atoi(t[k:e]) < 1 || atoi(t[k:e]) > 31 {
		return i
	}
	if suf := strings.ToLower(t[e:min(e+2, len(t))]); suf == "st" || suf == "nd" || suf == "rd" || suf == "th" {
		e += 2
	}
	if !n.boundaryAt(e) || (e < len(t) && (t[e] == ':' || t[e] == '%')) {
		return i
	}
	for p := i; p < k; {
		p = n.copyRune(p)
	}
	n.emit(k, e, enOrdinal(enCardinal(int64(atoi(t[k:digitsEnd(t, k)])))))
	return e
}

type abbreviation struct {
	abbr, word string
	canEnd     bool // may also end a sentence: then a following capital keeps the period
}

var enAbbreviations = []abbreviation{
	{"Mr.", "Mister", false}, {"Mrs.", "Missus", false}, {"Ms.", "Miz", false}, {"Prof.", "Professor", false},
	{"Jr.", "Junior", true}, {"Sr.", "Senior", true}, {"Mt.", "Mount", false}, {"Gen.", "General", false},
	{"Gov.", "Governor", false}, {"Sen.", "Senator", false}, {"Capt.", "Captain", false}, {"Sgt.", "Sergeant", false},
	{"etc.", "et cetera", true}, {"e.g.", "for example", false}, {"i.e.", "that is", false},
	{"vs.", "versus", false}, {"vs", "versus", false}, {"approx.", "approximately", false},
	{"Ave.", "Avenue", true}, {"Blvd.", "Boulevard", true}, {"Rd.", "Road", true}, {"Dept.", "Department", false},
	{"Fig.", "Figure", false}, {"Inc.", "Incorporated", true}, {"Ltd.", "Limited", true}, {"Corp.", "Corporation", true},
}

// abbreviation expands a known abbreviation at i.
func (n *normalizer) abbreviation(i int) int {
	t := n.text
	rest := t[i:]
	word, abbrLen, canEnd, capped := "", 0, false, false
	for _, a := range enAbbreviations {
		if hasPrefixCap(rest, a.abbr) {
			word, abbrLen, canEnd = a.word, len(a.abbr), a.canEnd
			capped = !strings.HasPrefix(rest, a.abbr) // E.g. at a sentence start
			break
		}
	}
	// Dr. and St. read by their neighbours: after a capitalised word (Elm St.) or before a
	// lower-case one they are the street; before a name they are the title.
	street := func() bool {
		if p := n.prevWordStart(i); p < i {
			if r, _ := utf8.DecodeRuneInString(t[p:]); unicode.IsUpper(r) {
				return true
			}
		}
		return !unicode.IsUpper(firstRuneAfterSpace(t, i+3))
	}
	switch {
	case word != "":
	case hasPrefixCap(rest, "No.") || strings.HasPrefix(rest, "no."):
		// "No. 5" is "number five"; "No." before anything else is the word no.
		if j := n.skipSpace(i + 3); n.digitAt(j) {
			word, abbrLen = "number", 3
		}
	case strings.HasPrefix(rest, "Dr."):
		word, abbrLen, canEnd = "Doctor", 3, false
		if street() {
			word, canEnd = "Drive", true
		}
	case strings.HasPrefix(rest, "St."):
		word, abbrLen, canEnd = "Saint", 3, false
		if street() {
			word, canEnd = "Street", true
		}
	}
	if word == "" || !n.boundaryAt(i+abbrLen) {
		return i
	}
	end := i + abbrLen
	if canEnd && strings.HasSuffix(t[i:end], ".") {
		if after := firstRuneAfterSpace(t, end); after == 0 || unicode.IsUpper(after) {
			end-- // the period ends the sentence too: leave it in the text
		}
	}
	if capped {
		word = capitalize(word) // E.g. → For example
	}
	n.emit(i, end, word)
	return end
}

func capitalize(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[size:]
}

// hasPrefixCap reports whether s starts with prefix, or with prefix capitalised (sentence start).
func hasPrefixCap(s, prefix string) bool {
	if strings.HasPrefix(s, prefix) {
		return true
	}
	r, size := utf8.DecodeRuneInString(prefix)
	return unicode.IsLower(r) && strings.HasPrefix(s, string(unicode.ToUpper(r))+prefix[size:])
}
