package rawio

import (
	"bytes"
	"errors"
	"io"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"
)

func pipe(t *testing.T) (r, w *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

// TestPipe: what is written raw is read raw, whole and in order, however
// full the pipe gets; the writer's end is the reader's EOF.
func TestPipe(t *testing.T) {
	pr, pw := pipe(t)
	r, w := Reader(pr), Writer(pw)
	if runtime.GOOS == "linux" {
		if _, ok := r.(*reader); !ok {
			t.Fatalf("a pipe is read with %T", r)
		}
		if _, ok := w.(*writer); !ok {
			t.Fatalf("a pipe is written with %T", w)
		}
	}
	want := bytes.Repeat([]byte("0123456789abcdef"), 64<<10) // a pipe holds 64 KiB
	go func() {
		n, err := w.Write(want)
		if err != nil || n != len(want) {
			t.Errorf("Write: %d, %v", n, err)
		}
		pw.Close()
	}()
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("read %d bytes, %v; want %d", len(got), err, len(want))
	}
}

// TestTryWrite: a full pipe takes what it has room for, and says the rest
// must wait without an error; a pipe nobody reads any more says why.
func TestTryWrite(t *testing.T) {
	pr, pw := pipe(t)
	tw := NewTryWriter(pw)
	if tw == nil {
		if runtime.GOOS == "linux" {
			t.Fatal("a pipe has no TryWriter")
		}
		t.Skip("no raw writes here")
	}
	big := make([]byte, 1<<20)
	done := make(chan struct{})
	go func() {
		defer close(done)
		n, err := tw.TryWrite(big)
		if err != nil || n == 0 || n >= len(big) {
			t.Errorf("TryWrite into a pipe nobody reads: %d, %v", n, err)
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("TryWrite waited for a full pipe")
	}
	pr.Close()
	if _, err := tw.TryWrite([]byte("x")); !errors.Is(err, syscall.EPIPE) {
		t.Errorf("TryWrite to a closed pipe: %v, want EPIPE", err)
	}
}

// TestClosedWhileReading: closing the file ends a read that waits.
func TestClosedWhileReading(t *testing.T) {
	pr, _ := pipe(t)
	r := Reader(pr)
	errc := make(chan error, 1)
	go func() {
		_, err := r.Read(make([]byte, 10))
		errc <- err
	}()
	pr.Close()
	select {
	case err := <-errc:
		if err == nil {
			t.Error("a read of a closed file succeeded")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("closing the file did not end the read")
	}
}

// TestBlockingLeftAlone: a descriptor in blocking mode is read and written
// as it is.
func TestBlockingLeftAlone(t *testing.T) {
	pr, pw := pipe(t)
	pr.Fd() // Fd puts it in blocking mode
	pw.Fd()
	if r := Reader(pr); r != io.Reader(pr) {
		t.Errorf("a blocking pipe is read with %T", r)
	}
	if w := Writer(pw); w != io.Writer(pw) {
		t.Errorf("a blocking pipe is written with %T", w)
	}
	if tw := NewTryWriter(pw); tw != nil {
		t.Errorf("a blocking pipe has a TryWriter")
	}
}
