//go:build linux

package e2e

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// benchProfiler profiles mcptray serve in BenchmarkGatewayCall when
// MCPTRAY_BENCH_PROFILE names a folder: mcptray is built with -tags pprof
// (see its pprof.go), and each face's calls leave a CPU profile of serve
// in that folder, gateway-stdio.pprof and gateway-http.pprof. Read them
// with go tool pprof -top. It is nil without MCPTRAY_BENCH_PROFILE.
//
//	MCPTRAY_BENCH_PROFILE=$PWD/bench/profiles go test -run '^$' -bench 'GatewayCall/via=(stdio|http)-face$' -benchtime 20000x ./test/e2e
type profiler struct {
	binary string // mcptray, built with -tags pprof
	sock   string // where serve takes /start and /stop
	dir    string
	hc     *http.Client
}

func benchProfiler(b *testing.B, run string) *profiler {
	dir := os.Getenv("MCPTRAY_BENCH_PROFILE")
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	tags := "pprof"
	if out, err := exec.Command("go", "env", "CGO_ENABLED").Output(); err == nil && strings.TrimSpace(string(out)) == "0" {
		tags += ",ci"
	}
	Binary(b) // and the sandbox's launcher beside it
	p := &profiler{binary: Build(b, "mcptray-pprof", Module, "-tags", tags), sock: filepath.Join(run, "pprof.sock"), dir: dir}
	p.hc = &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", p.sock)
	}}}
	return p
}

// around starts a CPU profile of serve and returns what stops it and
// writes it to name.pprof; on a nil profiler both do nothing.
func (p *profiler) around(b *testing.B, name string) func() {
	if p == nil {
		return func() {}
	}
	p.post(b, "start")
	return func() {
		prof := p.post(b, "stop")
		if err := os.WriteFile(filepath.Join(p.dir, name+".pprof"), prof, 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

func (p *profiler) post(b *testing.B, what string) []byte {
	resp, err := p.hc.Post("http://mcptray/"+what, "", nil)
	if err != nil {
		b.Fatalf("profiling mcptray serve (%s): %v", what, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		b.Fatalf("profiling mcptray serve (%s): %v %s", what, err, out)
	}
	return out
}
