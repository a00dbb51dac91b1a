package transport

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

func TestProcessLookPathUsesTheGivenPATH(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("Unix file modes")
	}
	a, b := t.TempDir(), t.TempDir()
	write := func(path string, mode os.FileMode) {
		t.Helper()
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(a, "tool"), 0o644) // not executable: skipped
	write(filepath.Join(b, "tool"), 0o755)
	if err := os.Mkdir(filepath.Join(a, "dirtool"), 0o755); err != nil { // a folder: skipped
		t.Fatal(err)
	}
	write(filepath.Join(b, "dirtool"), 0o755)
	write(filepath.Join(a, "local"), 0o755)

	env := []string{"PATH=/nonexistent", "HOME=/x", "PATH=relative:" + a + "::" + b}
	for _, tc := range []struct {
		name, dir, want string
	}{
		{"tool", "", filepath.Join(b, "tool")},
		{"dirtool", "", filepath.Join(b, "dirtool")},
		{"./local", a, filepath.Join(a, "local")}, // a path: relative to the working folder
		{filepath.Join(a, "local"), "", filepath.Join(a, "local")},
	} {
		got, err := lookPath(tc.name, env, tc.dir)
		if err != nil || got != tc.want {
			t.Errorf("lookPath(%q) = %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
	for _, name := range []string{"nothing", "./tool", "local-not"} {
		if _, err := lookPath(name, env, a); !errors.Is(err, ErrCommandNotFound) {
			t.Errorf("lookPath(%q) = %v, want ErrCommandNotFound", name, err)
		}
	}
	// A relative folder on PATH is never searched, even where it would find
	// something.
	if _, err := lookPath("local", []string{"PATH=."}, a); err == nil {
		t.Error("lookPath searched a relative PATH folder")
	}
	if _, err := lookPath("tool", nil, ""); err == nil {
		t.Error("lookPath found something with no PATH")
	}
}

func TestProcessChildEnv(t *testing.T) {
	t.Parallel()
	base := []string{"A=1", "PATH=/usr/bin", "B=2", "A=3", "PWD=/elsewhere", "junk"}
	got := childEnv(base, map[string]string{"B": "two", "C": "3", "PATH": "/mine"}, "/home/x")
	want := []string{"A=3", "PATH=/mine", "B=two", "PWD=/home/x", "C=3"}
	if runtime.GOOS == "windows" {
		want = []string{"A=3", "PATH=/mine", "B=two", "PWD=/elsewhere", "C=3"}
	}
	if !slices.Equal(got, want) {
		t.Errorf("childEnv = %q, want %q", got, want)
	}
	if got := childEnv(nil, map[string]string{"PWD": "/mine"}, "/home/x"); !slices.Equal(got, []string{"PWD=/mine"}) {
		t.Errorf("the server's own PWD was replaced: %q", got)
	}
	if v := envValue([]string{"X=1", "Y=2", "X=3=4"}, "X"); v != "3=4" {
		t.Errorf("envValue = %q", v)
	}
}

func TestProcessCmdShimLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		path string
		args []string
		want string
	}{
		{`C:\Program Files\nodejs\npx.cmd`, []string{"-y", "@scope/server"},
			`"C:\Program Files\nodejs\npx.cmd" ^"-y^" ^"@scope/server^"`},
		{`C:\t\run.bat`, []string{`a b`, `x&y|z`, `100%`, `say "hi"`, `C:\dir\`},
			`"C:\t\run.bat" ^"a^ b^" ^"x^&y^|z^" ^"100^%^" ^"say^ \^"hi\^"^" ^"C:\dir\\^"`},
		{`C:\p\node_modules\.bin\server.cmd`, []string{"a&b"},
			`"C:\p\node_modules\.bin\server.cmd" ^^^"a^^^&b^^^"`},
	} {
		if got := cmdShimLine(tc.path, tc.args); got != tc.want {
			t.Errorf("cmdShimLine(%q, %q) =\n %s\nwant\n %s", tc.path, tc.args, got, tc.want)
		}
	}
	for in, want := range map[string]string{
		``:         `""`,
		`a`:        `"a"`,
		`a\b`:      `"a\b"`,
		`a\"b`:     `"a\\\"b"`,
		`a\\`:      `"a\\\\"`,
		`"quoted"`: `"\"quoted\""`,
	} {
		if got := argvQuote(in); got != want {
			t.Errorf("argvQuote(%s) = %s, want %s", in, got, want)
		}
	}
}
