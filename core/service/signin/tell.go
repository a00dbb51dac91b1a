package signin

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/fsnotify/fsnotify"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/oauth"
)

// Every mcptray of the person's shares the keychain's sign-ins, but each
// keeps its own connections: after a sign-in or sign-out, the one that
// made it writes the server's key into a file in the locks folder, and
// every one watching that folder reconnects the server within moments
// rather than after conn.NeedsAuthTTL.

// File is the file that tells of a sign-in, in the locks folder.
const File = "signins"

// maxTold bounds what is read of File: a server's key is short.
const maxTold = 4 << 10

// Tell tells every mcptray (this one included) that sv's sign-in changed.
// The file is replaced, never opened: a named pipe put in its place would
// keep the sign-in waiting for a reader.
func (d *Desk) Tell(sv *config.Server) {
	if err := config.ReplaceFile(filepath.Join(d.lockDir(), File), []byte(oauth.ServerKey(sv)+"\n"), 0o600); err != nil {
		d.opts.Logger.Debug("telling others of a sign-in", "err", err)
	}
}

// readTold reads the key File tells of. It opens the file without
// waiting (a named pipe put in its place would keep the watcher, and the
// service's Close, waiting for a writer), and reads only a plain file,
// and only so much of it.
func readTold(path string) (string, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return "", err
	} else if !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a file", path)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxTold+1))
	if err != nil {
		return "", err
	}
	if len(b) > maxTold {
		return "", fmt.Errorf("%s is larger than it can be", path)
	}
	return strings.TrimSpace(string(b)), nil
}

// Watch watches for sign-ins told by any mcptray: run calls told with the
// server's key for each ("" when it cannot be read: some sign-in changed),
// until ctx ends.
func (d *Desk) Watch(ctx context.Context, told func(key string)) (run func(), err error) {
	dir := d.lockDir()
	w, err := fsnotify.NewWatcher()
	if err == nil {
		err = os.MkdirAll(dir, 0o700)
	}
	if err == nil {
		err = w.Add(dir)
	}
	if err != nil {
		if w != nil {
			w.Close()
		}
		return nil, err
	}
	return func() {
		defer w.Close()
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if filepath.Base(ev.Name) == File && ev.Has(fsnotify.Write|fsnotify.Create) {
					key, err := readTold(ev.Name)
					if err != nil {
						d.opts.Logger.Debug("reading a sign-in told", "err", err)
					}
					told(key)
				}
			case err, ok := <-w.Errors:
				if !ok {
					return
				}
				d.opts.Logger.Debug("watching sign-ins", "err", err)
			}
		}
	}, nil
}
