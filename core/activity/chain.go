package activity

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
)

// Each row's hash is SHA-256 over the hash of the row before it (its prev,
// kept in the row) and the row's canonical content: its id and every
// column as written, in a fixed order (canonical). Changing a row changes
// its content, so its hash no longer matches; removing one leaves the next
// row's prev unlike the hash of the row now before it. The first row ever
// has a prev of 32 zero bytes; after retention deleted the oldest rows,
// the first one left keeps the prev of the one deleted before it.

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

// hashOf is the hash of e following prev.
func hashOf(prev []byte, e *Entry) []byte {
	c := canon{ID: e.ID, Time: e.Time.UnixNano(), Kind: e.Kind, App: e.App, Face: e.Face, Server: e.Server,
		Tool: e.Tool, Duration: int64(e.Duration), Outcome: string(e.Outcome), Reason: e.Reason,
		Decision: string(e.Decision), ResultSize: int64(e.ResultSize), Arguments: e.Arguments,
		ArgumentsKept: e.ArgumentsKept, Action: string(e.Action), Target: e.Target, Detail: e.Detail}
	b, _ := json.Marshal(c) // a struct of strings and numbers always encodes
	h := sha256.New()
	h.Write(prev)
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(b)))
	h.Write(n[:])
	h.Write(b)
	return h.Sum(nil)
}

// Problem is the first place where the record is not as it was written.
type Problem struct {
	// ID is the row that was changed, or the first one removed.
	ID int64 `json:"id"`
	// Removed says that row ID (and perhaps more after it) was removed
	// other than by retention; else row ID was changed.
	Removed bool `json:"removed,omitempty"`
}

func (p *Problem) String() string {
	if p.Removed {
		return fmt.Sprintf("row %d was removed", p.ID)
	}
	return fmt.Sprintf("row %d was changed", p.ID)
}

// VerifyResult is what Verify found.
type VerifyResult struct {
	// Rows is how many rows were checked.
	Rows int64 `json:"rows"`
	// FirstID and LastID are the first and last row checked.
	FirstID int64 `json:"firstId,omitempty"`
	LastID  int64 `json:"lastId,omitempty"`
	// Problem is the first row changed or removed; nil when none was.
	Problem *Problem `json:"problem,omitempty"`
}

// Verify checks the record's hash chain from its first row to its last,
// and reports the first row that was changed or removed.
func (l *Log) Verify(ctx context.Context) (VerifyResult, error) {
	var res VerifyResult
	rows, err := l.db.QueryContext(ctx, `SELECT `+columns+` FROM activity ORDER BY id`)
	if err != nil {
		return res, fmt.Errorf("reading the activity record: %w", err)
	}
	defer rows.Close()
	var prevHash []byte
	var prevID int64
	for rows.Next() {
		var e Entry
		if err := scanEntry(rows, &e); err != nil {
			return res, fmt.Errorf("reading the activity record: %w", err)
		}
		res.Rows++
		if res.FirstID == 0 {
			res.FirstID = e.ID
		}
		res.LastID = e.ID
		switch {
		case prevHash != nil && e.ID != prevID+1:
			res.Problem = &Problem{ID: prevID + 1, Removed: true}
		case prevHash != nil && !bytes.Equal(e.prev, prevHash), !bytes.Equal(hashOf(e.prev, &e), e.hash):
			res.Problem = &Problem{ID: e.ID}
		}
		if res.Problem != nil {
			return res, nil
		}
		prevHash, prevID = e.hash, e.ID
	}
	if err := rows.Err(); err != nil {
		return res, fmt.Errorf("reading the activity record: %w", err)
	}
	// The newest row's id is also kept apart (meta "head"), so that
	// removing the last rows shows; and the last id retention deleted
	// ("pruned"), so that removing the first ones does.
	head, err := l.meta(ctx, metaHead)
	if err != nil {
		return res, err
	}
	pruned, err := l.meta(ctx, metaPruned)
	if err != nil {
		return res, err
	}
	switch {
	case res.Rows > 0 && res.FirstID > pruned+1:
		res.Problem = &Problem{ID: pruned + 1, Removed: true}
	case head > res.LastID && head > pruned:
		res.Problem = &Problem{ID: max(res.LastID, pruned) + 1, Removed: true}
	}
	return res, nil
}
