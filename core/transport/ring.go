package transport

import (
	"strings"
	"sync"
	"unicode/utf8"
)

// byteRing keeps the newest bytes written to it, never more than its size: a
// stdio server's stderr for the UI, bounded however much the server writes.
// Writes never fail and never block on a reader, so the pipe it drains never
// fills and the child never stalls on a write to stderr.
type byteRing struct {
	mu    sync.Mutex
	size  int
	buf   []byte // allocated on the first write; then len(buf) == size
	start int    // index of the oldest byte held
	n     int    // bytes held
	total int64  // bytes ever written
}

func newByteRing(size int) *byteRing {
	if size < 1 {
		size = 1
	}
	return &byteRing{size: size}
}

// Write keeps the tail of p, dropping the oldest bytes held to make room.
func (r *byteRing) Write(p []byte) (int, error) {
	written := len(p)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.total += int64(written)
	if r.buf == nil {
		r.buf = make([]byte, r.size)
	}
	if len(p) >= r.size {
		copy(r.buf, p[len(p)-r.size:])
		r.start, r.n = 0, r.size
		return written, nil
	}
	end := (r.start + r.n) % r.size
	k := copy(r.buf[end:], p)
	copy(r.buf, p[k:])
	r.n += len(p)
	if over := r.n - r.size; over > 0 {
		r.start = (r.start + over) % r.size
		r.n = r.size
	}
	return written, nil
}

// bytes returns a copy of what is held, oldest first, and whether older
// bytes were dropped.
func (r *byteRing) bytes() ([]byte, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]byte, r.n)
	k := copy(out, r.buf[r.start:min(r.start+r.n, len(r.buf))])
	copy(out[k:], r.buf[:r.n-k])
	return out, r.total > int64(r.n)
}

// String returns what is held as valid UTF-8 for the UI: a character cut
// in half by dropping old bytes is dropped, one not yet fully written is left
// for later, and bytes that are not UTF-8 at all become U+FFFD (one per run,
// so the string can exceed the ring's size only by such replacements).
func (r *byteRing) String() string {
	b, dropped := r.bytes()
	if dropped {
		for i := 0; i < utf8.UTFMax-1 && len(b) > 0 && !utf8.RuneStart(b[0]); i++ {
			b = b[1:]
		}
	}
	b = trimPartialRune(b)
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// trimPartialRune drops a character at the end of b whose first bytes have
// been written but not its last.
func trimPartialRune(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			return b
		}
	}
	return b
}

// written is how many bytes were ever written.
func (r *byteRing) written() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.total
}
