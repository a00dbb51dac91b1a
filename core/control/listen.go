package control

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/filelock"
)

// ErrRunning says that another mcptray is already running for this person
// and config.
var ErrRunning = errors.New("mcptray is already running")

// ErrNotRunning says that no mcptray is running to answer.
var ErrNotRunning = errors.New("mcptray is not running")

func lockPath(p config.Paths) string { return filepath.Join(p.ControlDir(), "instance.lock") }

// Listener is the running instance's endpoint: the socket, the instance
// lock and the control key, held until Close.
type Listener struct {
	net.Listener
	unlock func()
	path   string
	// key is the control key, written at KeyPath for this instance's
	// clients to read (key.go).
	key     []byte
	keyPath string
}

// lockTries is how many times Listen tries the instance lock, lockPause
// apart, before it says another mcptray runs. A client that asks whether
// one is starting (running, below) holds the lock for a few microseconds:
// an mcptray starting in that moment must not take the client for a
// running mcptray and give up (the tray started at login, say, while an
// app's mcptray stdio looks every 50 ms for the mcptray it started). A
// running mcptray holds the lock throughout; finding that out takes 40 ms
// longer.
const (
	lockTries = 5
	lockPause = 10 * time.Millisecond
)

// Listen makes this process the running mcptray: it takes the instance
// lock, writes a fresh control key, replaces a socket a dead instance left
// behind, and listens. It returns ErrRunning when another mcptray holds
// the lock.
func Listen(p config.Paths) (*Listener, error) { return listen(p, nil) }

// listen is Listen; busy, when not nil, is called after each try that
// found the lock taken.
func listen(p config.Paths, busy func()) (*Listener, error) {
	dir := p.ControlDir()
	if err := privateDir(dir); err != nil {
		return nil, err
	}
	var unlock func()
	for try := 1; ; try++ {
		var ok bool
		var err error
		unlock, ok, err = filelock.TryLock(lockPath(p))
		if err != nil {
			return nil, fmt.Errorf("taking the instance lock: %w", err)
		}
		if ok {
			break
		}
		if try == lockTries {
			return nil, ErrRunning
		}
		if busy != nil {
			busy()
		}
		time.Sleep(lockPause)
	}
	keep(lockPath(p))
	// The key is there before the socket: a client that reaches this
	// instance reads this instance's key, not a stopped one's.
	key, err := writeKey(p)
	if err != nil {
		unlock()
		return nil, err
	}
	fail := func(err error) (*Listener, error) {
		_ = os.Remove(KeyPath(p))
		unlock()
		return nil, err
	}
	path := SocketPath(p)
	ln, err := listenSocket(path)
	if err != nil {
		return fail(err)
	}
	return &Listener{Listener: ln, unlock: unlock, path: path, key: key, keyPath: KeyPath(p)}, nil
}

// Close stops listening, removes the socket and the key, and lets the
// lock go.
func (l *Listener) Close() error {
	err := l.Listener.Close()
	removeSocket(l.path)
	_ = os.Remove(l.keyPath)
	l.unlock()
	return err
}

// privateDir creates dir with mode 0700, or checks that an existing one
// belongs to this user and is not open to others.
func privateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("checking %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a folder; remove it and start mcptray again", dir)
	}
	if err := checkOwner(fi); err != nil {
		return fmt.Errorf("%s %w; remove it and start mcptray again", dir, err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("making %s private: %w", dir, err)
		}
	}
	return nil
}

// running reports whether an instance holds the lock (it may still be
// starting and not yet listening). It takes the lock for a moment to find
// out, which Listen allows for.
func running(p config.Paths) bool {
	unlock, ok, err := filelock.TryLock(lockPath(p))
	if err != nil {
		return false
	}
	if ok {
		unlock()
		return false
	}
	return true
}

// WaitStopped waits until no mcptray runs for p: the one that was asked
// to quit has closed everything (its servers, its record) and let its
// instance lock go. There is no event for that: it looks every 50 ms.
func WaitStopped(ctx context.Context, p config.Paths) error {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for running(p) {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
	return nil
}

// dial connects to the running instance, waiting a moment for one that is
// still starting.
func dial(ctx context.Context, p config.Paths) (net.Conn, error) {
	path := SocketPath(p)
	deadline := time.Now().Add(3 * time.Second)
	for {
		c, err := dialSocket(ctx, path)
		if err == nil {
			return c, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if !running(p) || time.Now().After(deadline) {
			return nil, ErrNotRunning
		}
		// An instance holds the lock but is not listening yet.
		t := time.NewTimer(50 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}
