package transport

import (
	"context"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"golang.org/x/sys/windows"
)

// jobProbeVar makes the test binary a hostile server: the first thing it
// does is ask whether it is in a job object and start a program of its own
// that would run an hour, before mcptray could have put it in a job had it
// been started and then joined; then it serves MCP with one tool, first,
// which answers what it saw.
const jobProbeVar = "MCPTRAY_JOB_PROBE"

func init() {
	if os.Getenv(jobProbeVar) != "" {
		os.Exit(runJobProbe())
	}
}

func runJobProbe() int {
	var in int32
	r, _, err := procIsProcessInJob.Call(uintptr(windows.CurrentProcess()), 0, uintptr(unsafe.Pointer(&in)))
	if r == 0 {
		fmt.Fprintln(os.Stderr, "IsProcessInJob:", err)
		return 1
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	child := exec.Command(exe)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, jobProbeVar+"=") {
			child.Env = append(child.Env, kv)
		}
	}
	child.Env = append(child.Env, stdioChildVar+"=sleep")
	if err := child.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	first := fmt.Sprintf("injob=%v pid=%d", in != 0, child.Process.Pid)
	s := server.NewMCPServer("probe", "1.0.0", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("first"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(first), nil
	})
	ss := server.NewStdioServer(s)
	ss.SetErrorLogger(log.New(io.Discard, "", 0))
	_ = ss.Listen(context.Background(), os.Stdin, os.Stdout)
	return 0
}

// TestServerIsInItsJobFromItsFirstInstruction: a server is in its job
// object before it runs, so a program it starts at once is in the job too,
// and ends when the server is stopped.
func TestServerIsInItsJobFromItsFirstInstruction(t *testing.T) {
	ctx := stdioTestCtx(t)
	s := newStdioChild(t, "", func(cfg *StdioConfig) { cfg.Env[jobProbeVar] = "1" })
	c := connectStdio(t, ctx, s)
	got, err := callTool(ctx, c, "first", nil)
	if err != nil {
		t.Fatalf("first: %v (stderr: %q)", err, s.Stderr())
	}
	var in bool
	var pid uint32
	if _, err := fmt.Sscanf(got, "injob=%t pid=%d", &in, &pid); err != nil {
		t.Fatalf("first answered %q: %v", got, err)
	}
	if !in {
		t.Error("the server ran its first instruction outside any job object")
	}
	if ok, err := ServerProcess(int(pid)); err != nil || !ok {
		t.Errorf("ServerProcess(the program it started at once) = %v, %v; want true", ok, err)
	}
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, pid)
	if err != nil {
		t.Fatalf("opening the program it started: %v", err)
	}
	defer windows.CloseHandle(h)
	if err := s.Close(); err != nil {
		t.Logf("Close: %v", err)
	}
	if ev, _ := windows.WaitForSingleObject(h, uint32((10 * time.Second).Milliseconds())); ev != windows.WAIT_OBJECT_0 {
		t.Error("the program the server started at once outlived the server")
	}
}

// TestStartProcessJoinsBeforeItReturns: when startProcess returns, the
// child is in a server's job already; a child started and joined after
// (as startGroup once did) was not, and ran meanwhile.
func TestStartProcessJoinsBeforeItReturns(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), stdioChildVar+"=sleep")
	cmd.SysProcAttr = sysProcAttr()
	if err := startProcess(cmd); err != nil {
		t.Fatal(err)
	}
	in, err := ServerProcess(cmd.Process.Pid)
	g, gerr := startGroup(cmd.Process, slog.New(slog.DiscardHandler))
	if gerr != nil {
		_ = cmd.Process.Kill()
	} else {
		g.kill()
		g.release()
	}
	_ = cmd.Wait()
	if err != nil || !in {
		t.Errorf("ServerProcess(a child startProcess started) = %v, %v; want true", in, err)
	}
	if gerr != nil {
		t.Errorf("startGroup: %v", gerr)
	}
}
