package transport

import (
	"bytes"
	"os"
	"strconv"
	"testing"
)

// isForeignZombie reports whether pid is a zombie whose parent is not this
// process: dead, and its reaping that parent's business. An orphan's new
// parent is init, and some inits (this sandbox's among them) reap only every
// second or two.
func isForeignZombie(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	state, _, ok := parseProcStat(stat)
	if !ok || state != 'Z' {
		return false
	}
	f := bytes.Fields(stat[bytes.LastIndexByte(stat, ')')+1:])
	ppid, err := strconv.Atoi(string(f[1]))
	return err == nil && ppid != os.Getpid()
}

func TestProcessParseProcStat(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		stat  string
		state byte
		pgrp  int
		ok    bool
	}{
		{"42 (node) S 1 40 40 0 -1", 'S', 40, true},
		{"42 (a) (b) Z) Z 7 99 99 0", 'Z', 99, true},
		{"42 (x", 0, 0, false},
		{"42 (x) R 1", 0, 0, false},
	} {
		state, pgrp, ok := parseProcStat([]byte(tc.stat))
		if state != tc.state || pgrp != tc.pgrp || ok != tc.ok {
			t.Errorf("parseProcStat(%q) = %c, %d, %v", tc.stat, state, pgrp, ok)
		}
	}
}
