package signin

import (
	"context"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/oauth"
	"github.com/mcptray/mcptray/core/secret/secrettest"
)

const deadline = 20 * time.Second

// TestToldOfSignInElsewhere: a sign-in another mcptray made reaches this
// one's watcher as the server's key.
func TestToldOfSignInElsewhere(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	here := New(Options{Store: secrettest.New(), Dir: dir})
	there := New(Options{Store: secrettest.New(), Dir: dir})
	keys := make(chan string, 4)
	ctx, cancel := context.WithCancel(context.Background())
	run, err := here.Watch(ctx, func(key string) { keys <- key })
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); run() }()
	defer func() { cancel(); <-done }()
	sv := &config.Server{Name: "notes", ConfigName: "notes", Scope: config.User, Transport: config.HTTP, URL: "https://notes.example/mcp"}
	there.Tell(sv)
	select {
	case key := <-keys:
		if want := oauth.ServerKey(sv); key != want {
			t.Errorf("told %q, want %q", key, want)
		}
	case <-time.After(deadline):
		t.Fatal("a sign-in elsewhere was not told")
	}
}
