package keychain

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// These tests need no keychain: they check the layout alone.

// largestSingle is the longest value kept whole in the head item.
const largestSingle = (itemMax - len(headPrefix)) / 4 * 3

func TestSplitJoin(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, largestSingle, largestSingle + 1, 2560, 10 << 10, 100 << 10, maxValue} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			value := pattern(n)
			headText, chunks := split('b', value)
			if len(headText) > itemMax {
				t.Errorf("head is %d bytes, more than %d", len(headText), itemMax)
			}
			for i, c := range chunks {
				if len(c) > itemMax {
					t.Errorf("chunk %d is %d bytes, more than %d", i+1, len(c), itemMax)
				}
			}
			wantChunks := n > largestSingle
			if got := len(chunks) > 0; got != wantChunks {
				t.Errorf("split into %d chunks; want chunks: %v", len(chunks), wantChunks)
			}
			h, err := parseHead(headText)
			if err != nil {
				t.Fatalf("parseHead: %v", err)
			}
			if wantChunks && (h.slot != 'b' || h.chunks != len(chunks)) {
				t.Errorf("head names slot %q and %d chunks, want 'b' and %d", h.slot, h.chunks, len(chunks))
			}
			got, err := h.join(chunks)
			if err != nil {
				t.Fatalf("join: %v", err)
			}
			if !bytes.Equal(got, value) {
				t.Errorf("join gave %d bytes that differ from the %d written", len(got), n)
			}
		})
	}
}

func TestLayoutLimits(t *testing.T) {
	t.Parallel()
	// The count is written with three digits.
	if maxChunks > 999 {
		t.Errorf("maxChunks = %d does not fit in the head's three digits", maxChunks)
	}
	headText, chunks := split('a', pattern(maxValue))
	if len(chunks) > maxChunks {
		t.Errorf("a %d-byte value takes %d chunks, more than maxChunks = %d", maxValue, len(chunks), maxChunks)
	}
	if len(headText) != itemMax {
		t.Errorf("a chunked head is %d bytes, want it filled to %d", len(headText), itemMax)
	}
	// Windows Credential Manager's limit.
	if itemMax > 2560 {
		t.Errorf("itemMax = %d is over Windows' 2,560 bytes", itemMax)
	}
}

func TestParseHeadRejects(t *testing.T) {
	t.Parallel()
	const token = "hunter2-token"
	sum := fmt.Sprintf("%x", sha256.Sum256([]byte(token)))
	for _, tc := range []struct{ name, head string }{
		{"empty", ""},
		{"another format", token},
		{"another version", "mcptray:2:" + base64.StdEncoding.EncodeToString([]byte(token))},
		{"no manifest", headPrefix + chunkedTag},
		{"cut short", headPrefix + chunkedTag + "a:001:" + sum},
		{"bad slot", headPrefix + chunkedTag + "c:001:" + sum + ":" + token},
		{"no count", headPrefix + chunkedTag + "a::" + sum + ":" + token},
		{"zero chunks", headPrefix + chunkedTag + "a:000:" + sum + ":" + token},
		{"too many chunks", headPrefix + chunkedTag + "a:999999:" + sum + ":" + token},
		{"bad checksum", headPrefix + chunkedTag + "a:001:" + token + ":" + token},
		{"short checksum", headPrefix + chunkedTag + "a:001:" + sum[:10] + ":" + token},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := parseHead(tc.head)
			if !errors.Is(err, ErrDamaged) {
				t.Fatalf("parseHead = %v, want ErrDamaged", err)
			}
			if strings.Contains(err.Error(), token) {
				t.Errorf("the error quotes the item: %v", err)
			}
		})
	}
}

func TestJoinRejects(t *testing.T) {
	t.Parallel()
	const token = "hunter2-token"
	value := append([]byte(token), pattern(13000)...)
	headText, chunks := split('a', value)
	h, err := parseHead(headText)
	if err != nil {
		t.Fatal(err)
	}
	other := bytes.Clone(value)
	other[len(other)-1] ^= 1
	_, otherChunks := split('a', other)

	single, err := parseHead(headPrefix + "!!" + token)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		h      head
		chunks []string
	}{
		{"a chunk missing", h, chunks[:len(chunks)-1]},
		{"a chunk too many", h, append(chunks[:len(chunks):len(chunks)], "AAAA")},
		{"a chunk from another value", h, append(chunks[:len(chunks)-1:len(chunks)-1], otherChunks[len(otherChunks)-1])},
		{"chunks swapped", h, append([]string{chunks[1], chunks[0]}, chunks[2:]...)},
		{"not base64", single, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := tc.h.join(tc.chunks)
			if !errors.Is(err, ErrDamaged) {
				t.Fatalf("join = %d bytes, %v; want ErrDamaged", len(got), err)
			}
			if strings.Contains(err.Error(), token) {
				t.Errorf("the error quotes the value: %v", err)
			}
		})
	}
}

func TestChunkAccount(t *testing.T) {
	t.Parallel()
	if got, want := chunkAccount("0123abcd/tokens", 'b', 12), "0123abcd/tokens#b12"; got != want {
		t.Errorf("chunkAccount = %q, want %q", got, want)
	}
}

// pattern is n bytes of every value from 0 to 255, which includes NUL and
// bytes that are not valid UTF-8.
func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i/256)
	}
	return b
}
