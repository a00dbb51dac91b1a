package transport

import (
	"context"
	"log/slog"
	"path/filepath"
)

// loadLoginEnv has no shell to ask on Windows, where a GUI app already gets
// the person's PATH from Explorer: it is this process's environment, with
// the common tool folders.
func loadLoginEnv(context.Context, *slog.Logger) ([]string, error) {
	return fallbackEnv(), nil
}

// toolDirs are folders where people's tools commonly live on Windows, in the
// order they are added to PATH.
func toolDirs(home string, getenv func(string) string) []string {
	var dirs []string
	under := func(base string, p ...string) {
		if base != "" {
			dirs = append(dirs, filepath.Join(append([]string{base}, p...)...))
		}
	}
	programFiles := getenv("ProgramFiles")
	appData, localAppData := getenv("APPDATA"), getenv("LOCALAPPDATA")
	under(programFiles, "nodejs")
	under(appData, "npm")
	under(localAppData, "Volta", "bin")
	under(programFiles, "Volta")
	under(localAppData, "Microsoft", "WinGet", "Links")
	under(programFiles, "Git", "cmd")
	under(programFiles, "Docker", "Docker", "resources", "bin")
	under(programFiles, "Go", "bin")
	under(home, ".local", "bin") // uv
	under(home, ".cargo", "bin")
	under(home, ".bun", "bin")
	under(home, ".deno", "bin")
	under(home, "go", "bin")
	under(home, "scoop", "shims")
	return dirs
}
