package config

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// lockChildEnv makes the test binary a child that adds one server to a
// user file and exits: the other mcptray process of TestEditsFromManyProcesses.
const lockChildEnv = "MCPTRAY_CONFIG_LOCK_CHILD"

func init() {
	spec := os.Getenv(lockChildEnv)
	if spec == "" {
		return
	}
	var job struct{ Path, Name string }
	if err := json.Unmarshal([]byte(spec), &job); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	err := ModifyUserFile(job.Path, func(u *UserFile) error {
		u.MCPServers[job.Name] = json.RawMessage(`{"command":"x"}`)
		// Hold the file a moment, as a slow disk would, so that edits
		// without the lock would overlap and lose one another.
		time.Sleep(20 * time.Millisecond)
		return nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// TestEditsFromManyProcesses: mcptray processes editing one config file at
// the same moment (the app and commands in a terminal) lose no edit.
func TestEditsFromManyProcesses(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "mcptray", "config.json")
	const n = 6
	var cmds []*exec.Cmd
	for i := range n {
		spec, _ := json.Marshal(map[string]string{"Path": path, "Name": fmt.Sprintf("s%d", i)})
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), lockChildEnv+"="+string(spec))
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("a child: %v", err)
		}
	}
	u, err := ReadUserFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(u.MCPServers) != n {
		t.Errorf("the file holds %d of the %d servers added at once: edits were lost", len(u.MCPServers), n)
	}
}
