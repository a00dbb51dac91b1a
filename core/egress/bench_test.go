package egress

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"testing"
	"time"
)

// BenchmarkHTTPS: an HTTPS GET to a local server through the proxy beside
// the same GET straight to it, on loopback (goal: at most 1 ms added at
// p50). Two ways: a new connection for each request (TCP, CONNECT when
// proxied, TLS: what a server's first request to a host pays), and one
// connection kept alive (a tunnel then only copies bytes). Each round
// times a block of each, in alternating order; the figures are medians
// over the rounds of each block's p50.
//
//	go test -run '^$' -bench HTTPS -benchtime 20x -count 3 ./core/egress/
func BenchmarkHTTPS(b *testing.B) {
	const block = 200
	s := newSite(b)
	l := &lists{hosts: map[string][]string{"bench": {s.Dest("api.test.example")}}}
	p := startProxy(b, Options{Hosts: l.Hosts})
	proxyURL, _ := url.Parse(p.Env("bench")["HTTPS_PROXY"])
	target := s.URL("api.test.example")
	direct := func(keep bool) *http.Transport {
		return &http.Transport{
			DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
				var d net.Dialer // the name resolved as the proxy's test resolver does
				return d.DialContext(ctx, network, net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port)))
			},
			TLSClientConfig:   &tls.Config{RootCAs: s.Pool},
			DisableKeepAlives: !keep,
		}
	}
	proxied := func(keep bool) *http.Transport {
		return &http.Transport{Proxy: http.ProxyURL(proxyURL), TLSClientConfig: &tls.Config{RootCAs: s.Pool}, DisableKeepAlives: !keep}
	}
	type way struct {
		name string
		c    [2]*http.Client // direct, proxied
	}
	ways := []way{
		{"new-conn", [2]*http.Client{{Transport: direct(false)}, {Transport: proxied(false)}}},
		{"kept-alive", [2]*http.Client{{Transport: direct(true)}, {Transport: proxied(true)}}},
	}
	call := func(c *http.Client) {
		res, err := c.Get(target)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			b.Fatalf("status %s", res.Status)
		}
	}
	for _, w := range ways {
		for _, c := range w.c {
			for range 50 { // warm up
				call(c)
			}
		}
	}
	took := make([]time.Duration, block)
	p50 := map[string][2][]float64{}
	b.ResetTimer()
	for r := range b.N {
		for _, w := range ways {
			order := []int{0, 1}
			if r%2 == 1 {
				order = []int{1, 0}
			}
			got := p50[w.name]
			for _, i := range order {
				for j := range took {
					start := time.Now()
					call(w.c[i])
					took[j] = time.Since(start)
				}
				slices.Sort(took)
				got[i] = append(got[i], float64(took[block/2].Nanoseconds())/1e3)
			}
			p50[w.name] = got
		}
	}
	b.StopTimer()
	for _, w := range ways {
		got := p50[w.name]
		added := make([]float64, len(got[0]))
		for i := range added {
			added[i] = got[1][i] - got[0][i]
		}
		b.ReportMetric(median(got[0]), w.name+"-direct-p50-µs")
		b.ReportMetric(median(added), w.name+"-added-p50-µs")
	}
	b.ReportMetric(0, "ns/op")
}

func median(x []float64) float64 {
	y := slices.Clone(x)
	slices.Sort(y)
	return y[len(y)/2]
}
