package entities

import (
	"regexp"
	"strconv"
	"strings"
)

// ---- dates -----------------------------------------------------------------------------------

var months = map[string]int{
	"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7, "august": 8,
	"september": 9, "october": 10, "november": 11, "december": 12, "jan": 1, "feb": 2, "aug": 8,
	"sept": 9, "oct": 10, "nov": 11, "dec": 12,
}

// verbMonths are month names that are also verbs.
var verbMonths = map[string]bool{"march": true, "may": true}

var reNumericDate = regexp.MustCompile(`^(\d{1,2})[/.](\d{1,2})[/.](\d{2}|\d{4})$|^(\d{4})-(\d{2})-(\d{2})$`)

// day reads a day of the month at token i: "twelfth", "twenty first", "12th", "12", "twelve".
// ordinal says whether it was written or said as an ordinal.
func (d *doc) day(i int) (n int, ordinal bool) {
	w := d.low(i)
	if m := reOrdinalDigits.FindStringSubmatch(w); m != nil {
		v, _ := strconv.Atoi(m[1])
		if v >= 1 && v <= 31 {
			return 1, true
		}
		return 0, false
	}
	if v, ok := ordinals[w]; ok && v <= 31 {
		return 1, true
	}
	if (w == "twenty" || w == "thirty") && i+1 < len(d.toks) && !d.toks[i].stop {
		if v, ok := ordinals[d.low(i+1)]; ok && v < 10 && (w == "twenty" || v == 1) {
			return 2, true
		}
	}
	if v, k, ok := d.cardinal(i); ok && v >= 1 && v <= 31 && v == float64(int(v)) && k <= 2 {
		return k, false
	}
	return 0, false
}

// year reads a year at token i: "1987", "nineteen eighty seven", "two thousand and five",
// "twenty twenty four", "twenty oh five".
func (d *doc) year(i int) int {
	w := d.low(i)
	if len(w) == 4 && reWrittenNumber.MatchString(w) {
		if v, _ := strconv.Atoi(w); v >= 1000 && v <= 2099 {
			return 1
		}
		return 0
	}
	if v, k, ok := d.cardinal(i); ok && v >= 1000 && v <= 2099 {
		return k
	}
	hi := units[w]
	if w == "twenty" {
		hi = 20
	}
	if hi < 10 || d.toks[i].stop || d.toks[i].comma {
		return 0
	}
	next := d.low(i + 1)
	if next == "oh" || next == "o" {
		if u := units[d.low(i+2)]; u >= 1 && u <= 9 && !d.toks[i+1].stop {
			return 3
		}
		return 0
	}
	if next == "hundred" {
		return 2
	}
	if v, k, ok := d.cardinal(i + 1); ok && v >= 10 && v <= 99 && i+1 < len(d.toks) && !reWrittenNumber.MatchString(next) {
		return 1 + k
	}
	return 0
}

// dates finds calendar dates: "the twelfth of July nineteen eighty seven", "12th of July 1987",
// "July 12, 1987", "March 2020", "12/07/1987", "2024-01-15"; one said after "born" or "birth"
// is a dob (reported as a date when only date is wanted).
func (d *doc) dates(want Set, add adder) {
	emit := func(from, to int) {
		typ := "date"
		if d.context(from, 6, "born", "birth", "birthday", "dob") && want["dob"] {
			typ = "dob"
		}
		add(typ, d.toks[from].start, d.toks[to-1].end, prioDate)
	}
	for i := 0; i < len(d.toks); i++ {
		if reNumericDate.MatchString(d.low(i)) {
			emit(i, i+1)
			continue
		}
		// DAY [of] MONTH [YEAR]
		if n, ordinal := d.day(i); n > 0 && !d.toks[i+n-1].stop {
			j := i + n
			if d.low(j) == "of" {
				j++
			} else if !ordinal && !strings.ContainsAny(d.toks[i].raw, "0123456789") {
				n = 0 // "twelve July" is too loose; "twelve of July" or "12 July" is a date
			}
			if _, ok := months[d.low(j)]; n > 0 && ok && !d.toks[j-1].stop {
				end := j + 1
				if !d.toks[j].stop {
					end += d.year(end)
				}
				emit(i, end)
				i = end - 1
				continue
			}
		}
		// MONTH [the] DAY [YEAR] | MONTH YEAR
		if _, ok := months[d.low(i)]; ok && !d.toks[i].stop {
			j := i + 1
			if d.low(j) == "the" {
				j++
			}
			n, ordinal := d.day(j)
			if y := d.year(i + 1); y > 0 && y >= n && j == i+1 {
				n = 0 // "June twenty twenty" is a month and a year
			}
			if n > 0 {
				end := j + n
				year := 0
				if !d.toks[end-1].stop {
					year = d.year(end)
				}
				// "march"/"may" are verbs too: "they march twenty miles" is no date. Said so
				// (not capitalised), they need an ordinal day or a year.
				if verbMonths[d.low(i)] && !(d.toks[i].capital && !d.toks[i].sentStart) && !ordinal && year == 0 {
					continue
				}
				end += year
				emit(i, end)
				i = end - 1
				continue
			}
			if y := d.year(i + 1); y > 0 {
				emit(i, i+1+y)
				i += y
			}
		}
	}
}

