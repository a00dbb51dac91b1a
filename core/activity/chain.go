package activity

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"strconv"

	"github.com/mcptray/mcptray/core/jsonwire"
)

// Each row's hash is an HMAC-SHA256, under the chain's key (seal.go), over
// the hash of the row before it (its prev, kept in the row) and the row's
// canonical content: its id and every column as written, in a fixed order
// (canonical); plain SHA-256 when the record has no keychain. Changing a
// row changes its content, so its hash no longer matches; removing one
// leaves the next row's prev unlike the hash of the row now before it. The
// first row ever has a prev of 32 zero bytes; after retention deleted the
// oldest rows, the first one left keeps the prev of the one deleted before
// it.

// genesis is the prev of the first row ever written.
var genesis = make([]byte, sha256.Size)

// canon is a row's content in the order it is hashed.
type canon struct {
	ID            int64  `json:"id"`
	Time          int64  `json:"t"`
	Kind          Kind   `json:"k"`
	App           string `json:"app"`
	Face          string `json:"face"`
	Server        string `json:"server"`
	Tool          string `json:"tool"`
	Duration      int64  `json:"dur"`
	Outcome       string `json:"out"`
	Reason        string `json:"why"`
	Decision      string `json:"dec"`
	ResultSize    int64  `json:"size"`
	Arguments     string `json:"args"`
	ArgumentsKept bool   `json:"kept"`
	Action        string `json:"act"`
	Target        string `json:"target"`
	Detail        string `json:"detail"`
}

// appendJSON appends c as json.Marshal writes it, without its
// reflection: the bytes every row's hash was made of.
func (c *canon) appendJSON(b []byte) []byte {
	num := func(key string, n int64) {
		b = append(b, key...)
		b = strconv.AppendInt(b, n, 10)
	}
	str := func(key, s string) {
		b = append(b, key...)
		b = jsonwire.AppendString(b, s)
	}
	num(`{"id":`, c.ID)
	num(`,"t":`, c.Time)
	str(`,"k":`, string(c.Kind))
	str(`,"app":`, c.App)
	str(`,"face":`, c.Face)
	str(`,"server":`, c.Server)
	str(`,"tool":`, c.Tool)
	num(`,"dur":`, c.Duration)
	str(`,"out":`, c.Outcome)
	str(`,"why":`, c.Reason)
	str(`,"dec":`, c.Decision)
	num(`,"size":`, c.ResultSize)
	str(`,"args":`, c.Arguments)
	b = append(b, `,"kept":`...)
	b = strconv.AppendBool(b, c.ArgumentsKept)
	str(`,"act":`, c.Action)
	str(`,"target":`, c.Target)
	str(`,"detail":`, c.Detail)
	return append(b, '}')
}

// hashOf is the hash of e following prev: HMAC-SHA256 under key, the
// chain's key from the keychain (seal.go), or plain SHA-256 when key is nil
// (a record with no keychain, and rows written before it was sealed).
func hashOf(key, prev []byte, e *Entry) []byte {
	c := canon{ID: e.ID, Time: e.Time.UnixNano(), Kind: e.Kind, App: e.App, Face: e.Face, Server: e.Server,
		Tool: e.Tool, Duration: int64(e.Duration), Outcome: string(e.Outcome), Reason: e.Reason,
		Decision: string(e.Decision), ResultSize: int64(e.ResultSize), Arguments: e.Arguments,
		ArgumentsKept: e.ArgumentsKept, Action: string(e.Action), Target: e.Target, Detail: e.Detail}
	b := c.appendJSON(make([]byte, 0, 256))
	h := sha256.New()
	if key != nil {
		h = hmac.New(sha256.New, key)
	}
	h.Write(prev)
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(b)))
	h.Write(n[:])
	h.Write(b)
	return h.Sum(nil)
}
