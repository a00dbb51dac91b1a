//go:build linux

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

// BenchmarkGatewayAB measures the faces of this build side by side with
// their floors (bench/floor: the line copier for the stdio face, the bare
// fasthttp relay for the HTTP face) and, with MCPTRAY_BENCH_BASE (a
// checkout such as a git worktree of main), with another build's faces.
// This machine's speed drifts by up to 3× within an hour, so that two runs
// of BenchmarkGatewayCall made minutes apart say little about a change of
// 10–20%: here every kind serves at once, each build with its own home and
// a copy of the test server, and the calls go in blocks of abBlock, a
// block of each kind in turn, b.N rounds (the order reversed every other
// round), so that all meet the same moments. It reports the median over
// the rounds of each block's p50, the time added over a direct call; the
// CPU the serving process spent in the blocks, per call (cpu-µs), and the
// median over the rounds of a block's (cpu-med-µs, which leaves out the
// blocks where the record's writer wrote, or other programs slowed the
// machine); and for each build's faces, their ratios to their floor's (of
// the added medians and of cpu-µs): the goal is at most 1.2 for the time
// added and 2 for the CPU. Each round's figures are logged.
//
// The servers behind the builds run without their sandbox, as the direct
// call's and the floors' do: the sandbox's filter and namespaces are the
// server's cost, not the gateway's (MCPTRAY_BENCH_SANDBOX=on keeps them).
//
//	go test -run '^$' -bench GatewayAB -benchtime 20x ./test/e2e
//	MCPTRAY_BENCH_BASE=$PWD/../base go test -run '^$' -bench GatewayAB -benchtime 20x ./test/e2e
//
// MCPTRAY_BENCH_THIS builds "this" from another checkout than the one
// the test runs in, to compare two commits with the same benchmark.
// (Both are best full paths: go test runs in test/e2e.)
func BenchmarkGatewayAB(b *testing.B) {
	dir := b.TempDir()
	testServer, floor := TestServer(b), Build(b, "floor", Module+"/bench/floor")
	builds := []string{"this"}
	bins := map[string]string{"this": Binary(b)}
	buildAt := func(name, checkout string) {
		bins[name] = filepath.Join(dir, name)
		cmd := exec.Command("go", "build", "-o", bins[name], ".")
		cmd.Dir = checkout
		if msg, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("go build in %s: %v\n%s", checkout, err, msg)
		}
	}
	if this := os.Getenv("MCPTRAY_BENCH_THIS"); this != "" {
		buildAt("this", this)
	}
	if base := os.Getenv("MCPTRAY_BENCH_BASE"); base != "" {
		builds = []string{"base", "this"}
		buildAt("base", base)
	}
	type kind struct {
		name string
		pid  int // the process whose CPU it spends; 0 for none
		call func()
	}
	direct := startLines(b, exec.Command(testServer, "-name", "direct"), nil)
	direct.handshake(b)
	kinds := []kind{{"direct", 0, func() { direct.call(b, "echo") }}}
	floorCmd := exec.Command(floor, testServer, "-name", "direct")
	floorStdio := startLines(b, floorCmd, nil)
	floorStdio.handshake(b)
	url, pid := benchFloorHTTP(b, floor, testServer, "-fasthttp")
	floorHTTP := bareHTTP(b, url)
	floorHTTP.handshake(b)
	kinds = append(kinds,
		kind{"floor-stdio", floorCmd.Process.Pid, func() { floorStdio.call(b, "echo") }},
		kind{"floor-fasthttp", pid, func() { floorHTTP.call(b, "echo") }})
	for _, build := range builds {
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
		benchSandbox(b, bin, env)
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
	cpu := make([][]float64, len(kinds)) // µs a call, by kind, by round
	took := make([]time.Duration, abBlock)
	order := make([]int, len(kinds))
	b.ResetTimer()
	for r := range b.N {
		// The direct call first, then the rest, in reverse every other
		// round: the kind that comes later in a round measured up to
		// 25% faster with the same code in both builds.
		for i := range order {
			order[i] = i
		}
		if r%2 == 1 {
			slices.Reverse(order[1:])
		}
		for _, i := range order {
			k := kinds[i]
			before := threadsCPU(b, k.pid)
			for j := range took {
				start := time.Now()
				k.call()
				took[j] = time.Since(start)
			}
			cpu[i] = append(cpu[i], float64((threadsCPU(b, k.pid)-before).Nanoseconds())/1e3/abBlock)
			slices.Sort(took)
			p50[i] = append(p50[i], float64(took[abBlock/2].Nanoseconds())/1e3)
		}
	}
	b.StopTimer()
	added := make([]float64, len(kinds)) // median over the rounds
	perCall := make([]float64, len(kinds))
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
			b.Logf("%-14s p50 by round (µs):%s", k.name, line)
		} else {
			b.Logf("%-14s added by round (µs):%s", k.name, line)
		}
	}
	for i, k := range kinds {
		if i == 0 {
			b.ReportMetric(median(p50[0]), "direct-p50-µs")
			continue
		}
		a := make([]float64, b.N)
		for r := range a {
			a[r] = p50[i][r] - p50[0][r]
		}
		added[i] = median(a)
		total := 0.0
		for _, c := range cpu[i] {
			total += c
		}
		perCall[i] = total / float64(len(cpu[i]))
		b.ReportMetric(added[i], k.name+"-added-µs")
		b.ReportMetric(perCall[i], k.name+"-cpu-µs")
		b.ReportMetric(median(cpu[i]), k.name+"-cpu-med-µs")
	}
	// Each build's faces against their floors: kinds 1 and 2 are the
	// floors, then each build's stdio and http faces.
	for j := range builds {
		for face, fl := range []int{1, 2} {
			i := 3 + 2*j + face
			b.ReportMetric(added[i]/added[fl], kinds[i].name+"/floor-added")
			b.ReportMetric(perCall[i]/perCall[fl], kinds[i].name+"/floor-cpu")
		}
	}
}

// benchSandbox turns the sandbox of server a off, unless
// MCPTRAY_BENCH_SANDBOX=on: the direct call's server and the floors' run
// without one.
func benchSandbox(b *testing.B, mcptray string, env []string) {
	if os.Getenv("MCPTRAY_BENCH_SANDBOX") == "on" {
		return
	}
	off := exec.Command(mcptray, "sandbox", "off", "a")
	off.Env = env
	if out, err := off.CombinedOutput(); err != nil {
		b.Fatalf("mcptray sandbox off a: %v\n%s", err, out)
	}
}

// threadsCPU is the CPU time process pid's threads have spent so far, to
// the nanosecond (the scheduler's own count, /proc/PID/task/*/schedstat),
// where procCPU counts in ticks of 10 ms: a block's CPU is read on its
// own, and the median over the rounds leaves out the blocks another
// program's work slowed. 0 for pid 0.
func threadsCPU(b *testing.B, pid int) time.Duration {
	if pid == 0 {
		return 0
	}
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		b.Fatal(err)
	}
	var sum time.Duration
	for _, t := range tasks {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/schedstat", pid, t.Name()))
		if err != nil {
			continue // the thread ended meanwhile
		}
		var ns int64
		fmt.Sscan(string(stat), &ns)
		sum += time.Duration(ns)
	}
	return sum
}

func median(x []float64) float64 {
	y := slices.Clone(x)
	slices.Sort(y)
	return y[len(y)/2]
}