// ---- money and ages --------------------------------------------------------------------------

var currencies = map[string]bool{
	"dollar": true, "dollars": true, "buck": true, "bucks": true, "euro": true, "euros": true,
	"pound": true, "pounds": true, "cent": true, "cents": true, "penny": true, "pence": true,
	"yen": true, "rupee": true, "rupees": true, "franc": true, "francs": true, "usd": true, "eur": true, "gbp": true,
}

var reMoney = regexp.MustCompile(`^[$£€¥]\d{1,3}(,\d{3})*(\.\d+)?$|^[$£€¥]\d+(\.\d+)?$`)

// money finds amounts: "$20", "£1,000.50", "twenty dollars", "5 euros", "two dollars and fifty
// cents", "$3 million".
func (d *doc) money(add adder) {
	for i := 0; i < len(d.toks); i++ {
		if reMoney.MatchString(d.low(i)) {
			end := i + 1
			if w := d.low(end); (w == "million" || w == "billion" || w == "thousand") && !d.toks[i].stop {
				end++
			}
			add("money", d.toks[i].start, d.toks[end-1].end, prioMoney)
			i = end - 1
			continue
		}
		_, n, ok := d.cardinal(i)
		if !ok || d.toks[i+n-1].stop || !currencies[d.low(i+n)] {
			continue
		}
		end := i + n + 1
		if cur := d.low(i + n); (cur == "pound" || cur == "pounds") && d.low(end) == "of" && !d.toks[end-1].stop {
			continue // "a pound of apples" weighs
		}
		if d.low(end) == "and" && !d.toks[end-1].stop {
			if _, k, ok := d.cardinal(end + 1); ok && (d.low(end+1+k) == "cents" || d.low(end+1+k) == "pence") {
				end += k + 2
			}
		}
		add("money", d.toks[i].start, d.toks[end-1].end, prioMoney)
		i = end - 1
	}
}

var reYearOld = regexp.MustCompile(`^\d{1,3}-years?-old$`)

// ages finds ages: "forty two years old", "a 5-year-old", "aged thirty", "age of sixty".
func (d *doc) ages(add adder) {
	for i := 0; i < len(d.toks); i++ {
		if reYearOld.MatchString(d.low(i)) {
			add("age", d.toks[i].start, d.toks[i].end, prioAge)
			continue
		}
		v, n, ok := d.cardinal(i)
		if !ok || v > 130 || v != float64(int(v)) {
			continue
		}
		after := d.low(i + n)
		prev, prev2 := d.low(i-1), d.low(i-2)
		switch {
		case (after == "years" || after == "year") && d.low(i+n+1) == "old" && !d.toks[i+n-1].stop:
			add("age", d.toks[i].start, d.toks[i+n+1].end, prioAge)
		case prev == "aged" || prev == "age" || (prev == "of" && prev2 == "age") || (prev == "is" && prev2 == "age"):
			add("age", d.toks[i].start, d.toks[i+n-1].end, prioAge)
		default:
			continue
		}
		i += n - 1
	}
}

