package keychain

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// How a value is laid out in keychain items.
//
// Every item holds ASCII text: the value is base64-encoded (standard
// alphabet, padded) before it is stored. The Secret Service would carry raw
// bytes, but go-keyring hands it a string labelled text/plain, the macOS
// backend goes through the security command line, and Windows counts bytes
// against its limit; base64 is the one form every backend keeps unchanged.
//
// A value whose encoding fits in one item is kept in the head item, under
// the account "<server>/<kind>":
//
//	mcptray:1:<base64>
//
// A longer one is split. The head holds a manifest and the first part of the
// encoding, and chunk items "<account>#<slot><i>" (i = 1..n) hold the rest, in
// order, each at most itemMax bytes:
//
//	mcptray:1:chunks:<slot>:<n>:<sha256 of the value, hex>:<first part>
//
// The slot is "a" or "b". A Set writes its chunks into the slot the current
// value does not use, writes the head last, and only then removes the other
// slot's chunks. Writing the head is the single step that switches from the
// old value to the new one, so a reader (or a crash at any point) sees the
// whole old value or the whole new one, never a mix. The checksum covers what
// the slots cannot: two processes writing the same key at once. A reader that
// finds pieces that do not add up returns ErrDamaged, never a wrong value.
const (
	headPrefix = "mcptray:1:"
	chunkedTag = "chunks:"

	// itemMax is the most text kept in one item. Windows Credential Manager
	// takes at most 2,560 bytes, and go-keyring's macOS backend base64-encodes
	// again and refuses a security command line over 4,096 bytes: 2,048
	// leaves room for both, and for long service and account names.
	itemMax = 2048

	// maxValue bounds what Set accepts. Tokens and client registrations are
	// a few kilobytes; a megabyte is already some 680 items.
	maxValue = 1 << 20

	// maxChunks bounds the chunk count a head may name, so that a damaged
	// head cannot send a reader on a million look-ups.
	maxChunks = ((maxValue+2)/3*4 + itemMax - 1) / itemMax

	// chunkHeaderLen is the length of a chunked head before its first part:
	// the count is written with three digits so that the length is fixed.
	chunkHeaderLen = len(headPrefix+chunkedTag+"a:000:") + 2*sha256.Size + 1
)

// ErrDamaged says that the keychain holds something under a key that is not
// a whole value mcptray wrote: pieces of two writes, a missing piece, or an
// item in another format. Set or Delete under the key repairs it.
var ErrDamaged = errors.New("the keychain item is damaged or half-written")

// head is a parsed head item.
type head struct {
	slot   byte   // 'a' or 'b'; 0 when the head holds the whole value
	chunks int    // how many chunk items follow
	sum    []byte // sha256 of the value
	text   string // the base64 text held in the head
}

// chunkAccount names the i-th chunk item (from 1) of account in slot.
func chunkAccount(account string, slot byte, i int) string {
	return account + "#" + string(slot) + strconv.Itoa(i)
}

// otherSlot is the slot a new value is written to when the current one
// uses slot (0 when the current value has no chunks).
func otherSlot(slot byte) byte {
	if slot == 'a' {
		return 'b'
	}
	return 'a'
}

// split lays value out as a head item and chunk items for slot.
func split(slot byte, value []byte) (headText string, chunks []string) {
	enc := base64.StdEncoding.EncodeToString(value)
	if len(headPrefix)+len(enc) <= itemMax {
		return headPrefix + enc, nil
	}
	first := itemMax - chunkHeaderLen
	for rest := enc[first:]; rest != ""; {
		n := min(itemMax, len(rest))
		chunks = append(chunks, rest[:n])
		rest = rest[n:]
	}
	sum := sha256.Sum256(value)
	headText = fmt.Sprintf("%s%s%c:%03d:%x:%s", headPrefix, chunkedTag, slot, len(chunks), sum, enc[:first])
	return headText, chunks
}

// parseHead reads a head item. Its errors never quote the item: it may be a
// secret in some other format.
func parseHead(s string) (head, error) {
	rest, ok := strings.CutPrefix(s, headPrefix)
	if !ok {
		return head{}, fmt.Errorf("%w: it is not in mcptray's format", ErrDamaged)
	}
	rest, ok = strings.CutPrefix(rest, chunkedTag)
	if !ok {
		return head{text: rest}, nil
	}
	fields := strings.SplitN(rest, ":", 4)
	if len(fields) != 4 {
		return head{}, fmt.Errorf("%w: its manifest is cut short", ErrDamaged)
	}
	h := head{text: fields[3]}
	if f := fields[0]; f != "a" && f != "b" {
		return head{}, fmt.Errorf("%w: its manifest names no slot", ErrDamaged)
	} else {
		h.slot = f[0]
	}
	n, err := strconv.Atoi(fields[1])
	if err != nil || n < 1 || n > maxChunks {
		return head{}, fmt.Errorf("%w: its manifest has no valid chunk count", ErrDamaged)
	}
	h.chunks = n
	if h.sum, err = hex.DecodeString(fields[2]); err != nil || len(h.sum) != sha256.Size {
		return head{}, fmt.Errorf("%w: its manifest has no valid checksum", ErrDamaged)
	}
	return h, nil
}

// join puts a value back together from its head and chunk items (none for
// a value held whole in the head) and checks it against the manifest.
func (h head) join(chunks []string) ([]byte, error) {
	if len(chunks) != h.chunks {
		return nil, fmt.Errorf("%w: it has %d of its %d pieces", ErrDamaged, len(chunks), h.chunks)
	}
	value, err := base64.StdEncoding.DecodeString(h.text + strings.Join(chunks, ""))
	if err != nil {
		return nil, fmt.Errorf("%w: it is not valid base64", ErrDamaged)
	}
	if h.slot == 0 {
		return value, nil
	}
	if sum := sha256.Sum256(value); !bytes.Equal(sum[:], h.sum) {
		return nil, fmt.Errorf("%w: its pieces do not match its checksum", ErrDamaged)
	}
	return value, nil
}
