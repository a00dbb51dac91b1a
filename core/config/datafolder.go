package config

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/mcptray/mcptray/core/sandbox"
)

// Each local server keeps its data (its secrets given as files, its
// caches, its tmp) in a folder of its own under mcptray's servers folder,
// named after it (sandbox.FolderName). Two names can give one folder: a
// name with characters FolderName replaces takes a 32-bit hash of itself,
// and two names that differ only in such characters and whose hashes agree
// can be found on purpose; on macOS and Windows, names that differ only
// in case give one folder too. Two servers never share one: of the two,
// the less trusted does not run and says why.

// foldsCase says the computer's file system takes Notes and notes for one
// name, as macOS's and Windows's do.
var foldsCase = runtime.GOOS == "darwin" || runtime.GOOS == "windows"

// DataFolder is the name of the data folder of the server called name
// (sandbox.FolderName) as the file system tells folders apart: in lower
// case where it takes Notes and notes for one name. Two servers with one
// DataFolder would share their data.
func DataFolder(name string) string {
	folder := sandbox.FolderName(name)
	if foldsCase {
		folder = strings.ToLower(folder)
	}
	return folder
}

// refuseSharedFolders moves each local server whose data folder would be
// that of a server before it (Servers are most trusted first: the
// organisation's and the person's own before other apps', projects' and
// plugins') to Suppressed, with the reason and what to do.
func (set *Set) refuseSharedFolders() {
	owners := map[string]string{} // data folder → the server that has it
	kept := set.Servers[:0]
	var refused []Entry
	for _, e := range set.Servers {
		if e.Transport != Stdio {
			kept = append(kept, e)
			continue
		}
		folder := DataFolder(e.Name)
		if owner, ok := owners[folder]; ok {
			e.Suppressed = fmt.Sprintf("its data folder would be that of %q; rename it", owner)
			refused = append(refused, e)
			continue
		}
		owners[folder] = e.Name
		kept = append(kept, e)
	}
	set.Servers = kept
	set.Suppressed = append(set.Suppressed, refused...)
}
