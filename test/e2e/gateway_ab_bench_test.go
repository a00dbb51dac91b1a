package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// abBlock is how many calls one block of BenchmarkGatewayAB makes.
const abBlock = 500

// BenchmarkGatewayAB compares the faces of this build with another build's
// (MCPTRAY_BENCH_BASE, a checkout such as a git worktree of main; skipped
// without it). This machine's speed drifts by up to 3× within an hour, so
// that two runs of BenchmarkGatewayCall made minutes apart say little about
// a change of 10–20%: here both builds serve at once, each with its own
// home and a copy of the test server, and the calls go in blocks of
// abBlock, a block of each kind in turn, b.N rounds (the builds' order
// alternating), so that both builds meet the same moments. It reports the median over the rounds of each
// block's p50, the time added over a direct call, and each serve's CPU per
// call; each round's figures are logged.
//
//	MCPTRAY_BENCH_BASE=$PWD/../base go test -run '^$' -bench GatewayAB -benchtime 8x ./test/e2e
//
// (MCPTRAY_BENCH_BASE is best a full path: go test runs in test/e2e.)
func BenchmarkGatewayAB(b *testing.B) {
	base := os.Getenv("MCPTRAY_BENCH_BASE")
	if base == "" {
		b.Skip("set MCPTRAY_BENCH_BASE to the checkout to compare with")
	}
	dir := b.TempDir()
	testServer := TestServer(b)
	bins := map[string]string{"this": Binary(b), "base": filepath.Join(dir, "base")}
	cmd := exec.Command("go", "build", "-o", bins["base"], ".")
	cmd.Dir = base
	if msg, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build in %s: %v\n%s", base, err, msg)
	}
	type kind struct {
		name string
		pid  int // the serve whose CPU it spends; 0 for none
		call func()
	}
	direct := startLines(b, exec.Command(testServer, "-name", "direct"), nil)
	direct.handshake(b)
	kinds := []kind{{"direct", 0, func() { direct.call(b, "echo") }}}
	for _, build := range []string{"base", "this"} {
		bin := bins[build]
		run := filepath.Join(dir, build+"-run")
		if err := os.MkdirAll(run, 0o700); err != nil {
			b.Fatal(err)
		}
		env := []string{"HOME=" + filepath.Join(dir, build+"-home"), "LANG=C.UTF-8", "PATH=" + os.Getenv("PATH"), "XDG_RUNTIME_DIR=" + run}
		add := exec.Command(bin, "add", "a", "--", testServer, "-name", "a")
		add.Env = env
		if out, err := add.CombinedOutput(); err != nil {
			b.Fatalf("mcptray add: %v\n%s", err, out)
		}
		url, pid := benchServe(b, bin, env)
		stdio := startLines(b, exec.Command(bin, "stdio"), env)
		stdio.handshake(b)
		h := bareHTTP(b, url)
		h.handshake(b)
		kinds = append(kinds,
			kind{build + "-stdio", pid, func() { stdio.call(b, "mcp__a__echo") }},
			kind{build + "-http", pid, func() { h.call(b, "mcp__a__echo") }})
	}
	for _, k := range kinds {
		for range 50 { // warm up
			k.call()
		}
	}
	p50 := make([][]float64, len(kinds)) // by kind, by round
	cpu := make([]time.Duration, len(kinds))
	took := make([]time.Duration, abBlock)
	b.ResetTimer()
	for r := range b.N {
		// Which build goes first alternates: the one that comes later in a
		// round measured up to 25% faster with the same code in both.
		order := []int{0, 1, 2, 3, 4}
		if r%2 == 1 {
			order = []int{0, 3, 4, 1, 2}
		}
		for _, i := range order {
			k := kinds[i]
			before := procCPU(b, k.pid)
			for j := range took {
				start := time.Now()
				k.call()
				took[j] = time.Since(start)
			}
			cpu[i] += procCPU(b, k.pid) - before
			slices.Sort(took)
			p50[i] = append(p50[i], float64(took[abBlock/2].Nanoseconds())/1e3)
		}
	}
	b.StopTimer()
	for i, k := range kinds {
		line := ""
		for r := range b.N {
			if i == 0 {
				line += fmt.Sprintf(" %.0f", p50[0][r])
			} else {
				line += fmt.Sprintf(" %+.0f", p50[i][r]-p50[0][r])
			}
		}
		if i == 0 {
			b.Logf("%-10s p50 by round (µs):%s", k.name, line)
		} else {
			b.Logf("%-10s added by round (µs):%s", k.name, line)
		}
	}
	for i, k := range kinds {
		added := make([]float64, b.N)
		for r := range added {
			added[r] = p50[i][r] - p50[0][r]
		}
		if i == 0 {
			b.ReportMetric(median(p50[0]), "direct-p50-µs")
			continue
		}
		b.ReportMetric(median(added), k.name+"-added-µs")
		b.ReportMetric(float64(cpu[i].Microseconds())/float64(b.N*abBlock), k.name+"-cpu-µs")
	}
}

func median(x []float64) float64 {
	y := slices.Clone(x)
	slices.Sort(y)
	return y[len(y)/2]
}
