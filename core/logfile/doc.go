// Package logfile keeps mcptray's own log: the lines its long-running
// processes (the tray's and mcptray serve's, and the window's in a file of
// its own) write as JSON, one slog record a line, in the log folder that
// config.Paths names.
//
// Open returns a writer that rotates the file by size (with lumberjack):
// when it would pass MaxSizeMB it is renamed NAME-TIME.log and a new one
// begins; MaxBackups such files are kept, the oldest removed. Only one
// process writes each file: a running mcptray is alone with its config
// (core/control), and the window writes window.log.
//
// Tail and Follow read it back across its rotated files, for
// mcptray logs and the window's log view; Format turns a JSON line into
// "time level message key=value" for people. Nothing here decides what is
// logged: keeping tokens, codes and secret values out of every log line is
// the job of whoever logs (and the leak test's).
package logfile
