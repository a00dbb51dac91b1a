package conn

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path/filepath"

	"github.com/joho/godotenv"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/sandbox"
)

// maxEnvFile is the largest env file mcptray reads: real ones are a few
// lines, and a larger one is a wrong path (a log, a database).
const maxEnvFile = 1 << 20

// serverEnv returns the environment a stdio server adds to its base: the
// variables of its envFile, if it has one, then its "env" on top. An explicit
// "env" value wins over the same name in the file, because the config entry
// is the more specific of the two (as with docker's --env over --env-file).
//
// A relative envFile is relative to the folder of the config file that names
// it (the config layer has already resolved it against a project folder or
// plugin root when there is one); for a server with no config file, relative
// to its cwd. A file that is missing, unreadable or not in dotenv form fails
// the server: starting it without its variables would fail later and less
// clearly.
func (o *Options) serverEnv(s *config.Server) (map[string]string, error) {
	if s.EnvFile == "" {
		return s.Env, nil
	}
	vars, err := o.EnvFileVars(s)
	if err != nil {
		return nil, err
	}
	maps.Copy(vars, s.Env)
	return vars, nil
}

// EnvFileVars reads the variables of s's env file as its start does. The
// file may lie in a folder s may change (its project's .env): for a
// sandboxed server it is read beneath that folder, through no link that
// leads out of it (sandbox.Policy.Open), so that s cannot make it a link
// to another file of the person's and be given what that holds; and only
// a regular file is read, never a pipe that would keep mcptray waiting.
func (o *Options) EnvFileVars(s *config.Server) (map[string]string, error) {
	path, err := envFilePath(s)
	if err != nil {
		return nil, err
	}
	var p sandbox.Policy
	if o.Sandboxed(s) {
		// Only what it may write counts here, which neither its program,
		// its environment nor the proxy changes (and asking the proxy
		// would mint the server a new credential).
		oo := *o
		oo.Egress = nil
		p, _ = sandbox.Default(oo.SandboxInput(s, s.Command, nil))
	}
	return readEnvFile(p, path)
}

// envFilePath makes s.EnvFile absolute.
func envFilePath(s *config.Server) (string, error) {
	switch {
	case filepath.IsAbs(s.EnvFile):
		return s.EnvFile, nil
	case s.Origin.File != "":
		return filepath.Join(filepath.Dir(s.Origin.File), s.EnvFile), nil
	case s.Cwd != "":
		return filepath.Join(s.Cwd, s.EnvFile), nil
	}
	return "", fmt.Errorf("its env file %s is a relative path, and it has no config file or cwd to be relative to", s.EnvFile)
}

// readEnvFile reads a dotenv file: KEY=value lines, # comments, quoted
// values and an optional "export " before each name. Its error never quotes
// the file's content, which holds secrets.
func readEnvFile(p sandbox.Policy, path string) (map[string]string, error) {
	f, err := p.Open(path)
	if err != nil {
		return nil, fmt.Errorf("its env file %s cannot be read: %s", path, envFileIOError(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxEnvFile+1))
	if err != nil {
		return nil, fmt.Errorf("its env file %s cannot be read: %s", path, envFileIOError(err))
	}
	if len(data) > maxEnvFile {
		return nil, fmt.Errorf("its env file %s is larger than %d MiB, too large for an env file", path, maxEnvFile>>20)
	}
	vars, err := godotenv.UnmarshalBytes(data)
	if err != nil {
		// godotenv's reason quotes the rest of the file.
		return nil, fmt.Errorf("its env file %s is not in NAME=value form", path)
	}
	return vars, nil
}

func envFileIOError(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "it does not exist"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
