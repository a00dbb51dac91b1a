// Package activity is mcptray's record of what the person's AI apps did
// through the gateway, and of the person's own trust decisions: a local
// SQLite database (modernc.org/sqlite, no cgo) in mcptray's data folder
// (config.Paths.ActivityFile), that the window and mcptray activity read.
//
// Each gateway call is one row: when, which app through which face, which
// tool of which server, how long it took, what came of it (answered, the
// tool failed, refused by a permission, unavailable, with the reason), the
// permission's decision (allowed, asked and the answer, blocked) and the
// size of the result. Arguments are kept as their shape (keys, types,
// lengths) unless the person turns on Keep arguments; even then a value
// that looks like a secret (patterns.go) or is one mcptray keeps is masked.
// Results are never kept.
//
// A trust decision (an approval, a permission, a sandbox's allowance…) is
// a row too, with who made it: which of the person's tools, "the window
// (mcptray, pid 4242)", "the command line", "the tray" (Trust.By, kept in
// the app column, where a call keeps the app that made it).
//
// Recording costs a call one send on a channel (Log.RecordCall): a writer
// goroutine shapes and masks the arguments, and writes the rows in batches,
// one transaction each, every FlushEvery or BatchRows rows, whichever comes
// first (writer.go). The database is in WAL mode with synchronous=NORMAL: a
// transaction that committed survives mcptray being killed, so a killed
// mcptray loses at most the rows of the batch it had not written yet, at
// most FlushEvery's worth (200 ms by default), and the file stays readable.
//
// The record is tamper-evident (chain.go): each row holds the hash of the
// row before it and a SHA-256 over that hash and its own canonical content,
// so that Verify finds the first row changed or removed. Rows older than
// the retention's days, and the oldest rows while the file is larger than
// its size, are deleted (retention.go); the first row left keeps the hash
// of the one before it, so the chain still verifies.
//
// Readers (mcptray activity, the window) open the file read-only (Open
// with ReadOnly) while the running mcptray writes: WAL lets them read what
// was committed without blocking the writer.
package activity
