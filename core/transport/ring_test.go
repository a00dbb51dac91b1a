package transport

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

func TestRingKeepsTheNewestBytes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		size   int
		writes []string
		want   string
	}{
		{"empty", 8, nil, ""},
		{"fits", 8, []string{"abc", "de"}, "abcde"},
		{"exactly full", 4, []string{"ab", "cd"}, "abcd"},
		{"wraps", 4, []string{"abc", "def"}, "cdef"},
		{"wraps twice", 4, []string{"abc", "def", "ghi"}, "fghi"},
		{"one write bigger than the ring", 4, []string{"ab", "0123456789"}, "6789"},
		{"bigger write then small", 4, []string{"0123456789", "x"}, "789x"},
		{"many small", 3, strings.Split("abcdefghij", ""), "hij"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newByteRing(tc.size)
			total := 0
			for _, w := range tc.writes {
				n, err := r.Write([]byte(w))
				if n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
				total += len(w)
			}
			if got := r.String(); got != tc.want {
				t.Errorf("String = %q, want %q", got, tc.want)
			}
			if r.written() != int64(total) {
				t.Errorf("written = %d, want %d", r.written(), total)
			}
		})
	}
}

func TestRingStringIsValidUTF8(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		size   int
		writes []string
		want   string
	}{
		// "é" is 2 bytes, "€" 3: dropping old bytes can cut one in half.
		{"cut at the start", 4, []string{"a€bc"}, "bc"},
		{"cut after wrapping", 4, []string{"xx", "é€"}, "€"},
		{"incomplete at the end waits", 8, []string{"ab", "\xe2\x82"}, "ab"},
		{"completed later", 8, []string{"ab", "\xe2\x82", "\xac"}, "ab€"},
		{"not UTF-8 at all", 8, []string{"a\xffb"}, "a\uFFFDb"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newByteRing(tc.size)
			for _, w := range tc.writes {
				r.Write([]byte(w))
			}
			got := r.String()
			if got != tc.want || !utf8.ValidString(got) {
				t.Errorf("String = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestRingConcurrentWritesAndReads(t *testing.T) {
	t.Parallel()
	r := newByteRing(1000)
	line := bytes.Repeat([]byte("ab"), 50)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for range 500 {
				r.Write(line)
			}
		}()
		go func() {
			defer wg.Done()
			for range 100 {
				if s := r.String(); len(s) > 1000 {
					t.Errorf("String is %d bytes", len(s))
					return
				}
			}
		}()
	}
	wg.Wait()
	if r.written() != 4*500*int64(len(line)) {
		t.Errorf("written = %d", r.written())
	}
	if got := r.String(); got != strings.Repeat("ab", 500) {
		t.Errorf("String = %q", got)
	}
}

// allocated is how many bytes the ring has allocated for what it holds.
func (r *byteRing) allocated() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.buf)
}
