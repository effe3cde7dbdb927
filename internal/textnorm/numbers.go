package textnorm

import (
	"strconv"
	"strings"
)

// Number words for the supported languages. Cardinals take a decimal digit string (no sign or
// separators) so arbitrarily long inputs are safe: anything longer than the named scales, or with
// leading zeros ("007"), is read digit by digit.

const maxCardinalDigits = 15 // up to 999 trillion

var enOnes = []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
	"eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"}
var enTens = []string{"", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"}
var enScales = []string{"", "thousand", "million", "billion", "trillion"}

// parseSmall parses a digit string that fits in an int64 (callers check the length).
func parseSmall(digits string) int64 {
	n, _ := strconv.ParseInt(digits, 10, 64)
	return n
}

// readableAsCardinal reports whether digits should be read as one number rather than digit by digit.
func readableAsCardinal(digits string) bool {
	return len(digits) > 0 && len(digits) <= maxCardinalDigits && (len(digits) == 1 || digits[0] != '0')
}

// digitWords reads each digit: "042" → "zero four two".
func digitWords(digits, lang string) string {
	words := make([]string, 0, len(digits))
	for _, d := range digits {
		words = append(words, cardinalInt(int64(d-'0'), lang))
	}
	return strings.Join(words, " ")
}

// cardinal reads a digit string as a number in lang.
func cardinal(digits, lang string) string {
	if !readableAsCardinal(digits) {
		return digitWords(digits, lang)
	}
	return cardinalInt(parseSmall(digits), lang)
}

func cardinalInt(n int64, lang string) string {
	switch lang {
	case "es":
		return esCardinal(n, false)
	case "fr":
		return frCardinal(n)
	case "de":
		return deCardinal(n)
	}
	return enCardinal(n)
}

func enCardinal(n int64) string {
	if n == 0 {
		return "zero"
	}
	var parts []string
	for scale := len(enScales) - 1; scale >= 0; scale-- {
		unit := pow1000(scale)
		if group := n / unit; group > 0 {
			parts = append(parts, enBelow1000(int(group)))
			if enScales[scale] != "" {
				parts = append(parts, enScales[scale])
			}
			n %= unit
		}
	}
	return strings.Join(parts, " ")
}

func pow1000(k int) int64 {
	p := int64(1)
	for range k {
		p *= 1000
	}
	return p
}

func enBelow100(n int) string {
	if n < 20 {
		return enOnes[n]
	}
	if n%10 == 0 {
		return enTens[n/10]
	}
	return enTens[n/10] + "-" + enOnes[n%10]
}

func enBelow1000(n int) string {
	switch {
	case n < 100:
		return enBelow100(n)
	case n%100 == 0:
		return enOnes[n/100] + " hundred"
	}
	return enOnes[n/100] + " hundred " + enBelow100(n%100)
}

// enOrdinal turns the last word of a cardinal into its ordinal: "twenty-one" → "twenty-first".
func enOrdinal(card string) string {
	cut := max(strings.LastIndexAny(card, " -")+1, 0)
	head, last := card[:cut], card[cut:]
	irregular := map[string]string{"one": "first", "two": "second", "three": "third", "five": "fifth",
		"eight": "eighth", "nine": "ninth", "twelve": "twelfth"}
	switch {
	case irregular[last] != "":
		last = irregular[last]
	case strings.HasSuffix(last, "y"):
		last = strings.TrimSuffix(last, "y") + "ieth"
	default:
		last += "th"
	}
	return head + last
}

// enYear reads a year the way it is spoken: 1990 → nineteen ninety, 1905 → nineteen oh five,
// 1900 → nineteen hundred, 2000 → two thousand, 2007 → two thousand seven, 2024 → twenty
// twenty-four.
func enYear(y int) string {
	hi, lo := y/100, y%100
	switch {
	case y < 1000 || y >= 10000 || y%1000 == 0 || (y > 2000 && y < 2010):
		return enCardinal(int64(y))
	case lo == 0:
		return enBelow100(hi) + " hundred"
	case lo < 10:
		return enBelow100(hi) + " oh " + enOnes[lo]
	}
	return enBelow100(hi) + " " + enBelow100(lo)
}

// enPlural pluralises the last word of a number phrase: "nineteen ninety" → "nineteen nineties".
func enPlural(words string) string {
	if strings.HasSuffix(words, "y") {
		return strings.TrimSuffix(words, "y") + "ies"
	}
	if strings.HasSuffix(words, "x") {
		return words + "es"
	}
	return words + "s"
}

var enMonths = []string{"", "January", "February", "March", "April", "May", "June", "July", "August",
	"September", "October", "November", "December"}

// Spanish.

var esOnes = []string{"cero", "uno", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve", "diez",
	"once", "doce", "trece", "catorce", "quince", "dieciséis", "diecisiete", "dieciocho", "diecinueve", "veinte",
	"veintiuno", "veintidós", "veintitrés", "veinticuatro", "veinticinco", "veintiséis", "veintisiete", "veintiocho",
	"veintinueve"}
var esTens = []string{"", "", "", "treinta", "cuarenta", "cincuenta", "sesenta", "setenta", "ochenta", "noventa"}
var esHundreds = []string{"", "ciento", "doscientos", "trescientos", "cuatrocientos", "quinientos", "seiscientos",
	"setecientos", "ochocientos", "novecientos"}

// esCardinal reads n in Spanish; apocope shortens a final "uno" to "un" before a noun (mil, millones).
func esCardinal(n int64, apocope bool) string {
	if n == 0 {
		return "cero"
	}
	var parts []string
	if m := n / 1_000_000; m > 0 {
		if m == 1 {
			parts = append(parts, "un millón")
		} else {
			parts = append(parts, esCardinal(m, true)+" millones")
		}
		n %= 1_000_000
	}
	if k := n / 1000; k > 0 {
		if k == 1 {
			parts = append(parts, "mil")
		} else {
			parts = append(parts, esBelow1000(int(k), true)+" mil")
		}
		n %= 1000
	}
	if n > 0 {
		parts = append(parts, esBelow1000(int(n), apocope))
	}
	return strings.Join(parts, " ")
}

func esBelow1000(n int, apocope bool) string {
	var parts []string
	if h := n / 100; h > 0 {
		if n == 100 {
			return "cien"
		}
		parts = append(parts, esHundreds[h])
		n %= 100
	}
	if n > 0 {
		var w string
		switch {
		case n < 30:
			w = esOnes[n]
		case n%10 == 0:
			w = esTens[n/10]
		default:
			w = esTens[n/10] + " y " + esOnes[n%10]
		}
		if apocope {
			if strings.HasSuffix(w, "veintiuno") {
				w = strings.TrimSuffix(w, "veintiuno") + "veintiún"
			} else if strings.HasSuffix(w, "uno") {
				w = strings.TrimSuffix(w, "uno") + "un"
			}
		}
		parts = append(parts, w)
	}
	return strings.Join(parts, " ")
}

// French.

var frOnes = []string{"zéro", "un", "deux", "trois", "quatre", "cinq", "six", "sept", "huit", "neuf", "dix",
	"onze", "douze", "treize", "quatorze", "quinze", "seize"}
var frTens = []string{"", "dix", "vingt", "trente", "quarante", "cinquante", "soixante"}

func frCardinal(n int64) string {
	if n == 0 {
		return "zéro"
	}
	var parts []string
	for _, s := range []struct {
		unit         int64
		single, many string
	}{{1_000_000_000_000, "un billion", "billions"}, {1_000_000_000, "un milliard", "milliards"}, {1_000_000, "un million", "millions"}} {
		if m := n / s.unit; m > 0 {
			if m == 1 {
				parts = append(parts, s.single)
			} else {
				parts = append(parts, frBelow1000(int(m), true)+" "+s.many)
			}
			n %= s.unit
		}
	}
	if k := n / 1000; k > 0 {
		if k == 1 {
			parts = append(parts, "mille")
		} else {
			parts = append(parts, frBelow1000(int(k), false)+" mille") // "deux cent mille": no plural s before mille
		}
		n %= 1000
	}
	if n > 0 {
		parts = append(parts, frBelow1000(int(n), true))
	}
	return strings.Join(parts, " ")
}

// frBelow1000 reads 1–999; final says whether the number ends here (only then do "cents" and
// "quatre-vingts" take their plural s).
func frBelow1000(n int, final bool) string {
	var parts []string
	if h := n / 100; h > 0 {
		w := "cent"
		if h > 1 {
			w = frOnes[h] + " cent"
			if n%100 == 0 && final {
				w += "s"
			}
		}
		parts = append(parts, w)
		n %= 100
	}
	if n > 0 {
		parts = append(parts, frBelow100(n, final))
	}
	return strings.Join(parts, " ")
}

func frBelow100(n int, final bool) string {
	switch {
	case n <= 16:
		return frOnes[n]
	case n < 20:
		return "dix-" + frOnes[n-10]
	case n == 80:
		if final {
			return "quatre-vingts"
		}
		return "quatre-vingt"
	case n > 80:
		return "quatre-vingt-" + frBelow100(n-80, true)
	case n >= 70: // 70–79 count on from soixante
		if n == 71 {
			return "soixante et onze"
		}
		return "soixante-" + frBelow100(n-60, true)
	}
	t, u := n/10, n%10
	switch u {
	case 0:
		return frTens[t]
	case 1:
		return frTens[t] + " et un"
	}
	return frTens[t] + "-" + frOnes[u]
}

// German: numbers below a million are written as one word.

var deOnes = []string{"null", "eins", "zwei", "drei", "vier", "fünf", "sechs", "sieben", "acht", "neun", "zehn",
	"elf", "zwölf", "dreizehn", "vierzehn", "fünfzehn", "sechzehn", "siebzehn", "achtzehn", "neunzehn"}
var deTens = []string{"", "", "zwanzig", "dreißig", "vierzig", "fünfzig", "sechzig", "siebzig", "achtzig", "neunzig"}

func deCardinal(n int64) string {
	if n == 0 {
		return "null"
	}
	var parts []string
	for _, s := range []struct {
		unit         int64
		single, many string
	}{{1_000_000_000_000, "eine Billion", "Billionen"}, {1_000_000_000, "eine Milliarde", "Milliarden"}, {1_000_000, "eine Million", "Millionen"}} {
		if m := n / s.unit; m > 0 {
			if m == 1 {
				parts = append(parts, s.single)
			} else {
				parts = append(parts, deBelowMillion(int(m))+" "+s.many)
			}
			n %= s.unit
		}
	}
	if n > 0 {
		parts = append(parts, deBelowMillion(int(n)))
	}
	return strings.Join(parts, " ")
}

func deBelowMillion(n int) string {
	var b strings.Builder
	if k := n / 1000; k > 0 {
		b.WriteString(deBelow1000(k, true) + "tausend")
		n %= 1000
	}
	if n > 0 {
		b.WriteString(deBelow1000(n, false))
	}
	return b.String()
}

// deBelow1000 reads 1–999; prefix says "tausend" follows, before which one is "ein".
func deBelow1000(n int, prefix bool) string {
	var b strings.Builder
	if h := n / 100; h > 0 {
		if h > 1 {
			b.WriteString(deOnes[h])
		}
		b.WriteString("hundert")
	}
	switch rest := n % 100; {
	case rest == 0:
	case rest == 1 && prefix:
		b.WriteString("ein")
	case rest < 20:
		b.WriteString(deOnes[rest])
	case rest%10 == 0:
		b.WriteString(deTens[rest/10])
	default:
		u := deOnes[rest%10]
		if rest%10 == 1 {
			u = "ein" // einundzwanzig
		}
		b.WriteString(u + "und" + deTens[rest/10])
	}
	return b.String()
}

// deYear reads 1100–1999 as years are spoken ("neunzehnhundertneunzig"), others as cardinals.
func deYear(y int) string {
	if y >= 1100 && y < 2000 {
		s := deOnes[y/100] + "hundert"
		if y%100 > 0 {
			s += deBelow1000(y%100, false)
		}
		return s
	}
	return deCardinal(int64(y))
}

// Words for the decimal separator, the minus sign and percent.
var decimalWord = map[string]string{"en": "point", "es": "coma", "fr": "virgule", "de": "Komma"}
var minusWord = map[string]string{"en": "minus", "es": "menos", "fr": "moins", "de": "minus"}
var percentWord = map[string]string{"en": "percent", "es": "por ciento", "fr": "pour cent", "de": "Prozent"}
