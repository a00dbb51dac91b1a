//go:build linux

package e2e

import (
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/mcptray/mcptray/core/ocipin/ocitest"
)

// TestRetryThroughTheRunningMcptray: a docker server whose image its
// registry lacks fails to be pinned, and mcptray status says the fix is
// mcptray retry, not approve (the person's own server needs no
// approval); once the image is pushed, mcptray retry has the running
// mcptray pin it again, and it connects, run by the image's digest.
// docker is the test server under that name: no Docker daemon runs here.
func TestRetryThroughTheRunningMcptray(t *testing.T) {
	t.Parallel()
	mcptray, testServer := Binary(t), TestServer(t)
	reg := ocitest.Start(t)
	docker := OwnAs(t, testServer, "docker")
	s := startServe(t, mcptray, testServer)
	if out, err := s.run("add", "local", "--", docker, "run", "-i", reg.Host+"/built-here:dev"); err != nil {
		t.Fatalf("mcptray add: %v\n%s", err, out)
	}
	if line := s.waitPrefix("local to fail", "local: failed"); !strings.Contains(line, "has no image") {
		t.Fatalf("serve says: %s", line)
	}
	out, err := s.run("status")
	if !strings.Contains(out, "has no image") || !strings.Contains(out, "mcptray retry local") {
		t.Fatalf("status before the image is pushed says:\n%s", out)
	}
	d := reg.Push(t, "built-here:dev", 1, v1.Config{Entrypoint: []string{"/srv"}})
	if out, err := s.run("retry", "local"); err != nil || !strings.Contains(out, "Trying local again") {
		t.Fatalf("mcptray retry: %v\n%s", err, out)
	}
	s.waitPrefix("local to connect", "local: connected")
	out, err = s.run("status")
	if err != nil || !strings.Contains(out, "local ") || strings.Contains(out, "failed") {
		t.Fatalf("status after retry: %v\n%s", err, out)
	}
	out, err = s.run("call", "local", "env", `{"name":"DOCKER_ARGS"}`)
	if err != nil || !strings.Contains(out, "built-here@"+d) {
		t.Fatalf("after retry it runs docker %s (%v), want the digest %s", out, err, d)
	}
	if out, err := s.run("quit"); err != nil {
		t.Errorf("mcptray quit: %v\n%s", err, out)
	}
}
