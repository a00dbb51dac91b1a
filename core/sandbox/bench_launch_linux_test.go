package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkLaunchTrue runs /bin/true straight, and through the C launcher
// (cmd/mcptray-sandbox) in its sandbox without namespaces and in
// namespaces of its own (its own /proc, /tmp and /dev/shm among them): the
// launcher's own part of a server's start, without the noise of a
// server's handshake. The sandbox should add at most 5 ms.
//
//	go test -run '^$' -bench LaunchTrue -benchtime 200x -count 10 ./core/sandbox/
func BenchmarkLaunchTrue(b *testing.B) {
	if ABI() < 1 {
		b.Skip("no Landlock")
	}
	launcher := launchers(b)["c"]
	home := b.TempDir()
	policy := func(namespaces bool) Policy {
		p, err := Default(Input{Program: "/bin/true", Home: home, DataDir: filepath.Join(home, "data"), Env: []string{"PATH=/usr/bin:/bin"}, Namespaces: namespaces})
		if err == nil {
			err = p.Prepare()
		}
		if err != nil {
			b.Fatal(err)
		}
		return p
	}
	// Besides the time per start, which the load of a shared machine
	// moves, the least of them (min-ms) and the CPU the launcher and what
	// it waited for took (cpu-ms), which the load moves less.
	run := func(b *testing.B, p *Policy) {
		var cpu, least time.Duration
		for b.Loop() {
			began := time.Now()
			cmd := exec.Command("/bin/true")
			if p != nil {
				path, argv, env, err := Command(launcher, *p, "/bin/true", []string{"true"}, os.Environ())
				if err != nil {
					b.Fatal(err)
				}
				cmd = &exec.Cmd{Path: path, Args: argv, Env: env}
				if _, err := Start(cmd, *p, (*exec.Cmd).Start); err != nil {
					b.Fatal(err)
				}
			} else if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			if err := cmd.Wait(); err != nil {
				b.Fatal(err)
			}
			if took := time.Since(began); least == 0 || took < least {
				least = took
			}
			cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		}
		b.ReportMetric(float64(least.Microseconds())/1000, "min-ms")
		b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
	}
	b.Run("straight", func(b *testing.B) { run(b, nil) })
	fallback := policy(false)
	b.Run("fallback", func(b *testing.B) { run(b, &fallback) })
	if Isolation(launcher) {
		namespaces := policy(true)
		b.Run("namespaces", func(b *testing.B) { run(b, &namespaces) })
	}
}
