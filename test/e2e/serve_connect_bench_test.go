//go:build linux

package e2e

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// connectSlots is the connection manager's window of stdio servers
// starting at once (conn.Options.MaxLocal's default).
const connectSlots = 3

// connectDelays are the initialize delays of BenchmarkServeConnect30's
// servers: 30 drawn from 100–500 ms, the same every run.
func connectDelays() []time.Duration {
	r := rand.New(rand.NewPCG(1, 1))
	d := make([]time.Duration, 30)
	for i := range d {
		d[i] = time.Duration(100+r.IntN(401)) * time.Millisecond
	}
	return d
}

// listSchedule is when the last of jobs ends when slots run them, each job
// taking the first slot free, in the order given: a sliding window.
func listSchedule(jobs []time.Duration, slots int) time.Duration {
	free := make([]time.Duration, slots)
	for _, j := range jobs {
		i := slices.Index(free, slices.Min(free))
		free[i] += j
	}
	return slices.Max(free)
}

// lowerBound is a bound no schedule of jobs on slots can beat: the work
// shared evenly, the longest job, and the slots-th and slots+1-th longest
// jobs, two of which one slot must run one after the other.
func lowerBound(jobs []time.Duration, slots int) time.Duration {
	var sum time.Duration
	for _, j := range jobs {
		sum += j
	}
	desc := slices.Clone(jobs)
	slices.Sort(desc)
	slices.Reverse(desc)
	lb := max(sum/time.Duration(slots), desc[0])
	if len(desc) > slots {
		lb = max(lb, desc[slots-1]+desc[slots])
	}
	return lb
}

// BenchmarkServeConnect30 runs a whole mcptray serve with 30 stdio test
// servers whose initialize answers take 100–500 ms each (a fixed seed) and
// measures the time from starting the process until serve has printed
// every server connected. Each round runs serve twice on a new home:
// cold, with no connect times remembered (the queue in config order), and
// warm, with the times the first run remembered (longest first).
//
// s/floor is the same 30 servers started by the benchmark itself, with no
// mcptray: a 3-wide sliding window, longest first, that runs each server
// and waits for its initialize answer, each start inside its place. It is
// what the servers' own start-up adds to such a schedule on this machine
// at this moment; warm/floor below 1 is what mcptray's warming places (the
// next two servers in line start their processes while the three places are
// taken) takes away.
//
// Beside the measurements it reports the schedules' figures for 3 slots.
// s/bound is the lower bound no order can beat when each server starts in
// its place, over what each server really takes to start: the median of
// three starts of it alone, from the exec to its initialize answer,
// measured once per process before the rounds. That is its delay and its
// own start-up (exec, the Go runtime, its package inits: 15-50 ms on this
// machine, with its load). s/window (the ideal sliding window in config
// order) and s/lpt (the ideal window longest first) are over the same
// times. s/bound-delays is the bound over the delays alone, as if a
// server cost nothing to start: with its start-up overlapped, only the
// first three starts and mcptray's own start stand between the two. The
// ratios cold/bound and warm/bound are the figures that matter (goal:
// warm ≤ 1.05); warm/bound-delays says what is left.
//
//	go test -run '^$' -bench ServeConnect30 -benchtime 1x -count 5 ./test/e2e
func BenchmarkServeConnect30(b *testing.B) {
	mcptray, testServer := Binary(b), TestServer(b)
	dir := b.TempDir()
	delays := connectDelays()
	starts := soloStarts(b, testServer, delays)
	desc := slices.Clone(starts)
	slices.Sort(desc)
	slices.Reverse(desc)
	bound := lowerBound(starts, connectSlots)
	window := listSchedule(starts, connectSlots)
	lpt := listSchedule(desc, connectSlots)

	round := 0
	for b.Loop() {
		round++
		home := filepath.Join(dir, fmt.Sprint("home", round))
		run := filepath.Join(dir, fmt.Sprint("run", round))
		if err := os.MkdirAll(run, 0o700); err != nil {
			b.Fatal(err)
		}
		env := []string{"HOME=" + home, "LANG=C.UTF-8", "PATH=" + os.Getenv("PATH"), "XDG_RUNTIME_DIR=" + run}
		var names []string
		for i, d := range delays {
			name := fmt.Sprintf("s%02d", i)
			names = append(names, name)
			add := exec.Command(mcptray, "add", name, "--", testServer, "-name", name, "-init-delay", d.String())
			add.Env = env
			if out, err := add.CombinedOutput(); err != nil {
				b.Fatalf("mcptray add %s: %v\n%s", name, err, out)
			}
		}
		cold := serveConnected(b, mcptray, env, names)
		// The warm run is warm only if the cold one kept its times.
		var kept struct{ Servers map[string]any }
		if raw, err := os.ReadFile(filepath.Join(home, ".config", "mcptray", "connect-times.json")); err != nil || json.Unmarshal(raw, &kept) != nil || len(kept.Servers) != len(names) {
			b.Fatalf("mcptray serve kept no connect time for each of the %d servers: %v %d", len(names), err, len(kept.Servers))
		}
		warm := serveConnected(b, mcptray, env, names)
		floor := floorConnected(b, testServer, delays)
		b.ReportMetric(cold.Seconds(), "s/cold")
		b.ReportMetric(warm.Seconds(), "s/warm")
		b.ReportMetric(floor.Seconds(), "s/floor")
		b.ReportMetric(float64(cold)/float64(bound), "cold/bound")
		b.ReportMetric(float64(warm)/float64(bound), "warm/bound")
		b.ReportMetric(float64(warm)/float64(floor), "warm/floor")
		b.ReportMetric(float64(warm)/float64(lowerBound(delays, connectSlots)), "warm/bound-delays")
	}
	b.ReportMetric(bound.Seconds(), "s/bound")
	b.ReportMetric(lowerBound(delays, connectSlots).Seconds(), "s/bound-delays")
	b.ReportMetric(window.Seconds(), "s/window")
	b.ReportMetric(lpt.Seconds(), "s/lpt")
}

