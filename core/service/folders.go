package service

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/sanitize"
)

// FolderResult is what AddFolder did.
type FolderResult struct {
	// Folder is the folder as it was written into mcptray's config.
	Folder string `json:"folder"`
	// Waiting counts the servers in it that wait for the person's approval.
	Waiting int `json:"waiting"`
}

// AddFolder adds a project folder whose .mcp.json, .vscode/mcp.json and
// .cursor/mcp.json mcptray reads. dir must be a full path: the service may
// run in another process than the one that asks, with another working
// folder.
func (s *Service) AddFolder(ctx context.Context, dir string) (FolderResult, error) {
	if err := s.checkOpen(); err != nil {
		return FolderResult{}, err
	}
	if !filepath.IsAbs(dir) {
		return FolderResult{}, newError(Invalid, "%q is not a full path; choose the folder again", sanitize.Line(dir))
	}
	dir = filepath.Clean(dir)
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return FolderResult{}, newError(Invalid, "there is no folder %s; check its name, or create it first", sanitize.Line(dir))
	case err != nil:
		return FolderResult{}, newError(Invalid, "%s cannot be read (%s); check that you may open it", sanitize.Line(dir), sanitize.Line(errors.Unwrap(err).Error()))
	case !st.IsDir():
		return FolderResult{}, newError(Invalid, "%s is a file; add the folder it is in", sanitize.Line(dir))
	}
	return s.addFolder(dir, false)
}

// addFolder adds dir, a clean full path of a folder, to the project
// folders. A folder that is one already is an error unless again is true.
func (s *Service) addFolder(dir string, again bool) (FolderResult, error) {
	err := config.ModifyUserFile(s.opts.Paths.UserFile(), func(u *config.UserFile) error {
		if slices.Contains(u.Folders, dir) {
			if again {
				return nil
			}
			return newError(Invalid, "%s is already one of your project folders", sanitize.Line(dir))
		}
		u.Folders = append(u.Folders, dir)
		return nil
	})
	if err != nil {
		return FolderResult{}, wrapError(err)
	}
	set := s.reload()
	res := FolderResult{Folder: dir}
	for _, e := range set.Servers {
		if e.Origin.Folder == dir && e.Approval == config.Undecided {
			res.Waiting++
		}
	}
	return res, nil
}

// RemoveFolder stops reading a project folder's configs; its servers stop.
// Their approvals are kept, so adding the folder again asks nothing anew.
func (s *Service) RemoveFolder(ctx context.Context, dir string) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	clean := filepath.Clean(dir)
	err := config.ModifyUserFile(s.opts.Paths.UserFile(), func(u *config.UserFile) error {
		i := slices.IndexFunc(u.Folders, func(f string) bool { return f == dir || filepath.Clean(f) == clean })
		if i < 0 {
			return newError(NotFound, "%s is not one of your project folders", sanitize.Line(dir))
		}
		u.Folders = slices.Delete(u.Folders, i, i+1)
		return nil
	})
	if err != nil {
		return wrapError(err)
	}
	s.reload()
	return nil
}
