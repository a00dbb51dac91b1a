// Package activity is mcptray's record of what the person's AI apps did
// through the gateway, and of the person's own trust decisions: a local
// SQLite database (modernc.org/sqlite, no cgo) in mcptray's data folder
// (config.Paths.ActivityFile), that mcptray activity reads, and the window
// through the running mcptray (core/service's Activity).
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
// The record proves itself (chain.go, seal.go, verify.go). Each row holds
// the hash of the row before it and an HMAC-SHA256, under a key kept in
// the keychain (Options.Keys, never in the database or a file), over that
// hash and its own canonical content: a row changed or removed breaks the
// chain, and recomputing it takes the key. A chain alone cannot show rows
// deleted at either end, every row deleted, or the whole file put back to
// an older copy or replaced. So the writer also seals what it wrote, as it
// commits, at most every SealEvery (5 s), at Flush and Close, and before
// retention deletes: a seal is the newest row's id and hash, how far
// retention deleted (the last id and its hash), and the time, one line of
// a seals file beside the record, MAC'd with that seal's own key. The keys
// form a hash ratchet (key n+1 = SHA-256(key n)); the keychain keeps only
// the next one, with the last seal made, so that whoever takes it can seal
// from then on but cannot remake an earlier seal: the forward-secure
// sealing of systemd-journald (Marson and Poettering, "Practical Secure
// Logging: Seekable Sequential Key Generators", ESORICS 2013), with a
// plain hash chain for its key generator. Like Certificate Transparency's
// signed tree heads (RFC 6962), a seal commits to everything before it,
// and a later state that does not extend it shows. The first key comes
// from a seed kept in a keychain item of its own (the verification item),
// which only Verify reads, with the record's id, also kept in the file's
// meta table: a file with another id is not the record that was sealed.
//
// Verify checks every seal against its key from the seed, that the seals
// file holds the seal the keychain remembers as last, that the rows the
// newest seal vouches for are all there, that the rows each seal names are
// as sealed, and that no more rows were deleted from the start than the
// seals say retention deleted. Rows written after the last seal (at most
// SealEvery's worth, or what a killed mcptray wrote) are chained, not yet
// sealed, and said so. Without a keychain, rows are chained with plain
// SHA-256 and the record says that it is chained but not sealed; rows
// chained that way after rows chained with the key are a problem of their
// own (Unkeyed), whether or not a seal came after them: anyone can
// compute a plain hash, so they were changed or added by a program that
// did not have the key (or by an mcptray that could not read its
// keychain), and a writer with the key that went on from them does not
// make them proven. A writer
// that finds the file not as its last seal said (put back, replaced) goes
// on recording from what it finds, and seals that break, so that Verify
// keeps saying it. What sealing cannot do: stop whoever can read the
// keychain's verification item (any program of the person's session, on
// Linux's Secret Service) from making a record and seals anew, unless
// the person keeps that key elsewhere and gives it to Verify
// (verifykey.go); keep rows written after the last seal.
//
// The seals file would grow with use (a line of about 250 bytes a seal,
// one seal per SealEvery of activity), so the writer trims it as
// retention runs (trim.go): the seals of deleted rows go, and of those
// older than a day, all but one in 64 (the ones numbered a multiple of
// 64); a new seal declares how many were dropped, and Verify takes only
// such runs of missing seals, as many as declared, as trimmed, so that
// whoever takes the sealing state cannot drop, as a trim, a seal made
// before the last multiple of 64. A year of sealing every 5 s, day and
// night, keeps the file under about 21 MB.
//
// Rows older than the retention's days, and the oldest rows while the
// file is larger than its size, are deleted (retention.go); the first row
// left keeps the hash of the one before it, so the chain still verifies.
//
// Readers (mcptray activity, the window) open the file read-only (Open
// with ReadOnly) while the running mcptray writes: WAL lets them read what
// was committed without blocking the writer.
package activity
