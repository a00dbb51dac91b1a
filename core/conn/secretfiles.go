package conn

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/sandbox"
)

// secretFilesDir is the folder, in a server's own data folder, that holds
// the secrets it is given as files (${secret-file:NAME}): one folder of
// its own for each start, so that the files of a start that is stopping
// are removed without touching the next one's.
const secretFilesDir = "secrets"

// secretFiles are the files of one start of a server, each holding a
// secret its config gives as ${secret-file:NAME}: in its own data folder,
// which no other server's sandbox may read, mode 0600, and removed when
// it stops (remove).
type secretFiles struct {
	dataDir string
	start   string // the start's folder in secretFilesDir; "" until one is written
	paths   map[string]string
}

// path writes the secret name with value, once, and returns the file's
// path. The data folder is the server's to change: the files are made
// beneath it through no link (os.Root), new, never opened where one was.
func (f *secretFiles) path(name, value string) (string, error) {
	if p, ok := f.paths[name]; ok {
		return p, nil
	}
	if err := os.MkdirAll(f.dataDir, 0o700); err != nil {
		return "", fmt.Errorf("making its folder for the secret %s: %w", name, err)
	}
	root, err := os.OpenRoot(f.dataDir)
	if err != nil {
		return "", fmt.Errorf("opening its folder for the secret %s: %w", name, err)
	}
	defer root.Close()
	if f.start == "" {
		var b [8]byte
		rand.Read(b[:])
		start := filepath.Join(secretFilesDir, hex.EncodeToString(b[:]))
		if err := root.MkdirAll(secretFilesDir, 0o700); err != nil {
			return "", fmt.Errorf("making its folder for the secret %s: %w", name, err)
		}
		if err := root.Mkdir(start, 0o700); err != nil {
			return "", fmt.Errorf("making its folder for the secret %s: %w", name, err)
		}
		f.start = start
	}
	rel := filepath.Join(f.start, name)
	w, err := root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", fmt.Errorf("writing the secret %s as a file: %w", name, err)
	}
	_, err = w.WriteString(value)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("writing the secret %s as a file: %w", name, err)
	}
	if f.paths == nil {
		f.paths = map[string]string{}
	}
	f.paths[name] = filepath.Join(f.dataDir, rel)
	return f.paths[name], nil
}

// remove removes the start's files, beneath the data folder through no
// link.
func (f *secretFiles) remove() {
	if f == nil || f.start == "" {
		return
	}
	if root, err := os.OpenRoot(f.dataDir); err == nil {
		root.RemoveAll(f.start)
		root.Close()
	}
}

// secretFilesFor are the secret files of one start of s under o; an error
// when it may have none: a remote server, which reads no file here, or no
// folder for the servers' data.
func (o *Options) secretFilesFor(s *config.Server) (*secretFiles, error) {
	if s.Transport != config.Stdio {
		return nil, errors.New("its config gives a secret as a file (${secret-file:…}), which only a local server can read")
	}
	if o.ServersDir == "" {
		return nil, errors.New("its config gives a secret as a file (${secret-file:…}), and mcptray has no folder for its servers' data")
	}
	return &secretFiles{dataDir: filepath.Join(o.ServersDir, sandbox.FolderName(s.Name))}, nil
}
