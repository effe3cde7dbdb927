package engine

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestZZRSS(t *testing.T) {
	for _, mk := range []func(int) (*Pool, error){NewEspeakPool, NewFlitePool} {
		p, _ := mk(1)
		p.Synthesize(context.Background(), Request{Text: benchText})
		w := <-p.slots
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", w.cmd.Process.Pid))
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "VmRSS") {
				fmt.Println(p.kind, l)
			}
		}
		p.slots <- w
		p.Close()
	}
}
