package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestNeighbourLinksGiveNothing is two servers and a folder both reach:
// the person gave server B a shared folder to write (on its command
// line), and server A a folder in it (on its command line too), another
// to read and another to write (its settings), and its project's .env
// lies there. B, which may write the shared folder, replaces each of A's
// with a link to ~/.ssh or to a folder outside the home, and waits for
// A's next start. Through either launcher, in namespaces and without, A
// reaches none of them, mcptray reads no file and makes no folder through
// them, and what is really in the shared folder A still gets.
func TestNeighbourLinksGiveNothing(t *testing.T) {
	w := newWorld(t, false)
	ssh := filepath.Join(w.home, ".ssh")
	shared := filepath.Join(w.home, "shared")
	data, docs, out, ok := filepath.Join(shared, "data"), filepath.Join(shared, "docs"), filepath.Join(shared, "out"), filepath.Join(shared, "ok")
	for _, d := range []string{data, docs, out, ok} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	self := mustExe(t)
	servers := filepath.Dir(w.data)
	b, err := Default(Input{Program: self, Args: []string{shared}, Home: w.home, DataDir: filepath.Join(servers, "b"),
		Env: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(b.Write, shared) {
		t.Fatalf("server B may not write %s: %v", shared, b.Write)
	}
	in := Input{Program: self, Args: []string{"--root", data, ok}, Home: w.home, DataDir: w.data,
		Env:         []string{"PATH=/usr/bin:/bin"},
		Settings:    Settings{Read: []string{docs}, Write: []string{filepath.Join(out, "new")}},
		OthersWrite: b.Writes()}
	// Then B planted its links where A's folders were.
	plant(t, data, ssh)
	plant(t, docs, ssh)
	plant(t, out, w.outside)
	plant(t, filepath.Join(shared, ".env"), filepath.Join(ssh, "id_ed25519"))
	p, err := Default(in)
	if err == nil {
		err = p.Prepare()
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range append(slices.Clone(p.Read), p.Write...) {
		if within(ssh, d) || within(w.outside, d) {
			t.Errorf("A's policy names %s, where B's links lead", d)
		}
	}
	if entries, err := os.ReadDir(w.outside); err != nil || len(entries) != 1 {
		t.Errorf("Prepare made a folder through B's link: %v %v", entries, err)
	}
	if f, err := p.Open(filepath.Join(shared, ".env")); err == nil {
		f.Close()
		t.Error("mcptray read A's env file through B's link to ~/.ssh")
	}
	want := map[string]string{
		"read:" + filepath.Join(ssh, "id_ed25519"):  "refused",
		"write:" + filepath.Join(ssh, "planted"):    "refused",
		"read:" + filepath.Join(data, "id_ed25519"): "refused",
		"read:" + filepath.Join(docs, "id_ed25519"): "refused",
		"read:" + filepath.Join(w.outside, "notes"): "refused",
		"write:" + filepath.Join(ok, "result"):      "ok",
	}
	for name, launcher := range launchers(t) {
		for mode, namespaces := range modes(t) {
			t.Run(name+"/"+mode, func(t *testing.T) {
				p := p
				p.Namespaces = namespaces
				p.Read = append(slices.Clone(p.Read), filepath.Dir(self))
				expectProbe(t, launcher, p, want)
			})
		}
	}
}
