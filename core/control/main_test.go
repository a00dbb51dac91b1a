package control

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// peerEnv makes the tests' own binary a peer of the endpoint: with it
// set, to a peerSpec, it sends that one request, prints what came back
// (a peerAnswer) and exits. A test starts it as another process, in
// namespaces of its own or not (guard_linux_test.go).
const peerEnv = "MCPTRAY_TEST_CONTROL_PEER"

func TestMain(m *testing.M) {
	if spec := os.Getenv(peerEnv); spec != "" {
		os.Exit(runPeer(spec))
	}
	os.Exit(m.Run())
}

// peerSpec is the request a peer sends, with the key it was given.
type peerSpec struct {
	Socket, Key        string
	Method, Path, Body string
	// Out, when set, is the file the answer goes to instead of stdout
	// (a peer run as a server, whose stdout is its MCP channel).
	Out string `json:",omitempty"`
	// Child has the peer start itself again and let that child ask:
	// what a server's own child would do.
	Child bool `json:",omitempty"`
}

// peerAnswer is what the peer got back, and its own PID namespace.
type peerAnswer struct {
	answer
	NS string `json:"ns"`
}

func runPeer(spec string) int {
	var s peerSpec
	if err := json.Unmarshal([]byte(spec), &s); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if s.Child {
		s.Child = false
		child, _ := json.Marshal(s)
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), peerEnv+"="+string(child))
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	}
	a, err := rawRequest(s.Socket, s.Key, CommandLine, s.Method, s.Path, s.Body)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ns, _ := os.Readlink("/proc/self/ns/pid")
	out, _ := json.Marshal(peerAnswer{answer: a, NS: ns})
	if s.Out != "" {
		if err := os.WriteFile(s.Out, out, 0o600); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	}
	if _, err := fmt.Printf("%s\n", out); err != nil {
		return 1
	}
	return 0
}
