//go:build unix

package conn

import (
	"errors"
	"syscall"
	"testing"
)

// TestCloseLeavesNoProcess: every child is gone once Close returns.
func TestCloseLeavesNoProcess(t *testing.T) {
	t.Parallel()
	m := New(testOptions())
	if err := m.Apply(setOf(stdioEntry("a"), stdioEntry("b"))); err != nil {
		t.Fatal(err)
	}
	waitState(t, m, "a", Connected)
	waitState(t, m, "b", Connected)
	pids := m.pids()
	if len(pids) != 2 {
		t.Fatalf("pids = %v", pids)
	}
	m.Close()
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("process %d is still there after Close (%v)", pid, err)
		}
	}
}

// pids returns the process ids of every connected stdio server.
func (m *Manager) pids() []int {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []int
	for _, c := range m.conns {
		c.mu.Lock()
		if c.sess != nil && c.sess.pid != 0 {
			out = append(out, c.sess.pid)
		}
		c.mu.Unlock()
	}
	return out
}
