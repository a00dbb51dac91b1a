package sandbox

import (
	"bytes"
	"os"
	"strconv"
)

// seeInProc looks through /proc for another process whose file (cmdline,
// environ) holds secret (a launcher's only, when launcher, as its
// command line says): nil when one is seen, a refusal when none is.
func seeInProc(file string, secret []byte, launcher bool) error {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return err
	}
	self := strconv.Itoa(os.Getpid())
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil || e.Name() == self {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/" + file)
		if err != nil || !bytes.Contains(b, secret) {
			continue
		}
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		args := bytes.Split(cmdline, []byte{0})
		if !launcher || (len(args) > 1 && string(args[1]) == LauncherArg) {
			return nil
		}
	}
	return os.ErrPermission
}
