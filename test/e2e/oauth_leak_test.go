//go:build linux

package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/test/authserver"
)

// TestNoSecretOnDiskOrInLogs: after a whole sign-in, refreshes and calls
// with every log line on (MCPTRAY_DEBUG=1), no code, PKCE verifier,
// token or client secret the authorization server issued or was shown is
// in any file mcptray could write or in anything it printed, as it is or
// encoded. They belong in the keychain only.
func TestNoSecretOnDiskOrInLogs(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "MCPTRAY_DEBUG=1")
	srv := authserver.Start()
	t.Cleanup(srv.Close)

	// The server stops taking the login's token early: the call meets a
	// 401 and refreshes, so refresh tokens pass through too, and the
	// debug log says so.
	w.must("login", srv.MCPURL)
	srv.ExpireAccessTokens()
	if out := w.must("call", srv.MCPURL, "echo", `{"text":"hello"}`); !strings.Contains(out, "hello") {
		t.Fatalf("call printed %q", out)
	}
	w.must("tools", srv.MCPURL)
	// And a sign-in started by a call's 401 rather than by login.
	w.must("logout", srv.MCPURL)
	w.must("call", srv.MCPURL, "echo", `{"text":"again"}`)
	w.signOutAtEnd(srv.MCPURL)

	secrets := srv.Secrets()
	for _, kind := range []string{"cs-", "code-", "at-", "rt-"} {
		if !hasPrefix(secrets, kind) {
			t.Fatalf("the server recorded no %s secret; the test would prove nothing: %d recorded", kind, len(secrets))
		}
	}
	if st := srv.Stats(); st.Refreshes == 0 || st.Authorizations != 2 {
		t.Fatalf("the server saw %+v; want refreshes and two sign-ins", st)
	}
	// The verifiers are what the server was shown that it did not issue.
	verifiers := 0
	for _, s := range secrets {
		if !hasPrefix([]string{s}, "cs-", "code-", "at-", "rt-") {
			verifiers++
		}
	}
	if verifiers != 2 {
		t.Fatalf("the server recorded %d PKCE verifiers, want 2", verifiers)
	}

	// The debug log must have said something, or it was not on.
	w.mu.Lock()
	outputs := append([]string(nil), w.outputs...)
	w.mu.Unlock()
	if !strings.Contains(strings.Join(outputs, ""), "level=DEBUG") {
		t.Fatal("no debug line in mcptray's output: MCPTRAY_DEBUG did not take")
	}
	for i, o := range outputs {
		if s, form := findSecret(o, secrets); s != "" {
			t.Errorf("output %d of mcptray holds a secret (%s) %s…:\n%s", i, form, s[:6], o)
		}
	}

	files := w.scanFiles(secrets)
	if _, err := os.Stat(w.lockDir()); err != nil {
		t.Errorf("mcptray made no refresh lock folder, so the walk may have missed where it writes: %v", err)
	}
	t.Logf("%d secrets looked for in %d files and %d outputs", len(secrets), files, len(outputs))
}

// scanFiles looks for the secrets in every file under the world's root and
// returns how many files it read.
func (w *world) scanFiles(secrets []string) int {
	w.t.Helper()
	files := 0
	err := filepath.WalkDir(w.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files++
		if s, form := findSecret(string(b), secrets); s != "" {
			rel, _ := filepath.Rel(w.root, p)
			w.t.Errorf("%s holds a secret (%s) %s…", rel, form, s[:6])
		}
		return nil
	})
	if err != nil {
		w.t.Fatal(err)
	}
	return files
}

// TestNoSecretInTheLogFile: the same with mcptray serve running, so that
// the sign-ins, a refresh and the calls happen in the process that writes
// the log file, with every line on (MCPTRAY_DEBUG=1): none of the secrets
// is in the log, nor in what mcptray logs prints of it.
func TestNoSecretInTheLogFile(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "MCPTRAY_DEBUG=1")
	srv := authserver.Start()
	t.Cleanup(srv.Close)
	stop := w.serve()

	w.must("login", srv.MCPURL)
	srv.ExpireAccessTokens()
	if out := w.must("call", srv.MCPURL, "echo", `{"text":"hello"}`); !strings.Contains(out, "hello") {
		t.Fatalf("call printed %q", out)
	}
	w.must("logout", srv.MCPURL)
	w.must("call", srv.MCPURL, "echo", `{"text":"again"}`)
	w.signOutAtEnd(srv.MCPURL)
	stop()

	secrets := srv.Secrets()
	for _, kind := range []string{"code-", "at-", "rt-"} {
		if !hasPrefix(secrets, kind) {
			t.Fatalf("the server recorded no %s secret; the test would prove nothing: %d recorded", kind, len(secrets))
		}
	}
	if st := srv.Stats(); st.Refreshes == 0 || st.Authorizations != 2 {
		t.Fatalf("the server saw %+v; want refreshes and two sign-ins", st)
	}
	log, err := os.ReadFile(w.logFile())
	if err != nil {
		t.Fatalf("mcptray serve wrote no log file: %v", err)
	}
	// The sign-ins must have happened in serve, with its debug lines on,
	// or the log proves nothing.
	for _, want := range []string{`"msg":"mcptray serve starts"`, `"level":"DEBUG"`, `"msg":"signed in"`, `"msg":"mcptray serve stopped"`} {
		if !strings.Contains(string(log), want) {
			t.Errorf("the log file has no %s:\n%s", want, log)
		}
	}
	if out := w.must("logs", "-n", "100000"); !strings.Contains(out, "INFO  signed in") {
		t.Errorf("mcptray logs does not show the sign-in:\n%s", out)
	}

	w.mu.Lock()
	outputs := append([]string(nil), w.outputs...)
	w.mu.Unlock()
	for i, o := range outputs {
		if s, form := findSecret(o, secrets); s != "" {
			t.Errorf("output %d of mcptray holds a secret (%s) %s…:\n%s", i, form, s[:6], o)
		}
	}
	files := w.scanFiles(secrets)
	t.Logf("%d secrets looked for in %d files (the log is %d bytes) and %d outputs", len(secrets), files, len(log), len(outputs))
}

