package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestMain makes the test binary two programs besides the tests: the
// launcher (as mcptray sandbox-exec is) and the probe that tries what a
// hostile server would (as mcptray sandbox-probe is, Probe).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case LauncherArg:
			os.Exit(Launch(os.Args[2:], os.Stderr))
		case ProbeArg:
			os.Exit(Probe(os.Args[2:], os.Stdin, os.Stdout))
		}
	}
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// built is cmd/mcptray-sandbox, built once for the tests that need it.
var built struct {
	once      sync.Once
	dir, path string
	err       error
}

// launchers are the two launchers a server starts through: this test
// binary as mcptray sandbox-exec (Launch, in Go), and cmd/mcptray-sandbox,
// which does the work in C before Go's runtime starts (where cgo builds
// it).
func launchers(t testing.TB) map[string]string {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "mcptray-sandbox"); built.err != nil {
			return
		}
		built.path = filepath.Join(built.dir, "mcptray-sandbox")
		cmd := exec.Command("go", "build", "-o", built.path, "./cmd/mcptray-sandbox")
		if out, err := cmd.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("building cmd/mcptray-sandbox: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return map[string]string{"go": mustExe(t), "c": built.path}
}

// runProbe runs the probe in p through the launcher and returns each
// try's outcome.
func runProbe(t *testing.T, launcher string, p Policy, tries ...string) map[string]string {
	t.Helper()
	self := mustExe(t)
	path, argv, env, err := Command(launcher, p, self, append([]string{"probe", ProbeArg}, tries...), os.Environ())
	if err != nil {
		t.Fatal(err)
	}
	cmd := &exec.Cmd{Path: path, Args: argv, Env: env}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	ln, err := Start(cmd, p, (*exec.Cmd).Start)
	if err != nil {
		t.Fatalf("starting the probe in its sandbox: %v", err)
	}
	if ln != nil {
		defer ln.Close()
		go acceptAndClose(ln)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the probe in its sandbox: %v\n%s", err, errOut.String())
	}
	got := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		k, v, _ := strings.Cut(l, " ")
		got[k] = v
	}
	return got
}

// expectProbe runs the probe in p through launcher with want's tries and
// more, and fails the test for each outcome that is not what want says; it
// returns every outcome.
func expectProbe(t *testing.T, launcher string, p Policy, want map[string]string, more ...string) map[string]string {
	t.Helper()
	tries := slices.Clone(more)
	for k := range want {
		tries = append(tries, k)
	}
	got := runProbe(t, launcher, p, tries...)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s, want %s", k, got[k], v)
		}
	}
	return got
}

// world is a person's home with secrets in it, a project, a server's data
// folder, a folder outside the home, and a listener the server may not
// reach.
type world struct {
	home, data, project, outside string
	policy                       Policy
	refusedPort, proxyPort       int
}

func newWorld(t *testing.T, egress bool) *world {
	t.Helper()
	return newIsolatedWorld(t, egress, false)
}

// newIsolatedWorld is newWorld with the server in namespaces of its own
// (namespaces true) or not.
func newIsolatedWorld(t *testing.T, egress, namespaces bool) *world {
	t.Helper()
	return newWorldAt(t, "", egress, namespaces)
}

