package datafolders

import (
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/mcptray/mcptray/core/config"
)

// immutable marks the folder dir so that nothing in it can be renamed,
// not even by root (chattr +i), until the test ends; false where the file
// system or the test's rights do not allow it.
func immutable(t *testing.T, dir string) bool {
	t.Helper()
	const immutableFlag = 0x10 // FS_IMMUTABLE_FL
	set := func(flags int) error {
		fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		return unix.IoctlSetPointerInt(fd, unix.FS_IOC_SETFLAGS, flags)
	}
	if set(immutableFlag) != nil {
		return false
	}
	t.Cleanup(func() { set(0) })
	return true
}

// TestFolderNotSetAsideRunsNothing: a folder made for another that cannot
// be set aside (the servers' folder cannot be changed) is not handed
// over: the server that would start in it does not start, and says why.
func TestFolderNotSetAsideRunsNothing(t *testing.T) {
	t.Parallel()
	p := newPlace(t)
	f := p.folders()
	theirs := server("github", "github", config.Local, p.proj, "stdio:evil")
	one := &config.Set{Servers: []config.Entry{theirs}}
	f.Keep(&config.Set{}, one, nil)
	p.write("github", "planted", "for whoever comes next")
	if !immutable(t, p.servers) {
		t.Skip("this file system, or this test's rights, cannot make a folder immutable")
	}
	two := &config.Set{Servers: []config.Entry{server("github", "github", config.User, p.user, "stdio:github")}}
	refused := f.Keep(one, two, nil)
	if why := refused["github"]; !strings.Contains(why, "was made for another server and could not be set aside") {
		t.Fatalf("the person's github would start in the project's folder: refused %v", refused)
	}
}
