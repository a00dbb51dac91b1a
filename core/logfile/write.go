package logfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"gopkg.in/natefinch/lumberjack.v2"
)

// MaxSizeMB is how large a log file grows, in megabytes, before it is
// rotated; MaxBackups is how many rotated files are kept besides it.
const (
	MaxSizeMB  = 5
	MaxBackups = 3
)

// Options changes how Open rotates; the zero value means MaxSizeMB and
// MaxBackups.
type Options struct {
	MaxSizeMB  int
	MaxBackups int
}

// Open returns a writer that appends to the log at path, creating its
// folder (readable by the person only) and rotating by size. Each Write
// should be one whole line, as slog's handlers write them. Close it when
// the process ends.
func Open(path string, opts Options) (io.WriteCloser, error) {
	if opts.MaxSizeMB <= 0 {
		opts.MaxSizeMB = MaxSizeMB
	}
	if opts.MaxBackups <= 0 {
		opts.MaxBackups = MaxBackups
	}
	// lumberjack would make the folder readable by everyone.
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("creating the log folder: %w", err)
	}
	return &lumberjack.Logger{
		Filename:   path,
		MaxSize:    opts.MaxSizeMB,
		MaxBackups: opts.MaxBackups,
	}, nil
}