// newWorldAt is newIsolatedWorld in a folder made in dir, or in the
// test's temporary folder when dir is "".
func newWorldAt(t *testing.T, dir string, egress, namespaces bool) *world {
	t.Helper()
	if ABI() < 4 {
		t.Skipf("this kernel's Landlock is version %d; the test needs 4 or later", ABI())
	}
	root := t.TempDir()
	if dir != "" {
		var err error
		if root, err = os.MkdirTemp(dir, "mcptray-test"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(root) })
	}
	w := &world{home: filepath.Join(root, "home"), outside: filepath.Join(root, "elsewhere")}
	w.data = filepath.Join(w.home, ".config", "mcptray", "servers", "weather")
	w.project = filepath.Join(w.home, "code", "app")
	for _, d := range []string{filepath.Join(w.home, ".ssh"), filepath.Join(w.home, ".config", "mcptray"), w.project, w.outside} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(w.home, ".ssh", "id_ed25519"), filepath.Join(w.home, ".config", "mcptray", "config.json"), filepath.Join(w.project, "README"), filepath.Join(w.outside, "notes")} {
		if err := os.WriteFile(f, []byte("secret"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	w.refusedPort, w.proxyPort = listen(t), listen(t)
	self, _ := os.Executable()
	in := Input{Program: self, Home: w.home, DataDir: w.data, ProjectDir: w.project, Dir: w.project,
		Env: []string{"PATH=/usr/bin:/bin"}}
	if egress {
		in.EgressPort = w.proxyPort
	}
	in.Namespaces = namespaces
	p, err := Default(in)
	if err == nil {
		err = p.Prepare()
	}
	if err != nil {
		t.Fatal(err)
	}
	w.policy = p
	return w
}

func listen(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go acceptAndClose(l)
	return l.Addr().(*net.TCPAddr).Port
}

// TestLandlockRefuses: under the default policy a server is refused what
// the package doc keeps from it, and gets what it allows.
func TestLandlockRefuses(t *testing.T) {
	w := newWorld(t, true)
	tmp := w.policy.Env["TMPDIR"]
	want := map[string]string{
		"read:" + filepath.Join(w.home, ".ssh", "id_ed25519"):                "refused",
		"read:" + filepath.Join(w.home, ".config", "mcptray", "config.json"): "refused",
		"read:" + filepath.Join(w.outside, "notes"):                          "refused",
		"write:" + filepath.Join(w.home, "planted"):                          "refused",
		"write:" + filepath.Join(os.TempDir(), "planted-by-a-server"):        "refused",
		"write:" + filepath.Join(w.outside, "notes"):                         "refused",
		"connect:" + strconv.Itoa(w.refusedPort):                             "refused",
		"read:" + filepath.Join(w.project, "README"):                         "ok",
		"write:" + filepath.Join(w.project, "out"):                           "ok",
		"write:" + filepath.Join(w.data, "memory.jsonl"):                     "ok",
		"write:" + filepath.Join(tmp, "scratch"):                             "ok",
		"write:/dev/null":                                                    "ok",
		"read:/etc/hosts":                                                    "ok",
		"connect:" + strconv.Itoa(w.proxyPort):                               "ok",
		"run:/bin/true":                                                      "ok",
	}
	for name, launcher := range launchers(t) {
		t.Run(name, func(t *testing.T) {
			expectProbe(t, launcher, w.policy, want)
			if _, err := os.Stat(filepath.Join(w.home, "planted")); err == nil {
				t.Error("the server wrote in the home")
			}
		})
	}
}

// TestLandlockNoProxy: with no egress proxy, TCP is left as it is, files
// are still protected, and the words say so.
func TestLandlockNoProxy(t *testing.T) {
	w := newWorld(t, false)
	for name, launcher := range launchers(t) {
		t.Run(name, func(t *testing.T) {
			got := runProbe(t, launcher, w.policy, "connect:"+strconv.Itoa(w.refusedPort), "read:"+filepath.Join(w.home, ".ssh", "id_ed25519"))
			if got["connect:"+strconv.Itoa(w.refusedPort)] != "ok" {
				t.Errorf("with no proxy, a connection was %s", got["connect:"+strconv.Itoa(w.refusedPort)])
			}
			if got["read:"+filepath.Join(w.home, ".ssh", "id_ed25519")] != "refused" {
				t.Errorf("with no proxy, ~/.ssh was readable")
			}
		})
	}
	if l := Protection(w.policy); !l.Files || l.Network || !strings.Contains(l.Words, "network open") {
		t.Errorf("Protection = %+v", l)
	}
}

// TestLandlockSettings: what the person allows is allowed.
func TestLandlockSettings(t *testing.T) {
	w := newWorld(t, true)
	self, _ := os.Executable()
	p, err := Default(Input{Program: self, Home: w.home, DataDir: w.data, EgressPort: w.proxyPort,
		Settings: Settings{Read: []string{w.outside}, Ports: []int{w.refusedPort}}})
	if err == nil {
		err = p.Prepare()
	}
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"read:" + filepath.Join(w.outside, "notes"): "ok", "write:" + filepath.Join(w.outside, "x"): "refused", "connect:" + strconv.Itoa(w.refusedPort): "ok"}
	for name, launcher := range launchers(t) {
		t.Run(name, func(t *testing.T) {
			expectProbe(t, launcher, p, want)
		})
	}
}

// TestLaunchIsItsInit: the launcher stays as the server's parent (its
// init), and the policy's variable is not passed on.
func TestLaunchIsItsInit(t *testing.T) {
	if ABI() < 1 {
		t.Skip("no Landlock")
	}
	for name, launcher := range launchers(t) {
		t.Run(name, func(t *testing.T) {
			path, argv, env, err := Command(launcher, Policy{Read: []string{"/"}}, "/bin/sh", []string{"sh", "-c", `echo $PPID; env`}, []string{"PATH=/usr/bin:/bin"})
			if err != nil {
				t.Fatal(err)
			}
			cmd := &exec.Cmd{Path: path, Args: argv, Env: env}
			var out bytes.Buffer
			cmd.Stdout = &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			pid := cmd.Process.Pid
			if err := cmd.Wait(); err != nil {
				t.Fatal(err)
			}
			first, rest, _ := strings.Cut(out.String(), "\n")
			if first != strconv.Itoa(pid) {
				t.Errorf("the server's parent was pid %s, the launcher was %d", first, pid)
			}
			if strings.Contains(rest, policyEnv) {
				t.Errorf("the policy reached the server's environment:\n%s", rest)
			}
		})
	}
}

// TestLaunchRefusesToRun: a program the sandbox does not let it run, and
// one that is not there, end the launcher with 126 and 127 and words,
// never with the program run unrestricted.
func TestLaunchRefusesToRun(t *testing.T) {
	if ABI() < 1 {
		t.Skip("no Landlock")
	}
	for name, launcher := range launchers(t) {
		t.Run(name, func(t *testing.T) {
			for _, tc := range []struct {
				program string
				code    int
				words   string
			}{
				{"/bin/true", 126, "its sandbox does not let it run /bin/true"},
				{"/nonexistent/server", 127, "running /nonexistent/server"},
			} {
				path, argv, env, err := Command(launcher, Policy{Read: []string{"/etc"}}, tc.program, []string{"server"}, nil)
				if err != nil {
					t.Fatal(err)
				}
				var errOut bytes.Buffer
				cmd := &exec.Cmd{Path: path, Args: argv, Env: env, Stderr: &errOut}
				err = cmd.Run()
				var exit *exec.ExitError
				if !errors.As(err, &exit) || exit.ExitCode() != tc.code || !strings.Contains(errOut.String(), tc.words) {
					t.Errorf("%s: %v, %q; want exit %d saying %q", tc.program, err, errOut.String(), tc.code, tc.words)
				}
			}
		})
	}
}

func mustExe(t testing.TB) string {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return self
}

// TestProgramBesideHome: a program whose folder also holds the home (a
// program in /tmp/x, the home /tmp/x/home) runs, though its folder is not
// given: the home would come with it.
func TestProgramBesideHome(t *testing.T) {
	if ABI() < 1 {
		t.Skip("no Landlock")
	}
	root := t.TempDir()
	home := filepath.Join(root, "home")
	program := filepath.Join(root, "true")
	orig, err := os.ReadFile("/bin/true")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(program, orig, 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := Default(Input{Program: program, Home: home, DataDir: filepath.Join(home, ".config", "mcptray", "servers", "x"), Env: []string{"PATH=/usr/bin:/bin"}})
	if err == nil {
		err = p.Prepare()
	}
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(p.Read, root) {
		t.Fatalf("the program's folder, which holds the home, is readable: %q", p.Read)
	}
	for name, launcher := range launchers(t) {
		t.Run(name, func(t *testing.T) {
			path, argv, env, err := Command(launcher, p, program, []string{"true"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			var errOut bytes.Buffer
			cmd := &exec.Cmd{Path: path, Args: argv, Env: env, Stderr: &errOut}
			if err := cmd.Run(); err != nil {
				t.Errorf("the program did not run: %v\n%s", err, errOut.String())
			}
		})
	}
}

// TestHandledByABI: from Landlock ABI 9 named sockets are handled (only
// those beneath what a server may write are reached), unless the person
// let it use any; before, the filter alone keeps them.
func TestHandledByABI(t *testing.T) {
	const resolveUnix = 1 << 16
	for _, tc := range []struct {
		abi       int
		anySocket bool
		handled   bool
	}{{7, false, false}, {8, false, false}, {9, false, true}, {9, true, false}, {10, false, true}} {
		if got := fsHandled(tc.abi, tc.anySocket)&resolveUnix != 0; got != tc.handled {
			t.Errorf("ABI %d, any socket %v: named sockets handled %v, want %v", tc.abi, tc.anySocket, got, tc.handled)
		}
		if fsHandled(tc.abi, tc.anySocket)&(1<<15) == 0 {
			t.Errorf("ABI %d: the rights before RESOLVE_UNIX are no longer handled", tc.abi)
		}
	}
	enc, err := encode(Policy{Sockets: true, AnySocket: true})
	if err != nil {
		t.Fatal(err)
	}
	if p, _, err := decode(enc); err != nil || !p.AnySocket {
		t.Errorf("AnySocket did not travel: %+v, %v", p, err)
	}
}
