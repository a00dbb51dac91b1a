//go:build pprof

package main

// Built with -tags pprof (and only then), mcptray profiles itself for the
// benchmarks: test/e2e's BenchmarkGatewayCall with MCPTRAY_BENCH_PROFILE
// set builds it so, to profile mcptray serve while it serves the calls.
// When MCPTRAY_PPROF names a Unix socket, mcptray listens there: a POST to
// /start starts a CPU profile and a POST to /stop ends it and answers with
// the profile (pprof's format); a GET of /allocs answers with what was
// allocated so far (go tool pprof -base an earlier one). Product builds
// have none of it.

import (
	"bytes"
	"net"
	"net/http"
	"os"
	"runtime/pprof"
	"sync"
)

func init() {
	path := os.Getenv("MCPTRAY_PPROF")
	if path == "" {
		return
	}
	os.Unsetenv("MCPTRAY_PPROF") // mcptray's own, not its children's
	l, err := net.Listen("unix", path)
	if err != nil {
		return
	}
	var (
		mu  sync.Mutex
		buf bytes.Buffer
	)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /start", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		buf.Reset()
		if err := pprof.StartCPUProfile(&buf); err != nil {
			http.Error(w, err.Error(), http.StatusConflict)
		}
	})
	mux.HandleFunc("POST /stop", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		pprof.StopCPUProfile()
		w.Write(buf.Bytes())
	})
	mux.HandleFunc("GET /allocs", func(w http.ResponseWriter, r *http.Request) {
		pprof.Lookup("allocs").WriteTo(w, 0)
	})
	go http.Serve(l, mux)
}
