package ssotest

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"

	"golang.org/x/net/dns/dnsmessage"
)

// DNS is an in-process DNS server on 127.0.0.1 (UDP) answering TXT questions from its table,
// as a real authoritative server would: the records of a known name, NOERROR with no answer
// for a name known without TXT records, NXDOMAIN for any other name, or the failure code set
// with Fail. Domain-ownership tests point a resolver at it (Resolver, or sso.NewResolver(Addr)).
type DNS struct {
	Addr string // host:port

	pc      net.PacketConn
	mu      sync.Mutex
	txt     map[string][]string // lower-case FQDN (trailing dot) → values
	fail    map[string]dnsmessage.RCode
	queries []string
}

// NewDNS starts a server; it stops when the test ends.
func NewDNS(t testing.TB) *DNS {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("ssotest: dns listen: %v", err)
	}
	d := &DNS{Addr: pc.LocalAddr().String(), pc: pc, txt: map[string][]string{}, fail: map[string]dnsmessage.RCode{}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return // closed
			}
			if out, ok := d.answer(buf[:n]); ok {
				_, _ = pc.WriteTo(out, from)
			}
		}
	}()
	t.Cleanup(func() {
		_ = pc.Close()
		<-done
	})
	return d
}

func fqdn(name string) string {
	name = strings.ToLower(name)
	if !strings.HasSuffix(name, ".") {
		name += "."
	}
	return name
}

// SetTXT makes name's TXT records values (none: the name exists but has no TXT record).
func (d *DNS) SetTXT(name string, values ...string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.txt[fqdn(name)] = append([]string(nil), values...)
	delete(d.fail, fqdn(name))
}

// Remove forgets name (NXDOMAIN from now on).
func (d *DNS) Remove(name string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.txt, fqdn(name))
	delete(d.fail, fqdn(name))
}

// Fail makes every question about name answered with rcode (dnsmessage.RCodeServerFailure, …).
func (d *DNS) Fail(name string, rcode dnsmessage.RCode) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.fail[fqdn(name)] = rcode
}

// Queries lists the names asked about so far ("TYPE name").
func (d *DNS) Queries() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.queries...)
}

// Resolver is a pure-Go resolver that asks only this server.
func (d *DNS) Resolver() *net.Resolver {
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var dl net.Dialer
		return dl.DialContext(ctx, "udp", d.Addr)
	}}
}

// answer builds the reply to one query; false drops a packet that is not a query.
func (d *DNS) answer(req []byte) ([]byte, bool) {
	var p dnsmessage.Parser
	h, err := p.Start(req)
	if err != nil || h.Response {
		return nil, false
	}
	q, err := p.Question()
	if err != nil {
		return nil, false
	}
	name := strings.ToLower(q.Name.String())
	d.mu.Lock()
	d.queries = append(d.queries, q.Type.String()+" "+name)
	values, known := d.txt[name]
	rcode, failing := d.fail[name]
	d.mu.Unlock()

	rh := dnsmessage.Header{ID: h.ID, Response: true, OpCode: h.OpCode, Authoritative: true,
		RecursionDesired: h.RecursionDesired, RecursionAvailable: true, RCode: dnsmessage.RCodeSuccess}
	switch {
	case failing:
		rh.RCode = rcode
	case !known:
		rh.RCode = dnsmessage.RCodeNameError
	}
	b := dnsmessage.NewBuilder(nil, rh)
	b.EnableCompression()
	if err := b.StartQuestions(); err != nil {
		return nil, false
	}
	if err := b.Question(q); err != nil {
		return nil, false
	}
	if rh.RCode == dnsmessage.RCodeSuccess && q.Type == dnsmessage.TypeTXT {
		if err := b.StartAnswers(); err != nil {
			return nil, false
		}
		for _, v := range values {
			rr := dnsmessage.ResourceHeader{Name: q.Name, Type: dnsmessage.TypeTXT, Class: dnsmessage.ClassINET, TTL: 60}
			if err := b.TXTResource(rr, dnsmessage.TXTResource{TXT: split255(v)}); err != nil {
				return nil, false
			}
		}
	}
	out, err := b.Finish()
	return out, err == nil
}

// split255 cuts a TXT value into the 255-byte character-strings a record holds (resolvers join
// them again).
func split255(v string) []string {
	var out []string
	for len(v) > 255 {
		out = append(out, v[:255])
		v = v[255:]
	}
	return append(out, v)
}
