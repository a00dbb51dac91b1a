package logfile

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// backupTime is how lumberjack names a rotated file: NAME-TIME.EXT.
const backupTime = "2006-01-02T15-04-05.000"

// backups lists the rotated files of the log at path, oldest first.
func backups(path string) []string {
	dir, base := filepath.Split(path)
	ext := filepath.Ext(base)
	prefix := strings.TrimSuffix(base, ext) + "-"
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		stamp, ok := strings.CutPrefix(name, prefix)
		if !ok || !strings.HasSuffix(stamp, ext) || !e.Type().IsRegular() {
			continue
		}
		if _, err := time.Parse(backupTime, strings.TrimSuffix(stamp, ext)); err != nil {
			continue
		}
		out = append(out, filepath.Join(dir, name))
	}
	slices.Sort(out) // the time in the name sorts as it reads
	return out
}

// splitLines returns data's complete lines, and the partial line after
// the last newline.
func splitLines(data []byte) (lines []string, rest []byte) {
	for {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return lines, data
		}
		lines = append(lines, string(bytes.TrimSuffix(data[:i], []byte("\r"))))
		data = data[i+1:]
	}
}

// older puts lines from the rotated files before lines until there are n.
func older(path string, lines []string, n int) []string {
	old := backups(path)
	for i := len(old) - 1; i >= 0 && len(lines) < n; i-- {
		data, err := os.ReadFile(old[i])
		if err != nil {
			continue
		}
		ls, rest := splitLines(data)
		if len(rest) > 0 {
			ls = append(ls, string(rest))
		}
		lines = append(ls, lines...)
	}
	return last(lines, n)
}

func last(lines []string, n int) []string {
	if n >= 0 && len(lines) > n {
		return lines[len(lines)-n:]
	}
	return lines
}

// Tail returns the newest n lines of the log at path (all of them when n
// is negative), oldest first, reading rotated files when the current one
// holds fewer. A log that does not exist has no lines.
func Tail(path string, n int) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	lines, rest := splitLines(data)
	if len(rest) > 0 {
		lines = append(lines, string(rest))
	}
	return older(path, lines, n), nil
}

// Follow calls lines with the newest n lines of the log at path, like Tail,
// then with the lines written to it after, each poll's together, until ctx
// ends. It
// follows the log across rotation, and waits for it when it does not exist
// yet. It returns ctx's error, or the first error reading the log.
func Follow(ctx context.Context, path string, n int, poll time.Duration, lines func([]string)) error {
	fl := &follower{path: path, lines: lines}
	defer fl.close()
	if err := fl.open(); err != nil {
		return err
	}
	var first []string
	if fl.f != nil {
		data, err := io.ReadAll(fl.f)
		if err != nil {
			return err
		}
		first, fl.pending = splitLines(data)
	}
	if first = older(path, first, n); len(first) > 0 {
		lines(first)
	}
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
		if ctx.Err() != nil { // both were ready
			return ctx.Err()
		}
		if err := fl.step(); err != nil {
			return err
		}
	}
}

// follower reads a log as it grows and rotates.
type follower struct {
	path    string
	lines   func([]string)
	f       *os.File // the file being read; nil while there is none
	pending []byte   // a line not finished yet
}

// open opens the log, if it exists.
func (fl *follower) open() error {
	f, err := os.Open(fl.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	fl.f = f
	return err
}

func (fl *follower) close() {
	if fl.f != nil {
		fl.f.Close()
		fl.f = nil
	}
}

// drain passes on the complete lines written since the last read.
func (fl *follower) drain() error {
	if fl.f == nil {
		return nil
	}
	data, err := io.ReadAll(fl.f)
	if err != nil {
		return err
	}
	lines, rest := splitLines(append(fl.pending, data...))
	fl.pending = rest
	if len(lines) > 0 {
		fl.lines(lines)
	}
	return nil
}

// step reads what is new, then switches to a new file if the log was
// rotated (its name now names another file) or starts over if it was
// truncated.
func (fl *follower) step() error {
	if err := fl.drain(); err != nil {
		return err
	}
	st, err := os.Stat(fl.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // rotating this moment, or not written yet
	}
	if err != nil {
		return err
	}
	if fl.f != nil {
		cur, err := fl.f.Stat()
		if err != nil {
			return err
		}
		if os.SameFile(cur, st) {
			pos, err := fl.f.Seek(0, io.SeekCurrent)
			if err == nil && st.Size() < pos { // truncated
				_, err = fl.f.Seek(0, io.SeekStart)
				fl.pending = nil
			}
			return err
		}
		// Rotated: the old file is whole, so its unfinished line is
		// all there will be of it.
		if len(fl.pending) > 0 {
			fl.lines([]string{string(fl.pending)})
			fl.pending = nil
		}
		fl.close()
	}
	if err := fl.open(); err != nil {
		return err
	}
	return fl.drain()
}
