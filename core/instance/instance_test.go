package instance

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/control"
	"github.com/mcptray/mcptray/core/secret/secrettest"
	"github.com/mcptray/mcptray/core/service"
	"github.com/mcptray/mcptray/test/mcpserver"
)

var testServerBin string

func TestMain(m *testing.M) { os.Exit(mcpserver.RunTests(m, &testServerBin)) }

// deadline bounds every wait: a wait that reaches it has failed.
const deadline = 20 * time.Second

// home returns the paths of a temporary home whose config runs the test
// server as "t".
func home(t *testing.T) config.Paths {
	t.Helper()
	dir := t.TempDir()
	env := map[string]string{"HOME": dir, "XDG_RUNTIME_DIR": filepath.Join(dir, "run")}
	p, err := config.NewPaths("linux", func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	p.Enterprise = filepath.Join(dir, "etc", "managed.json")
	b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"t": map[string]any{"command": testServerBin, "args": []string{"-name", "t"}},
	}})
	if err := os.MkdirAll(filepath.Dir(p.UserFile()), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p.UserFile(), b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func options(p config.Paths) Options {
	return Options{Service: service.Options{Paths: p, Store: secrettest.New(),
		Lookup: func(string) (string, bool) { return "", false }}}
}

// TestOneRunning: while an instance holds the paths, a second is refused
// with control.ErrRunning; once it is closed, the next one runs.
func TestOneRunning(t *testing.T) {
	p := home(t)
	first, err := Listen(options(p))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Listen(options(p)); !errors.Is(err, control.ErrRunning) {
		t.Fatalf("a second Listen: %v, want ErrRunning", err)
	}
	if err := first.Close(); err != nil { // never started: closes all the same
		t.Fatal(err)
	}
	second, err := Listen(options(p))
	if err != nil {
		t.Fatalf("Listen after Close: %v", err)
	}
	second.Close()
}

// TestQuitStopsEverything: mcptray quit, through the control endpoint,
// ends the instance's context; Close then leaves no server process, no
// endpoint and no gateway behind.
func TestQuitStopsEverything(t *testing.T) {
	p := home(t)
	inst, err := Listen(options(p))
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	if err := inst.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if inst.Gateway == nil {
		t.Fatal("Start did not start the gateway")
	}
	cl, err := control.Dial(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, err := cl.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := cl.Call(ctx, service.CallRequest{Server: "t", Tool: "pid"})
	if err != nil {
		t.Fatalf("calling the server through the endpoint: %v", err)
	}
	pid, err := strconv.Atoi(mcp.GetTextFromContent(res.Content[0]))
	if err != nil {
		t.Fatalf("the pid tool said %v", res.Content)
	}
	if err := cl.Quit(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-inst.Context().Done():
	case <-ctx.Done():
		t.Fatal("mcptray quit did not end the instance's context")
	}
	if err := inst.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if inst.Err() != nil {
		t.Errorf("Err after a quit: %v", inst.Err())
	}
	if alive(pid) {
		t.Errorf("the server's process %d is still there after Close", pid)
	}
	if _, err := control.Dial(ctx, p); !errors.Is(err, control.ErrNotRunning) {
		t.Errorf("Dial after Close: %v, want ErrNotRunning", err)
	}
	if _, err := os.Stat(control.KeyPath(p)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the control key after Close: %v, want it gone", err)
	}
}

// TestContextEnds: the end of Start's context stops the instance as Quit
// does.
func TestContextEnds(t *testing.T) {
	inst, err := Listen(options(home(t)))
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	ctx, cancel := context.WithCancel(context.Background())
	if err := inst.Start(ctx); err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case <-inst.Context().Done():
	case <-time.After(deadline):
		t.Fatal("the instance did not stop with Start's context")
	}
}

// TestQuestionsGoToTheWindow: with a window, a server's question during a
// call opens the window at that server; without one it gets the answer
// Service.Elicit gives, here the question's defaults.
func TestQuestionsGoToTheWindow(t *testing.T) {
	for _, window := range []bool{true, false} {
		t.Run(map[bool]string{true: "window", false: "none"}[window], func(t *testing.T) {
			opened := make(chan string, 1)
			o := options(home(t))
			o.Window = window
			o.OpenWindow = func(server string) error {
				select {
				case opened <- server:
				default:
				}
				return nil
			}
			inst, err := Listen(o)
			if err != nil {
				t.Fatal(err)
			}
			defer inst.Close()
			inst.Endpoint.SetAskTimeout(50 * time.Millisecond) // nobody answers here
			ctx, cancel := context.WithTimeout(context.Background(), deadline)
			defer cancel()
			if err := inst.Start(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := inst.Service.Settle(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := inst.Service.Call(ctx, service.CallRequest{Server: "t", Tool: "ask"}); err != nil {
				t.Fatalf("the ask tool: %v", err)
			}
			select {
			case s := <-opened:
				if !window {
					t.Errorf("with no window, the question opened one at %q", s)
				} else if s != "t" {
					t.Errorf("the window opened at %q, want t", s)
				}
			default:
				if window {
					t.Error("the server's question did not open the window")
				}
			}
		})
	}
}
