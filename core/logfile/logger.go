package logfile

import (
	"io"
	"log/slog"
)

// NewLogger returns a logger that writes records at level and above as
// JSON lines to the log at path, rotated as Open does, and hands every
// record to also as well (nil for none; it filters by its own level). With
// path "" it writes no file. Call close when the process ends. When the log
// cannot be opened the logger still goes to also, and err says why.
func NewLogger(path string, level slog.Leveler, also slog.Handler) (log *slog.Logger, close func() error, err error) {
	var hs []slog.Handler
	if also != nil {
		hs = append(hs, also)
	}
	close = func() error { return nil }
	if path != "" {
		var w io.WriteCloser
		if w, err = Open(path, Options{}); err == nil {
			hs = append(hs, slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level, ReplaceAttr: readable}))
			close = w.Close
		}
	}
	return slog.New(slog.NewMultiHandler(hs...)), close, err
}

// readable writes a duration as people read it ("1.5s"), not in
// nanoseconds.
func readable(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() == slog.KindDuration {
		return slog.String(a.Key, a.Value.Duration().String())
	}
	return a
}
