package textnorm

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestNormalizeEnglish(t *testing.T) {
	cases := []struct{ in, want string }{
		// Cardinals, negatives, separators, decimals, leading zeros.
		{"I have 3 apples.", "I have three apples."},
		{"0 and 13 and 40 and 99", "zero and thirteen and forty and ninety-nine"},
		{"It is -5 outside", "It is minus five outside"},
		{"1,234 cars", "one thousand two hundred thirty-four cars"},
		{"1,000,000", "one million"},
		{"2,500,017", "two million five hundred thousand seventeen"},
		{"3.5 and 0.25", "three point five and zero point two five"},
		{"agent 007", "agent zero zero seven"},
		{"123456789012345678901", "one two three four five six seven eight nine zero one two three four five six seven eight nine zero one"},
		{"1,2,3", "one,two,three"},
		// Ordinals.
		{"1st 2nd 3rd 4th 11th 12th 22nd 101st 1,000th", "first second third fourth eleventh twelfth twenty-second one hundred first one thousandth"},
		{"the 20th century", "the twentieth century"},
		// Years.
		{"In 1990 it rained.", "In nineteen ninety it rained."},
		{"in 2024", "in twenty twenty-four"},
		{"since 2000", "since two thousand"},
		{"by 2007", "by two thousand seven"},
		{"in 1905", "in nineteen oh five"},
		{"in 1900", "in nineteen hundred"},
		{"from 1939 to 1945", "from nineteen thirty-nine to nineteen forty-five"},
		{"1939-1945", "nineteen thirty-nine to nineteen forty-five"},
		{"in 1990 and 2024", "in nineteen ninety and twenty twenty-four"},
		{"1066 AD", "ten sixty-six AD"},
		{"I own 2048 books", "I own two thousand forty-eight books"},
		{"the 1980s and the 80s and '90s", "the nineteen eighties and the eighties and 'nineties"},
		// Dates.
		{"2024-03-05", "March fifth, twenty twenty-four"},
		{"on 03/05/2024.", "on March fifth, twenty twenty-four."},
		{"on 25/12/2023", "on December twenty-fifth, twenty twenty-three"},
		{"March 5, 2024", "March fifth, twenty twenty-four"},
		{"Dec. 31st", "Dec. thirty-first"},
		{"2024-13-45", "two thousand twenty-four to thirteen to forty-five"}, // not a date
		// Times.
		{"at 3:30 pm", "at three thirty p m"},
		{"at 3:30PM", "at three thirty p m"},
		{"at 09:05", "at nine oh five"},
		{"at 12:00", "at twelve o'clock"},
		{"at 15:00", "at fifteen hundred"},
		{"at 7 am", "at seven a m"},
		{"at 10:15:30", "at ten fifteen and thirty seconds"},
		{"at 5 p.m. on Monday", "at five p m on Monday"},
		{"at 5 p.m. Then", "at five p m. Then"},
		// Money.
		{"$5", "five dollars"},
		{"$1", "one dollar"},
		{"$1.50", "one dollar and fifty cents"},
		{"$0.99", "ninety-nine cents"},
		{"$2.01", "two dollars and one cent"},
		{"$5.00", "five dollars"},
		{"€20", "twenty euros"},
		{"£3", "three pounds"},
		{"£3.50", "three pounds and fifty pence"},
		{"¥500", "five hundred yen"},
		{"$1,000", "one thousand dollars"},
		{"$1.5 million", "one point five million dollars"},
		{"$5k", "five thousand dollars"},
		{"$2bn", "two billion dollars"},
		{"-$5", "minus five dollars"},
		{"20€ and 5 USD", "twenty euros and five dollars"},
		{"costs $", "costs $"},
		// Percentages.
		{"50% off", "fifty percent off"},
		{"12.5 %", "twelve point five percent"},
		{"-3%", "minus three percent"},
		// Units.
		{"5km", "five kilometers"},
		{"1 km", "one kilometer"},
		{"10 kg and 1kg", "ten kilograms and one kilogram"},
		{"3cm 4mm 5m", "three centimeters four millimeters five meters"},
		{"60 mph", "sixty miles per hour"},
		{"100 km/h", "one hundred kilometers per hour"},
		{"20°C and -4 °F", "twenty degrees Celsius and minus four degrees Fahrenheit"},
		{"90°", "ninety degrees"},
		{"8GB and 512 MB", "eight gigabytes and five hundred twelve megabytes"},
		{"250ms", "two hundred fifty milliseconds"},
		{"10s", "ten seconds"},
		{"1.5s", "one point five seconds"},
		{"5 m", "five m"},
		{"5 mangoes", "five mangoes"},
		// Abbreviations.
		{"Dr. Smith", "Doctor Smith"},
		{"Elm Dr. is far", "Elm Drive is far"},
		{"Mr. and Mrs. Jones", "Mister and Missus Jones"},
		{"St. Louis", "Saint Louis"},
		{"Main St. Then", "Main Street. Then"},
		{"apples, etc. Then", "apples, et cetera. Then"},
		{"apples, etc., pears", "apples, et cetera, pears"},
		{"e.g. this, i.e. that", "for example this, that is that"},
		{"E.g. this", "For example this"},
		{"cats vs. dogs vs cows", "cats versus dogs versus cows"},
		{"No. 5", "number five"},
		{"No. I won't", "No. I won't"},
		{"#1 fan", "number one fan"},
		{"Mrsx.", "Mrsx."},
		// Symbols.
		{"A&B", "A and B"},
		{"me@home", "me at home"},
		{"1+1=2", "one plus one equals two"},
		{"100 % sure", "one hundred percent sure"},
		{"a % b", "a percent b"},
		{"3×4", "three times four"},
		// Ranges, phone numbers, glued numbers.
		{"pages 10-20", "pages ten to twenty"},
		{"Call (555) 123-4567", "Call five five five, one two three, four five six seven"},
		{"call 555-1234", "call five five five, one two three four"},
		{"COVID-19", "COVID-nineteen"},
		{"mp3 and A4", "mp three and A four"},
		// Untouched.
		{"", ""},
		{"Nothing to do here.", "Nothing to do here."},
		{"naïve café 日本語", "naïve café 日本語"},
	}
	for _, c := range cases {
		got, mapping := Normalize(c.in, "en")
		if got != c.want {
			t.Errorf("Normalize(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
		checkMapping(t, c.in, got, mapping)
	}
}

func TestNormalizeOtherLanguages(t *testing.T) {
	cases := []struct{ lang, in, want string }{
		{"es", "Tengo 21 años", "Tengo veintiuno años"},
		{"es", "1.500 euros y 21000", "mil quinientos euros y veintiún mil"},
		{"es", "3,5 kg, 100% y -7", "tres coma cinco kg, cien por ciento y menos siete"},
		{"es", "2.000.000 y 1.000.000 y 115 y 999", "dos millones y un millón y ciento quince y novecientos noventa y nueve"},
		{"es-MX", "A&B", "A y B"},
		{"fr", "71 ans, 80 et 81, 91", "soixante et onze ans, quatre-vingts et quatre-vingt-un, quatre-vingt-onze"},
		{"fr", "200, 201, 21, 17, 1.000.000, 2000", "deux cents, deux cent un, vingt et un, dix-sept, un million, deux mille"},
		{"fr", "3,5 et 50%", "trois virgule cinq et cinquante pour cent"},
		{"fr-CA", "200000", "deux cent mille"},
		{"de", "21 Jahre, 101, 17", "einundzwanzig Jahre, hunderteins, siebzehn"},
		{"de", "1990 und 2024", "neunzehnhundertneunzig und zweitausendvierundzwanzig"},
		{"de", "1.234 und 3,5", "eintausendzweihundertvierunddreißig und drei Komma fünf"},
		{"de", "50% und 1000000", "fünfzig Prozent und eine Million"},
		{"DE_de", "-2", "minus zwei"},
		// Unsupported languages are left alone.
		{"ja", "3個のりんご", "3個のりんご"},
		{"it", "Ho 3 mele", "Ho 3 mele"},
		// "" and region variants mean English.
		{"", "3 apples", "three apples"},
		{"en-GB", "3 apples", "three apples"},
	}
	for _, c := range cases {
		got, mapping := Normalize(c.in, c.lang)
		if got != c.want {
			t.Errorf("Normalize(%q, %s)\n got %q\nwant %q", c.in, c.lang, got, c.want)
		}
		checkMapping(t, c.in, got, mapping)
	}
}

func TestNormalizeMapping(t *testing.T) {
	in := "Pay $5 now."
	out, m := Normalize(in, "en")
	if out != "Pay five dollars now." {
		t.Fatalf("got %q", out)
	}
	// Copied text maps byte for byte.
	for i := range len("Pay ") {
		if m[i] != i {
			t.Errorf("mapping[%d] = %d", i, m[i])
		}
	}
	nowOut, nowIn := strings.Index(out, "now"), strings.Index(in, "now")
	for k := range len("now.") {
		if m[nowOut+k] != nowIn+k {
			t.Errorf("mapping of %q = %d, want %d", out[nowOut+k], m[nowOut+k], nowIn+k)
		}
	}
	// The expansion covers both '$' and '5', in order.
	dollar, five := strings.Index(in, "$"), strings.Index(in, "5")
	exp := out[4 : 4+len("five dollars")]
	seen := map[int]bool{}
	for k := range exp {
		seen[m[4+k]] = true
	}
	if !seen[dollar] || !seen[five] || len(seen) != 2 {
		t.Errorf("expansion maps to %v, want {%d, %d}", seen, dollar, five)
	}
	// Multi-byte characters in an expansion map as a whole.
	out, m = Normalize("16", "es")
	if out != "dieciséis" {
		t.Fatalf("got %q", out)
	}
	e := strings.Index(out, "é")
	if m[e] != m[e+1] {
		t.Errorf("the bytes of é map to %d and %d", m[e], m[e+1])
	}
}

// checkMapping verifies Normalize's mapping contract.
func checkMapping(t *testing.T, in, out string, mapping []int) {
	t.Helper()
	if len(mapping) != len(out) {
		t.Fatalf("Normalize(%q): %d mapping entries for %d bytes", in, len(mapping), len(out))
	}
	prev := 0
	for i, src := range mapping {
		if src < prev || src < 0 || src >= len(in) {
			t.Fatalf("Normalize(%q): mapping[%d] = %d (previous %d, input %d bytes)", in, i, src, prev, len(in))
		}
		prev = src
	}
	if utf8.ValidString(in) && !utf8.ValidString(out) {
		t.Fatalf("Normalize(%q) = %q is not valid UTF-8", in, out)
	}
}

func TestNumberWords(t *testing.T) {
	en := map[string]string{
		"0": "zero", "7": "seven", "15": "fifteen", "20": "twenty", "21": "twenty-one", "100": "one hundred",
		"101": "one hundred one", "999": "nine hundred ninety-nine", "1000": "one thousand", "1001": "one thousand one",
		"100000": "one hundred thousand", "1000000000": "one billion", "999999999999999": "nine hundred ninety-nine trillion nine hundred ninety-nine billion nine hundred ninety-nine million nine hundred ninety-nine thousand nine hundred ninety-nine",
	}
	for in, want := range en {
		if got := cardinal(in, "en"); got != want {
			t.Errorf("cardinal(%s) = %q, want %q", in, got, want)
		}
	}
	ord := map[string]string{"one": "first", "twenty": "twentieth", "twenty-three": "twenty-third", "one hundred": "one hundredth", "ninety-nine": "ninety-ninth", "eight": "eighth", "twelve": "twelfth"}
	for in, want := range ord {
		if got := enOrdinal(in); got != want {
			t.Errorf("enOrdinal(%s) = %q, want %q", in, got, want)
		}
	}
	years := map[int]string{1066: "ten sixty-six", 1800: "eighteen hundred", 1999: "nineteen ninety-nine", 2000: "two thousand", 2009: "two thousand nine", 2010: "twenty ten", 2099: "twenty ninety-nine", 1000: "one thousand"}
	for in, want := range years {
		if got := enYear(in); got != want {
			t.Errorf("enYear(%d) = %q, want %q", in, got, want)
		}
	}
	other := []struct {
		lang string
		n    int64
		want string
	}{
		{"es", 1, "uno"}, {"es", 16, "dieciséis"}, {"es", 22, "veintidós"}, {"es", 31, "treinta y uno"}, {"es", 100, "cien"},
		{"es", 101, "ciento uno"}, {"es", 500, "quinientos"}, {"es", 1001, "mil uno"}, {"es", 2000, "dos mil"},
		{"es", 31000, "treinta y un mil"}, {"es", 1000000, "un millón"}, {"es", 21000000, "veintiún millones"},
		{"fr", 1, "un"}, {"fr", 16, "seize"}, {"fr", 70, "soixante-dix"}, {"fr", 77, "soixante-dix-sept"},
		{"fr", 80, "quatre-vingts"}, {"fr", 99, "quatre-vingt-dix-neuf"}, {"fr", 100, "cent"}, {"fr", 300, "trois cents"},
		{"fr", 1000, "mille"}, {"fr", 80000, "quatre-vingt mille"}, {"fr", 2000000, "deux millions"},
		{"de", 1, "eins"}, {"de", 16, "sechzehn"}, {"de", 30, "dreißig"}, {"de", 99, "neunundneunzig"},
		{"de", 100, "hundert"}, {"de", 1000, "eintausend"}, {"de", 21000, "einundzwanzigtausend"},
		{"de", 101001, "hunderteintausendeins"}, {"de", 2000000, "zwei Millionen"}, {"de", 1000000001, "eine Milliarde eins"},
	}
	for _, c := range other {
		if got := cardinalInt(c.n, c.lang); got != c.want {
			t.Errorf("cardinal(%d, %s) = %q, want %q", c.n, c.lang, got, c.want)
		}
	}
}

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{
		"", "$", "$5", "-", "-$", "1,", "1,2345", "1.", ".5", "5%", "5 %", "1990s", "'80s", "2024-03-05", "99/99/9999",
		"3:30 p.", "3:30 p.m", "12 a.m.", "Dr.", "St.", "No.", "etc.", "e.g.", "(555) 123-4567", "1-", "1–2",
		"#", "#1", "°", "5°", "£0.01", "$1.5bn", "€ 5", "5 USD", "\xff1\xfe", "１２３", "Mar. 5th", "March 99",
		strings.Repeat("9", 40), "1.000,5", "in 1990 and", "and 2024", "5 p", "20 °C", "7 mph.",
	} {
		for _, lang := range []string{"en", "es", "fr", "de", "xx"} {
			f.Add(s, lang)
		}
	}
	f.Fuzz(func(t *testing.T, text, lang string) {
		out, mapping := Normalize(text, lang)
		checkMapping(t, text, out, mapping)
	})
}