// soloStarts are what each of delays' servers takes to start alone: the
// median of three starts, from the exec to the initialize answer. They are
// measured once per process, so every round compares with the same bound.
var soloStarts = func() func(b *testing.B, testServer string, delays []time.Duration) []time.Duration {
	var once sync.Once
	var starts []time.Duration
	return func(b *testing.B, testServer string, delays []time.Duration) []time.Duration {
		b.Helper()
		once.Do(func() {
			for _, d := range delays {
				var tries [3]time.Duration
				for k := range tries {
					tries[k] = floorConnected(b, testServer, []time.Duration{d})
				}
				slices.Sort(tries[:])
				starts = append(starts, tries[1])
			}
		})
		if len(starts) != len(delays) {
			b.Fatal("the servers' solo starts were not measured")
		}
		return starts
	}
}()

// floorConnected starts a test server for each of delays, 3 at a time,
// longest first, each as soon as a place frees up, and returns how long
// until every one had answered initialize. The servers are stopped after.
func floorConnected(b *testing.B, testServer string, delays []time.Duration) time.Duration {
	b.Helper()
	order := make([]int, len(delays))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int { return cmp.Compare(delays[y], delays[x]) })
	type server struct {
		cmd *exec.Cmd
		in  io.WriteCloser
	}
	servers := make([]server, len(delays))
	defer func() {
		for _, s := range servers {
			if s.cmd != nil {
				s.in.Close()
				s.cmd.Wait()
			}
		}
	}()
	slots := make(chan struct{}, connectSlots)
	errs := make(chan error, len(delays))
	start := time.Now()
	for _, i := range order {
		slots <- struct{}{}
		cmd := exec.Command(testServer, "-name", fmt.Sprint("f", i), "-init-delay", delays[i].String())
		in, err := cmd.StdinPipe()
		if err != nil {
			b.Fatal(err)
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		servers[i] = server{cmd, in}
		go func() {
			defer func() { <-slots }()
			_, err := io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"floor","version":"1"}}}`+"\n")
			if err == nil {
				_, err = bufio.NewReader(out).ReadString('\n')
			}
			errs <- err
		}()
	}
	for range delays {
		if err := <-errs; err != nil {
			b.Fatalf("a test server did not answer initialize: %v", err)
		}
	}
	return time.Since(start)
}

// serveConnected starts mcptray serve, returns how long it took until it
// printed every one of names connected, and stops it.
func serveConnected(b *testing.B, mcptray string, env, names []string) time.Duration {
	b.Helper()
	cmd := exec.Command(mcptray, "serve", "--gateway-addr", "127.0.0.1:0")
	cmd.Env = env
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	lines := make(chan string, 100)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		exited <- cmd.Wait()
	}()
	stopped := false
	defer func() {
		if !stopped {
			cmd.Process.Kill()
			go func() {
				for range lines {
				}
			}()
			<-exited
		}
	}()

	missing := map[string]bool{}
	for _, n := range names {
		missing[n+": connected"] = true
	}
	var took time.Duration
	var seen []string
	timer := time.NewTimer(time.Minute)
	defer timer.Stop()
	for took == 0 {
		select {
		case l, ok := <-lines:
			if !ok {
				b.Fatalf("mcptray serve ended before every server connected:\n%s", strings.Join(seen, "\n"))
			}
			seen = append(seen, l)
			if strings.Contains(l, ": failed") {
				b.Fatalf("a server failed: %s", l)
			}
			delete(missing, l)
			if len(missing) == 0 {
				took = time.Since(start)
			}
		case <-timer.C:
			b.Fatalf("not every server connected within a minute:\n%s", strings.Join(seen, "\n"))
		}
	}

	// Stopped as a person stops it, so that it keeps what it learnt.
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		b.Fatal(err)
	}
	go func() {
		for range lines {
		}
	}()
	stopped = true
	select {
	case err := <-exited:
		if err != nil {
			b.Fatalf("mcptray serve: %v", err)
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		b.Fatal("mcptray serve did not stop within 30 s of SIGTERM")
	}
	return took
}
