package sandbox

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// pythonServer is a stdio MCP server in python's standard library alone:
// it answers initialize, and its one tool says whether python's
// multiprocessing (a lock and a block of shared memory, both in
// /dev/shm) and a file written in /tmp by name work.
const pythonServer = `
import json, multiprocessing, multiprocessing.shared_memory, os, sys

def tried(f):
    try:
        f()
        return "ok"
    except PermissionError:
        return "refused"
    except OSError as e:
        return "failed: " + str(e)

def lock():
    l = multiprocessing.Lock()
    l.acquire()
    l.release()

def shared():
    m = multiprocessing.shared_memory.SharedMemory(create=True, size=64)
    m.buf[0] = 1
    m.close()
    m.unlink()

def tmp():
    with open("/tmp/mcptray-python-%d" % os.getpid(), "w") as f:
        f.write("x")

for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    if msg["method"] == "initialize":
        result = {"protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {}},
                  "serverInfo": {"name": "python", "version": "1"}}
    else:
        said = {"lock": tried(lock), "shared": tried(shared), "tmp": tried(tmp)}
        result = {"content": [{"type": "text", "text": json.dumps(said)}]}
    print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}), flush=True)
`

// TestPythonServer: a python server answers in its sandbox through both
// launchers, in both modes; in namespaces of its own its multiprocessing
// and a /tmp written by name work (its own), and in the fallback they are
// refused, as the words say.
func TestPythonServer(t *testing.T) {
	// The system's python: the test's home is not the person's, whose
	// version managers' shims would point into it.
	python := "/usr/bin/python3"
	if _, err := os.Stat(python); err != nil {
		t.Skip("no /usr/bin/python3 here")
	}
	for mode, namespaces := range modes(t) {
		t.Run(mode, func(t *testing.T) {
			// Outside /tmp: a policy that names nothing in the
			// computer's /tmp gives the server its own to write.
			w := newWorldAt(t, "/var/tmp", true, namespaces)
			script := filepath.Join(w.project, "server.py")
			if err := os.WriteFile(script, []byte(pythonServer), 0o600); err != nil {
				t.Fatal(err)
			}
			p, err := Default(Input{Program: python, Args: []string{script}, Home: w.home, DataDir: w.data, ProjectDir: w.project,
				Dir: w.project, Env: []string{"PATH=/usr/bin:/bin"}, EgressPort: w.proxyPort, Namespaces: namespaces})
			if err == nil {
				err = p.Prepare()
			}
			if err != nil {
				t.Fatal(err)
			}
			want := map[bool]string{true: "ok", false: "refused"}[namespaces]
			for name, launcher := range launchers(t) {
				t.Run(name, func(t *testing.T) {
					said := callPython(t, launcher, p, python, script)
					for _, k := range []string{"lock", "shared", "tmp"} {
						if said[k] != want {
							t.Errorf("%s: %s, want %s", k, said[k], want)
						}
					}
				})
			}
		})
	}
}

// callPython starts the python server in p, initializes it, calls its
// tool and returns what it said.
func callPython(t *testing.T, launcher string, p Policy, python, script string) map[string]string {
	t.Helper()
	path, argv, env, err := Command(launcher, p, python, []string{"python3", script}, []string{"PATH=/usr/bin:/bin"})
	if err != nil {
		t.Fatal(err)
	}
	cmd := &exec.Cmd{Path: path, Args: argv, Env: env, Dir: filepath.Dir(script), WaitDelay: 10 * time.Second}
	var errOut lockedBuffer
	cmd.Stderr = &errOut
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := Start(cmd, p, (*exec.Cmd).Start)
	if err != nil {
		t.Fatal(err)
	}
	if ln != nil {
		defer ln.Close()
		go acceptAndClose(ln)
	}
	defer cmd.Wait()
	defer in.Close()
	_, err = in.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"try","arguments":{}}}` + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	var replies []string
	for len(replies) < 2 && lines.Scan() {
		replies = append(replies, lines.Text())
	}
	if len(replies) < 2 || !strings.Contains(replies[0], `"name": "python"`) {
		t.Fatalf("the python server answered %q\n%s", replies, errOut.String())
	}
	var reply struct {
		Result struct {
			Content []struct{ Text string }
		}
	}
	said := map[string]string{}
	if err := json.Unmarshal([]byte(replies[1]), &reply); err != nil || len(reply.Result.Content) != 1 {
		t.Fatalf("the python server's tool said %q (%v)", replies[1], err)
	}
	if err := json.Unmarshal([]byte(reply.Result.Content[0].Text), &said); err != nil {
		t.Fatal(err)
	}
	return said
}
