package service

import (
	"context"
	"os"
	"path/filepath"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/demo"
)

// AddDemo makes the demo project folder in mcptray's folder
// (config.Paths.DemoDir) and adds it to the project folders: its
// .mcp.json runs mcptray's own demo server ("mcptray demo-server"), which
// then waits for the person's approval like any project's server. Asked
// again, it writes the folder anew (the program may have moved) and adds
// it only when it is not a project folder already.
func (s *Service) AddDemo(ctx context.Context) (FolderResult, error) {
	if err := s.checkOpen(); err != nil {
		return FolderResult{}, err
	}
	exe, err := s.gatewayCommand()
	if err != nil {
		return FolderResult{}, err
	}
	data, err := demo.MCPJSON(exe)
	if err != nil {
		return FolderResult{}, err
	}
	dir := s.opts.Paths.DemoDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return FolderResult{}, newError(Invalid, "the demo folder cannot be made: %v; check that you may write in %s", err, filepath.Dir(dir))
	}
	files := []struct {
		name string
		data []byte
	}{{"README.txt", []byte(demo.Readme)}, {".mcp.json", data}}
	for _, f := range files {
		if err := config.ReplaceFile(filepath.Join(dir, f.name), f.data, 0o600); err != nil {
			return FolderResult{}, newError(Invalid, "the demo cannot be written: %v", err)
		}
	}
	return s.addFolder(dir, true)
}
