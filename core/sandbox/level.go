package sandbox

import (
	"fmt"
	"strings"
)

// Level is how well a server is protected, in a form front ends show.
type Level struct {
	// Files and Network say what is restricted: files (read, write, run)
	// and TCP connections.
	Files   bool `json:"files"`
	Network bool `json:"network"`
	// Isolated says that it runs in a network and among processes of its
	// own (Linux namespaces), where only mcptray's proxy is reachable.
	Isolated bool `json:"isolated,omitempty"`
	// ABI is the Linux kernel's Landlock version; 0 elsewhere or without it.
	ABI int `json:"abi,omitempty"`
	// Words says it to a person: "files protected, network not: this
	// system's kernel is older than 6.7".
	Words string `json:"words"`
}

// Why a server runs without a sandbox, when it is none of the kernel's
// doing.
const (
	wordsOff          = "not protected: you turned its sandbox off"
	wordsNoLaunch     = "not protected: this mcptray runs servers without its sandbox launcher"
	wordsPodman       = "not protected by mcptray: podman's own container isolation applies (its helpers cannot run in mcptray's sandbox)"
	wordsWindows      = "not protected: on Windows mcptray has no file or network sandbox yet, so it can read and change your files and reach the network as you can; only this holds there: nothing it starts outlives it (a job object)"
	wordsNoKernel     = "not protected: this system's kernel has no Landlock (it needs Linux 5.13 or later, with Landlock turned on)"
	wordsOldKernel    = "files protected, network not: this system's kernel is older than 6.7"
	wordsNoProxy      = "files protected; network open: mcptray's egress proxy is not running"
	wordsIsolated     = "files and network protected: it runs in a network of its own, where mcptray's proxy is all it can reach"
	wordsPortOpen     = "files and network protected, except that a program listening on port %d at another address of this computer could be reached: this system does not let mcptray give it a network of its own"
	wordsSockets      = "it may connect to other programs' sockets (Docker's, the session bus): through them it can do anything you can on this computer"
	wordsDockerSocket = "it may connect to the sockets of what its command runs (Docker's: Docker can do anything on this computer)"
	wordsNoFilter     = "other programs' sockets (the session bus, ssh-agent) stay within its reach: mcptray has no system call filter for this processor"
	wordsSignals      = "it could signal your other programs: this system's kernel is older than 6.12"
	wordsShared       = "this system does not let mcptray give it processes and temporary folders of its own: its command line, and any secret in it, can be read by your other programs and servers, and it may not use /tmp nor shared memory (/dev/shm), without which some programs fail (python's multiprocessing)"
	wordsMac          = "files protected by macOS's sandbox (untried: mcptray's Seatbelt profile has not been run on a Mac yet); network open"
)

// Off is the level of a server that runs without a sandbox because the
// person turned it off (off) or because this mcptray has no launcher.
func Off(turnedOff bool) Level {
	if turnedOff {
		return Level{Words: wordsOff}
	}
	return Level{Words: wordsNoLaunch}
}

// levelFor is the level p gets on Linux with Landlock ABI abi: what
// holds there, and what is left open said in words.
func levelFor(p Policy, abi int) Level {
	var l Level
	switch {
	case p.None:
		return Level{Words: wordsPodman}
	case abi <= 0:
		return Level{Words: wordsNoKernel}
	case !p.RestrictTCP:
		l = Level{Files: true, ABI: abi, Words: wordsNoProxy}
	case abi < 4:
		l = Level{Files: true, ABI: abi, Words: wordsOldKernel}
	case p.Namespaces:
		l = Level{Files: true, Network: true, Isolated: true, ABI: abi, Words: wordsIsolated}
	default:
		port := 0
		if len(p.Ports) > 0 {
			port = p.Ports[0]
		}
		l = Level{Files: true, Network: true, ABI: abi, Words: fmt.Sprintf(wordsPortOpen, port)}
	}
	var left []string
	switch {
	case p.Sockets && !p.AnySocket && abi >= 9:
		left = append(left, wordsDockerSocket)
	case p.Sockets:
		left = append(left, wordsSockets)
	case !SeccompSupported():
		left = append(left, wordsNoFilter)
	}
	if abi < 6 && !p.Namespaces {
		left = append(left, wordsSignals)
	}
	if !p.Namespaces {
		left = append(left, wordsShared)
	}
	if len(left) > 0 {
		l.Words += "; " + strings.Join(left, "; ")
	}
	return l
}
