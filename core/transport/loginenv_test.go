package transport

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

func TestLoginEnvHasPATHAndIsCached(t *testing.T) {
	t.Parallel()
	ctx := stdioTestCtx(t)
	logger := slog.New(slog.DiscardHandler)

	first := LoginEnv(ctx, logger)
	if envValue(first, "PATH") == "" {
		t.Fatalf("LoginEnv has no PATH: %d entries", len(first))
	}
	start := time.Now()
	second := LoginEnv(ctx, logger)
	if took := time.Since(start); took > 100*time.Millisecond {
		t.Errorf("the second call took %s: not cached?", took)
	}
	if !slices.Equal(first, second) {
		t.Error("the second call returned a different environment")
	}
	second[0] = "MANGLED=1" // a caller's copy is its own
	if third := LoginEnv(ctx, logger); third[0] == "MANGLED=1" {
		t.Error("a caller changed the cached environment")
	}

	// However many ask at once, the shell runs once: the first caller's
	// load is held until the five others wait for it. (The real shell's
	// answer is first's; running it again here proved nothing more and
	// took another run of the person's profile, seconds where it is slow.)
	got := make([][]string, 6)
	var waiters sync.WaitGroup
	waiters.Add(len(got) - 1)
	c := &envCache{waiting: waiters.Done}
	c.load = func(ctx context.Context, _ *slog.Logger) ([]string, error) {
		all := make(chan struct{})
		go func() { waiters.Wait(); close(all) }()
		select {
		case <-all:
			return slices.Clone(first), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(10 * time.Second):
			return nil, errors.New("the other callers did not wait for the load under way")
		}
	}
	var wg sync.WaitGroup
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = c.get(ctx, logger)
		}()
	}
	wg.Wait()
	if c.loads != 1 {
		t.Errorf("the shell ran %d times, want 1", c.loads)
	}
	for i := range got {
		if !slices.Equal(got[i], got[0]) || envValue(got[i], "PATH") == "" {
			t.Errorf("caller %d got a different environment, or no PATH", i)
		}
	}
}

func TestLoginEnvCallerGivingUpIsNotCached(t *testing.T) {
	t.Parallel()
	logger := slog.New(slog.DiscardHandler)
	var c *envCache
	c = &envCache{load: func(ctx context.Context, _ *slog.Logger) ([]string, error) {
		if c.loads == 1 {
			<-ctx.Done() // the first caller gives up while the shell runs
			return nil, ctx.Err()
		}
		return []string{"PATH=/from/shell"}, nil
	}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if env := c.get(ctx, logger); envValue(env, "PATH") == "/from/shell" {
		t.Fatal("a cancelled caller got the shell's answer")
	}
	if env := c.get(context.Background(), logger); envValue(env, "PATH") != "/from/shell" {
		t.Fatalf("the next caller got %q, want the shell's answer", env)
	}
	if c.loads != 2 {
		t.Errorf("loads = %d, want 2", c.loads)
	}

	// A shell that fails is not asked again: the fallback is kept.
	failing := &envCache{load: func(context.Context, *slog.Logger) ([]string, error) {
		return nil, errors.New("no shell")
	}}
	a := failing.get(context.Background(), logger)
	b := failing.get(context.Background(), logger)
	if failing.loads != 1 || !slices.Equal(a, b) || envValue(a, "PATH") == "" {
		t.Errorf("loads = %d; fallback PATH %q", failing.loads, envValue(a, "PATH"))
	}
}

func TestLoginEnvToolDirsAddedWhenTheyExist(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	cargo := filepath.Join(home, ".cargo", "bin")
	if err := os.MkdirAll(cargo, 0o755); err != nil {
		t.Fatal(err)
	}
	dirs := toolDirs(home, func(string) string { return "" })
	if !slices.Contains(dirs, cargo) {
		t.Fatalf("toolDirs(%s) lacks %s: %q", home, cargo, dirs)
	}
	sep := string(filepath.ListSeparator)
	existing := t.TempDir()
	missing := filepath.Join(home, "missing")

	env := withToolDirs([]string{"A=1", "PATH=" + existing}, []string{missing, cargo, existing, cargo})
	want := []string{"A=1", "PATH=" + existing + sep + cargo}
	if !slices.Equal(env, want) {
		t.Errorf("withToolDirs = %q, want %q", env, want)
	}
	if env := withToolDirs([]string{"A=1"}, []string{cargo}); !slices.Equal(env, []string{"A=1", "PATH=" + cargo}) {
		t.Errorf("without PATH: %q", env)
	}
	in := []string{"PATH=" + cargo}
	if env := withToolDirs(in, []string{cargo}); !slices.Equal(env, in) {
		t.Errorf("nothing to add, yet %q", env)
	}
}

func TestLoginEnvParseOutput(t *testing.T) {
	t.Parallel()
	const m = "_MARK_"
	for _, tc := range []struct {
		name string
		out  string
		want []string
	}{
		{"env -0", "noise" + m + "A=1\x00B=two\nlines\x00C=\x00" + m + "more noise",
			[]string{"A=1", "B=two\nlines", "C="}},
		{"plain env", "Welcome!\n" + m + "A=1\nB=two\nlines\nC=3\n" + m,
			[]string{"A=1", "B=two\nlines", "C=3"}},
	} {
		got, err := parseEnvOutput([]byte(tc.out), m)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "no marks", m + "A=1", m + m} {
		if _, err := parseEnvOutput([]byte(bad), m); err == nil {
			t.Errorf("parseEnvOutput(%q) succeeded", bad)
		}
	}
	if got := withoutShellVars([]string{"PWD=/x", "A=1", "SHLVL=2", "_=/usr/bin/env", resolvingEnvVar + "=1", "OLDPWD=/"}); !slices.Equal(got, []string{"A=1"}) {
		t.Errorf("withoutShellVars = %q", got)
	}
	if !startsEnvEntry([]byte("_A9=x")) || startsEnvEntry([]byte("9A=x")) || startsEnvEntry([]byte("=x")) || startsEnvEntry([]byte("a b=x")) {
		t.Error("startsEnvEntry")
	}
}
