package pronunciation

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkApply: 5,000 characters of text through three dictionaries of 1,000 rules each.
func BenchmarkApply(b *testing.B) {
	a := &Applier{}
	for d := range 3 {
		rules := make([]Rule, 1000)
		for i := range rules {
			rules[i] = alias(fmt.Sprintf("term%d_%d", d, i), "replacement words", i%2 == 0, true)
		}
		a.add(rules)
	}
	text := strings.Repeat("The quick brown fox term1_500 jumps over the lazy dog. ", 100)[:5000]
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for range b.N {
		a.Apply(text)
	}
}
