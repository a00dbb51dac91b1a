//go:build linux

package conn

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/sandbox"
)

// launcherBin builds core/sandbox/cmd/mcptray-sandbox, the launcher mcptray uses when
// it is installed beside it, into a temporary folder.
func launcherBin(b *testing.B) string {
	b.Helper()
	if sandbox.ABI() < 1 {
		b.Skip("this kernel has no Landlock")
	}
	out := filepath.Join(b.TempDir(), "mcptray-sandbox")
	cmd := exec.Command("go", "build", "-o", out, "./core/sandbox/cmd/mcptray-sandbox")
	cmd.Dir = filepath.Join("..", "..")
	if msg, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("building the launcher: %v\n%s", err, msg)
	}
	return out
}

// sandboxBenchOptions are o with every stdio server in the sandbox, in a
// home of the benchmark's own.
func sandboxBenchOptions(b *testing.B, launcher string) Options {
	home := b.TempDir()
	return Options{BaseEnv: os.Environ(), Launcher: launcher, Home: home, ServersDir: filepath.Join(home, "servers")}
}

// BenchmarkStartSandboxed starts the in-repo test server and completes its
// handshake, without a sandbox and in one (through core/sandbox/cmd/mcptray-sandbox),
// and reports the median start of each (goal: the sandbox adds at most
// 5 ms at p50). Compare p50-ms across sandbox=off and sandbox=on; the
// least start (min-ms) and the CPU the launcher and the server took
// (child-cpu-ms/op) move less with the machine's load.
func BenchmarkStartSandboxed(b *testing.B) {
	launcher := launcherBin(b)
	for _, tc := range []struct {
		name string
		opts func(b *testing.B) Options
	}{
		{"sandbox=off", func(*testing.B) Options { return Options{BaseEnv: os.Environ()} }},
		{"sandbox=on", func(b *testing.B) Options { return sandboxBenchOptions(b, launcher) }},
		// With a proxy: a network of its own too, where the computer
		// allows namespaces, and the listener brought out of it.
		{"sandbox=on,proxy", func(b *testing.B) Options { return withBenchProxy(b, sandboxBenchOptions(b, launcher)) }},
		// The same where namespaces are refused: Landlock's port rule and
		// the filter alone.
		{"sandbox=on,proxy,no-namespaces", func(b *testing.B) Options {
			b.Setenv("MCPTRAY_SANDBOX_NO_NAMESPACES", "1")
			return withBenchProxy(b, sandboxBenchOptions(b, launcher))
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			opts := tc.opts(b)
			var took []time.Duration
			var cpu time.Duration
			for b.Loop() {
				before := childrenCPU()
				m := New(opts)
				start := time.Now()
				if err := m.Apply(setOf(stdioEntry("bench"))); err != nil {
					b.Fatal(err)
				}
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				err := m.WaitSettled(ctx)
				took = append(took, time.Since(start))
				cancel()
				if info, _ := m.Report().Find("bench"); err != nil || info.Status.State != Connected {
					b.Fatalf("bench is %s: %s (%v)", info.Status.State, info.Status.Err, err)
				}
				b.StopTimer()
				m.Close()
				cpu += childrenCPU() - before
				b.StartTimer()
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(took[0].Microseconds())/1000, "min-ms")
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(len(took)), "child-cpu-ms/op")
		})
	}
}

// childrenCPU is the CPU time of this process's children that have been
// waited for: the launcher and, through its own waits, the server.
func childrenCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// withBenchProxy gives o a stand-in for the egress proxy: a listener on
// 127.0.0.1 whose connections are closed, and the same for the listeners
// brought out of the servers' networks.
func withBenchProxy(b *testing.B, o Options) Options {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { l.Close() })
	serve := func(l net.Listener) {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}
	go serve(l)
	port := l.Addr().(*net.TCPAddr).Port
	o.Egress = func(string) (int, map[string]string) { return port, nil }
	o.EgressServe = func(l net.Listener) { go serve(l) }
	return o
}

// BenchmarkConnect30SlowSandboxed is BenchmarkConnect30Slow with every
// server in the sandbox (goal: still ≤ 1.1 × the 3.0 s bound).
func BenchmarkConnect30SlowSandboxed(b *testing.B) {
	const n, delay = 30, 300 * time.Millisecond
	launcher := launcherBin(b)
	bound := time.Duration(n/3) * delay
	var entries []config.Entry
	for i := range n {
		entries = append(entries, stdioEntry(fmt.Sprintf("s%02d", i), "-init-delay", delay.String()))
	}
	opts := sandboxBenchOptions(b, launcher)
	for b.Loop() {
		m := New(opts)
		start := time.Now()
		if err := m.Apply(setOf(entries...)); err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		if err := m.WaitSettled(ctx); err != nil {
			b.Fatal(err)
		}
		took := time.Since(start)
		cancel()
		for _, s := range m.Report().Servers {
			if s.Status.State != Connected {
				b.Fatalf("%s is %s: %s", s.Name, s.Status.State, s.Status.Err)
			}
		}
		b.ReportMetric(took.Seconds(), "s/all-connected")
		b.ReportMetric(float64(took)/float64(bound), "ratio-to-3s")
		b.StopTimer()
		m.Close()
		b.StartTimer()
	}
}
