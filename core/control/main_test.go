package control

import (
	"encoding/json"
	"fmt"
	"os"
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
	a, err := rawRequest(s.Socket, s.Key, CommandLine, s.Method, s.Path, s.Body)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ns, _ := os.Readlink("/proc/self/ns/pid")
	if err := json.NewEncoder(os.Stdout).Encode(peerAnswer{answer: a, NS: ns}); err != nil {
		return 1
	}
	return 0
}
