package service

import (
	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/sanitize"
)

// A server's name gives its folders: its data folder under the servers'
// folder and, for a bundle, the folder its files are unpacked in
// (sandbox.FolderName). Two names can give one folder (their short hashes
// agree, which can be found on purpose, or they differ only in case on
// macOS and Windows). config runs only the more trusted of two such
// servers; a bundle's name, which its manifest chooses, is refused here
// before its files replace those of the server that has the folder.

// folderTaken refuses name when another server of the person's config u
// has its folders.
func folderTaken(u *config.UserFile, name string) error {
	for other := range u.MCPServers {
		if other != name && config.DataFolder(other) == config.DataFolder(name) {
			return newError(Invalid, "its files and data would go in the folders of %q; install it under another name", sanitize.Line(other))
		}
	}
	return nil
}

// bundleFolderShared reports whether a server of set other than the one
// called name (as written in the person's config) is a bundle of the
// person's with the same folders.
func bundleFolderShared(set *config.Set, name string) bool {
	for _, list := range [][]config.Entry{set.Servers, set.Suppressed} {
		for _, e := range list {
			if e.Scope == config.User && e.Bundle != nil && e.ConfigName != name && config.DataFolder(e.ConfigName) == config.DataFolder(name) {
				return true
			}
		}
	}
	return false
}