// ---- names -----------------------------------------------------------------------------------

// nameCue are the words after which an ambiguous first name ("Will", "Grace") is taken as one.
var nameCue = [][]string{
	{"name", "is"}, {"name's"}, {"named"}, {"called"}, {"call", "me"}, {"this", "is"}, {"i'm"},
	{"mr"}, {"mrs"}, {"ms"}, {"miss"}, {"dear"}, {"hi"}, {"hello"}, {"hey"}, {"thanks"},
	{"doctor"}, {"dr"}, {"professor"}, {"uncle"}, {"aunt"}, {"my", "name"},
}

func (d *doc) cued(i int) bool {
	for _, cue := range nameCue {
		k := i - len(cue)
		if k < 0 {
			continue
		}
		match := true
		for m, w := range cue {
			if d.toks[k+m].low != w && d.toks[k+m].low != w+"." {
				match = false
				break
			}
		}
		if match && !d.toks[i-1].stop || match && (d.low(i-1) == "mr" || d.low(i-1) == "mrs" || d.low(i-1) == "dr" || d.low(i-1) == "ms") {
			return true
		}
	}
	return false
}

var titles = map[string]bool{"mr": true, "mrs": true, "ms": true, "miss": true, "dr": true, "doctor": true, "professor": true}

// isSurname says whether token j reads as a family name: a common surname, or a capitalised
// word in mid-sentence that is not a function word.
func (d *doc) isSurname(j int) bool {
	if j >= len(d.toks) {
		return false
	}
	t := d.toks[j]
	if surnames[t.low] {
		return true
	}
	return t.capital && !t.sentStart && len(t.raw) > 1 && isAlpha(t.raw) && !notSurname[t.low] && !(firstNames[t.low] && ambiguousNames[t.low])
}

func isAlpha(s string) bool {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '\'' || c == '-') {
			return false
		}
	}
	return true
}

// names finds people's names: a first name from the embedded list (one that is also an
// ordinary word, like "Will" or "Grace", only when capitalised in mid-sentence or after a cue
// such as "my name is"), then a family name if one follows; or a title with a family name
// ("Mr Smith"). "Doctor"/"Dr" before a name makes a name_medical_professional.
func (d *doc) names(want Set, add adder) {
	for i := 0; i < len(d.toks); i++ {
		t := d.toks[i]
		given, family := -1, -1
		title := -1
		if i > 0 && titles[strings.TrimSuffix(d.low(i-1), ".")] {
			title = i - 1
		}
		switch {
		case firstNames[t.low] && (!ambiguousNames[t.low] || (t.capital && !t.sentStart) || d.cued(i)):
			given = i
			if !t.stop && !t.comma && d.isSurname(i+1) {
				family = i + 1
			}
		case title >= 0 && (surnames[t.low] || t.capital && isAlpha(t.raw) && !notSurname[t.low]):
			family = i
		default:
			continue
		}
		first, last := given, family
		if first < 0 {
			first = family
		}
		if last < 0 {
			last = given
		}
		medical := title >= 0 && (d.low(title) == "doctor" || strings.TrimSuffix(d.low(title), ".") == "dr")
		switch {
		case medical && want["name_medical_professional"]:
			add("name_medical_professional", d.toks[title].start, d.toks[last].end, prioName)
		case want["name"]:
			add("name", d.toks[first].start, d.toks[last].end, prioName)
		default:
			if given >= 0 {
				add("name_given", d.toks[given].start, d.toks[given].end, prioName)
			}
			if family >= 0 {
				add("name_family", d.toks[family].start, d.toks[family].end, prioName)
			}
		}
		i = last
	}
}

// ---- offensive language ----------------------------------------------------------------------

// offensive finds words of the two offensive-language lists.
func (d *doc) offensive(add adder) {
	for _, t := range d.toks {
		w := strings.Trim(t.low, "*")
		switch {
		case veryOffensive[w]:
			add("very_offensive_language", t.start, t.end, prioOffensive)
		case lessOffensive[w]:
			add("less_offensive_language", t.start, t.end, prioOffensive)
		}
	}
}
