package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

// These tests are a server that plants links in what it may write, then
// waits for mcptray to start it again: each link leads out, to ~/.ssh or
// to a folder outside the home, where a rule, a folder mcptray makes or
// a file mcptray reads would follow it.

// plant replaces path (made if missing) with a symlink to target, as a
// server that may write the folder holding it does.
func plant(t *testing.T, path, target string) {
	t.Helper()
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}

// TestPlantedLinksGiveNothing: the folders a server's rules name inside
// what it may write (a folder named on its command line, the folder it
// starts in, the folder of its program, a folder the person allowed it
// inside its project) are links it planted, to ~/.ssh and to a folder
// outside the home. Its next start, through either launcher, in
// namespaces of its own and without, reaches neither.
func TestPlantedLinksGiveNothing(t *testing.T) {
	w := newWorld(t, false)
	ssh := filepath.Join(w.home, ".ssh")
	data, docs, tools, out := filepath.Join(w.project, "data"), filepath.Join(w.project, "docs"), filepath.Join(w.project, "tools"), filepath.Join(w.project, "out")
	// As the person configured it, the folders were there and real.
	for _, d := range []string{data, docs, tools, out} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	program := filepath.Join(tools, "bin", "srv")
	if err := os.MkdirAll(filepath.Dir(program), 0o700); err != nil {
		t.Fatal(err)
	}
	in := Input{Program: program, Args: []string{"--root", data}, Home: w.home, DataDir: w.data,
		ProjectDir: w.project, Dir: docs, Env: []string{"PATH=/usr/bin:/bin"},
		Settings: Settings{Write: []string{out}}}
	// Then the server planted its links.
	plant(t, data, ssh)
	plant(t, docs, w.outside)
	plant(t, tools, w.outside)
	plant(t, out, ssh)
	p, err := Default(in)
	if err == nil {
		err = p.Prepare()
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range append(slices.Clone(p.Read), p.Write...) {
		if within(ssh, d) || within(w.outside, d) {
			t.Errorf("its policy names %s, where its links lead", d)
		}
	}
	want := map[string]string{
		"read:" + filepath.Join(ssh, "id_ed25519"):    "refused",
		"write:" + filepath.Join(ssh, "planted"):      "refused",
		"read:" + filepath.Join(w.outside, "notes"):   "refused",
		"write:" + filepath.Join(w.outside, "notes"):  "refused",
		"read:" + filepath.Join(data, "id_ed25519"):   "refused",
		"write:" + filepath.Join(out, "planted"):      "refused",
		"read:" + filepath.Join(docs, "notes"):        "refused",
		"read:" + filepath.Join(w.project, "README"):  "ok",
		"write:" + filepath.Join(w.project, "result"): "ok",
	}
	for name, launcher := range launchers(t) {
		for mode, namespaces := range modes(t) {
			t.Run(name+"/"+mode, func(t *testing.T) {
				// The launcher is given the rules as they are, the links
				// among them: it must not follow them.
				p := p
				p.Namespaces = namespaces
				p.Read = append(slices.Clone(p.Read), filepath.Dir(mustExe(t)), data, docs, tools)
				p.Write = append(slices.Clone(p.Write), data, out)
				expectProbe(t, launcher, p, want)
			})
		}
	}
}

// TestPrepareMakesNothingOutside: a server replaced its cache folder with
// a link to a folder outside, and a folder the person allowed it, not
// made yet, lies beyond a link in its project. Prepare makes none of
// them there.
func TestPrepareMakesNothingOutside(t *testing.T) {
	w := newWorld(t, false)
	plant(t, filepath.Join(w.data, "cache"), w.outside)
	plant(t, filepath.Join(w.project, "build"), w.outside)
	self := mustExe(t)
	p, err := Default(Input{Program: self, Home: w.home, DataDir: w.data, ProjectDir: w.project,
		Env: []string{"PATH=/usr/bin:/bin"}, Settings: Settings{Write: []string{filepath.Join(w.project, "build", "new")}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Prepare(); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(w.outside)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != "notes" {
			t.Errorf("Prepare made %s outside, through the server's link", filepath.Join(w.outside, e.Name()))
		}
	}
}

// TestProgramLinkGivesNothing: a project's program (its virtual
// environment's python, say) is a link the server may change: it points
// it at a file in ~/.aws. Its policy gives no read of ~/.aws.
func TestProgramLinkGivesNothing(t *testing.T) {
	w := newWorld(t, false)
	aws := filepath.Join(w.home, ".aws")
	if err := os.MkdirAll(aws, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(aws, "credentials"), []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	program := filepath.Join(w.project, ".venv", "bin", "python")
	plant(t, program, filepath.Join(aws, "credentials"))
	p, err := Default(Input{Program: program, Home: w.home, DataDir: w.data, ProjectDir: w.project, Env: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range append(slices.Clone(p.Read), p.Write...) {
		if within(aws, d) {
			t.Errorf("its policy gives %s, where its program's link leads", d)
		}
	}
	// A program outside what it may write keeps its link's folder: the
	// person's own.
	real := filepath.Join(w.outside, "srv", "bin", "srv")
	if err := os.MkdirAll(filepath.Dir(real), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(real, nil, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(w.home, "tools", "srv")
	plant(t, link, real)
	p, err = Default(Input{Program: link, Home: w.home, DataDir: w.data, Env: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(p.Read, filepath.Join(w.outside, "srv")) {
		t.Errorf("a program linked from the person's own folder lost its install folder: %v", p.Read)
	}
}

// TestOpenRefusesLinksOut: a server's project .env is a link to a file
// outside, or a named pipe: Policy.Open refuses both, and reads a
// regular file, or a link within the project.
func TestOpenRefusesLinksOut(t *testing.T) {
	w := newWorld(t, false)
	env := filepath.Join(w.project, ".env")
	plant(t, env, filepath.Join(w.outside, "notes"))
	if f, err := w.policy.Open(env); err == nil {
		f.Close()
		t.Error("Open followed the server's link out of its project")
	}
	if err := os.Remove(env); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(env, 0o600); err != nil {
		t.Fatal(err)
	}
	if f, err := w.policy.Open(env); err == nil {
		f.Close()
		t.Error("Open opened a named pipe")
	}
	plant(t, env, "README")
	f, err := w.policy.Open(env)
	if err != nil {
		t.Fatalf("a link within the project: %v", err)
	}
	f.Close()
}

// TestProjectStopsAtWhatItWrites: a file named on a server's command line
// lies in a folder it may change (a folder also on its command line),
// whose package.json it deleted, so that the nearest project above is the
// whole repository around it. It is given no more than it was.
func TestProjectStopsAtWhatItWrites(t *testing.T) {
	w := newWorld(t, false)
	mono := filepath.Join(w.home, "src", "mono")
	app := filepath.Join(mono, "packages", "app")
	if err := os.MkdirAll(filepath.Join(app, "dist"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(mono, ".git"), 0o700); err != nil {
		t.Fatal(err)
	}
	entry := filepath.Join(app, "dist", "index.js")
	if err := os.WriteFile(entry, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := Default(Input{Program: "/usr/bin/node", Args: []string{entry, "--root", app}, Home: w.home, DataDir: w.data, Env: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(p.Read, mono) {
		t.Errorf("its policy reads the whole repository %s: %v", mono, p.Read)
	}
	if !slices.Contains(p.Write, app) {
		t.Errorf("its folder %s is not given: %v", app, p.Write)
	}
}
