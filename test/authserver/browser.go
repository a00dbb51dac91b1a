package authserver

import (
	"fmt"
	"os/exec"
	"path/filepath"
)

// BrowserCommand returns an MCPTRAY_BROWSER command line that follows the
// authorization server's redirect back to mcptray's loopback listener:
// curl when there is one, else the browse command built into dir.
func BrowserCommand(dir string) (string, error) {
	if p, err := exec.LookPath("curl"); err == nil {
		// --noproxy: the servers are on 127.0.0.1, never behind a proxy.
		return p + " --noproxy * -sL -o /dev/null", nil
	}
	bin := filepath.Join(dir, "browse")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/mcptray/mcptray/test/authserver/cmd/browse").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("building the test browser: %v\n%s", err, out)
	}
	return bin, nil
}
