package assets

import (
	"bytes"
	"image/png"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestIconsDecode(t *testing.T) {
	t.Parallel()

	type icon struct {
		name string
		data []byte
		size int
	}
	icons := []icon{{"app icon", AppIcon(), 512}}
	for _, state := range States {
		for _, dark := range []bool{false, true} {
			icons = append(icons, icon{TrayIconName(state, dark), TrayIcon(state, dark), 64})
		}
	}

	for _, ic := range icons {
		t.Run(ic.name, func(t *testing.T) {
			t.Parallel()
			img, err := png.Decode(bytes.NewReader(ic.data))
			if err != nil {
				t.Fatalf("not a valid PNG: %v", err)
			}
			if b := img.Bounds(); b.Dx() != ic.size || b.Dy() != ic.size {
				t.Errorf("size = %dx%d, want %dx%d", b.Dx(), b.Dy(), ic.size, ic.size)
			}
		})
	}
}

func TestTrayIconVariantsDiffer(t *testing.T) {
	t.Parallel()
	seen := map[string]string{}
	for _, state := range States {
		for _, dark := range []bool{false, true} {
			name := TrayIconName(state, dark)
			key := string(TrayIcon(state, dark))
			if other, ok := seen[key]; ok {
				t.Errorf("%s is the same picture as %s", name, other)
			}
			seen[key] = name
		}
	}
}

func TestTrayIconUnknownState(t *testing.T) {
	t.Parallel()
	if b := TrayIcon("bogus", false); b != nil {
		t.Errorf("TrayIcon(%q) = %d bytes, want nil", "bogus", len(b))
	}
}

func TestIconsAreCopies(t *testing.T) {
	t.Parallel()
	b := AppIcon()
	b[0] ^= 0xff
	if AppIcon()[0] == b[0] {
		t.Error("changing the bytes AppIcon returned changed the embedded icon")
	}
}

// TestPNGsMatchGenerator redraws every icon with ./gen and compares pixels, so
// the committed PNGs cannot drift from the code that claims to draw them. It
// compares decoded pixels with a little tolerance rather than bytes: another
// Go release may compress differently, and arm64 fuses multiply-adds, which
// moves a rare edge pixel by one step.
func TestPNGsMatchGenerator(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the generator; skipped in -short mode")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH")
	}
	dir := t.TempDir()
	cmd := exec.Command(goBin, "run", "./gen", "-out", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run ./gen: %v\n%s", err, out)
	}
	drawn, err := filepath.Glob(filepath.Join(dir, "*.png"))
	if err != nil {
		t.Fatal(err)
	}
	committed, err := fs.Glob(files, "*.png")
	if err != nil {
		t.Fatal(err)
	}
	if len(drawn) != len(committed) {
		t.Errorf("./gen draws %d PNGs, the package embeds %d", len(drawn), len(committed))
	}
	for _, path := range drawn {
		name := filepath.Base(path)
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := files.ReadFile(name)
		if err != nil {
			t.Errorf("%s is drawn by ./gen but not embedded: run go generate ./assets", name)
			continue
		}
		if !samePixels(t, got, want) {
			t.Errorf("%s differs from what ./gen draws: run go generate ./assets", name)
		}
	}
}

func samePixels(t *testing.T, a, b []byte) bool {
	t.Helper()
	ia, err := png.Decode(bytes.NewReader(a))
	if err != nil {
		t.Fatal(err)
	}
	ib, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if ia.Bounds() != ib.Bounds() {
		return false
	}
	const tolerance = 2 << 8 // in 16-bit colour steps
	near := func(x, y uint32) bool { return x <= y+tolerance && y <= x+tolerance }
	r := ia.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			r1, g1, b1, a1 := ia.At(x, y).RGBA()
			r2, g2, b2, a2 := ib.At(x, y).RGBA()
			if !near(r1, r2) || !near(g1, g2) || !near(b1, b2) || !near(a1, a2) {
				return false
			}
		}
	}
	return true
}