// logFile is the log of mcptray serve and the tray's process.
func (w *world) logFile() string {
	return filepath.Join(w.root, "state", "mcptray", "logs", "mcptray.log")
}

// serve starts mcptray serve in the world, waits until its log says it
// started (its control socket is there by then, so commands go through
// it), and returns what stops it and keeps its output.
func (w *world) serve() (stop func()) {
	w.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut bytes.Buffer
	cmd := w.command(ctx, &out, &errOut, "serve")
	if err := cmd.Start(); err != nil {
		w.t.Fatalf("starting mcptray serve: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop = func() {
		w.t.Helper()
		defer cancel()
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			w.t.Fatalf("stopping mcptray serve: %v", err)
		}
		select {
		case err := <-exited:
			if err != nil {
				w.t.Errorf("mcptray serve ended with %v\nstderr: %s", err, errOut.String())
			}
		case <-time.After(30 * time.Second):
			w.t.Fatal("mcptray serve did not stop within 30s of SIGTERM")
		}
		w.keep(&out, &errOut)
	}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	for {
		if b, _ := os.ReadFile(w.logFile()); strings.Contains(string(b), "mcptray serve starts") {
			return stop
		}
		select {
		case err := <-exited:
			cancel()
			w.t.Fatalf("mcptray serve ended at once: %v\n%s%s", err, out.String(), errOut.String())
		case <-deadline.C:
			cancel()
			w.t.Fatalf("mcptray serve wrote no start line to %s within 30s", w.logFile())
		case <-tick.C:
		}
	}
}

func hasPrefix(ss []string, prefixes ...string) bool {
	for _, s := range ss {
		for _, p := range prefixes {
			if strings.HasPrefix(s, p) {
				return true
			}
		}
	}
	return false
}

var encodings = map[string]*base64.Encoding{
	"base64": base64.StdEncoding, "base64url": base64.URLEncoding,
	"raw base64": base64.RawStdEncoding, "raw base64url": base64.RawURLEncoding,
}

// base64Run is a stretch of text that may be base64 of something long
// enough to hold a secret.
var base64Run = regexp.MustCompile(`[A-Za-z0-9+/_-]{16,}={0,2}`)

// findSecret returns the first secret in text and how it was written
// there: as it is, URL-encoded, base64 of it, or inside base64 of
// something longer (a JSON value, a Basic header).
func findSecret(text string, secrets []string) (secret, form string) {
	for _, s := range secrets {
		if strings.Contains(text, s) {
			return s, "as it is"
		}
		if e := url.QueryEscape(s); e != s && strings.Contains(text, e) {
			return s, "URL-encoded"
		}
		for name, enc := range encodings {
			if strings.Contains(text, enc.EncodeToString([]byte(s))) {
				return s, name
			}
		}
	}
	for _, run := range base64Run.FindAllString(text, -1) {
		for name, enc := range encodings {
			// A run may start off a 4-character boundary of the encoding.
			for off := 0; off < 4 && off < len(run); off++ {
				b, err := enc.DecodeString(trimToQuantum(run[off:], enc))
				if err != nil {
					continue
				}
				for _, s := range secrets {
					if bytes.Contains(b, []byte(s)) {
						return s, "inside " + name
					}
				}
			}
		}
	}
	return "", ""
}

// trimToQuantum cuts s to a length enc can decode.
func trimToQuantum(s string, enc *base64.Encoding) string {
	if enc == base64.StdEncoding || enc == base64.URLEncoding {
		s = strings.TrimRight(s, "=")
		s = s[:len(s)/4*4]
		return s
	}
	s = strings.TrimRight(s, "=")
	if len(s)%4 == 1 {
		s = s[:len(s)-1]
	}
	return s
}

// TestFindSecret checks the finder itself, so that a pass of
// TestNoSecretOnDiskOrInLogs means something.
func TestFindSecret(t *testing.T) {
	t.Parallel()
	const s = "rt-ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	blob := `{"refresh_token":"` + s + `","expiry":"2026"}`
	for name, text := range map[string]string{
		"as it is":       "x " + s + " y",
		"base64 of it":   base64.StdEncoding.EncodeToString([]byte(s)),
		"inside base64":  "value=" + base64.StdEncoding.EncodeToString([]byte(blob)),
		"inside raw url": base64.RawURLEncoding.EncodeToString([]byte("Basic " + blob)),
		"url-encoded":    url.QueryEscape("a b " + s),
	} {
		if got, _ := findSecret(text, []string{s}); got != s {
			t.Errorf("%s: not found in %q", name, text)
		}
	}
	if got, form := findSecret("nothing here, QUJDREVGR0hJSktMTU5PUA==", []string{s}); got != "" {
		t.Errorf("found %q (%s) where it is not", got, form)
	}
}
