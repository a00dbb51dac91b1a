package conn

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/config"
)

// TestEnvFileNoLinkOut: a project's server may change its project, where
// its .env lies. It made the .env a link to another file of the person's
// (another project's secrets), then a named pipe. mcptray reads neither
// into its environment, and does not wait on the pipe.
func TestEnvFileNoLinkOut(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	project, other := filepath.Join(root, "home", "code", "app"), filepath.Join(root, "home", "code", "bank")
	for _, d := range []string{project, other} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	secrets := filepath.Join(other, ".env")
	if err := os.WriteFile(secrets, []byte("BANK_TOKEN=stolen\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dotenv := filepath.Join(project, ".env")
	if err := os.Symlink(secrets, dotenv); err != nil {
		t.Fatal(err)
	}
	s := &config.Server{Name: "app", Transport: config.Stdio, Command: "/bin/true", EnvFile: ".env",
		Origin: config.Origin{File: filepath.Join(project, ".mcp.json"), Folder: project}}
	o := &Options{Launcher: "/bin/true", ServersDir: filepath.Join(root, "home", ".config", "mcptray", "servers"), Home: filepath.Join(root, "home")}
	if env, err := o.serverEnv(s); err == nil || env["BANK_TOKEN"] != "" {
		t.Errorf("the server's link was followed: %v, %v", env, err)
	}
	// A link within its project is its own.
	if err := os.WriteFile(filepath.Join(project, "dev.env"), []byte("MODE=dev\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(dotenv); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("dev.env", dotenv); err != nil {
		t.Fatal(err)
	}
	if env, err := o.serverEnv(s); err != nil || env["MODE"] != "dev" {
		t.Errorf("a link within its project: %v, %v", env, err)
	}
	if err := os.Remove(dotenv); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(dotenv, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := o.serverEnv(s); done <- err }()
	select {
	case err := <-done:
		if err == nil {
			t.Error("a named pipe was read as its env file")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("mcptray waits on the server's named pipe")
	}
}

// TestEnvFileNoNeighbourLink: server A's env file lies in a folder the
// person gave server B to write (on B's command line). B made it a link
// to another file of the person's. A's start reads nothing through it.
func TestEnvFileNoNeighbourLink(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	home := filepath.Join(root, "home")
	shared, other := filepath.Join(home, "shared"), filepath.Join(home, "code", "bank")
	for _, d := range []string{shared, other} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	secrets := filepath.Join(other, ".env")
	if err := os.WriteFile(secrets, []byte("BANK_TOKEN=stolen\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	servers := []config.Entry{
		{Server: config.Server{Name: "a", Transport: config.Stdio, Command: "/bin/true", EnvFile: filepath.Join(shared, "a.env")}},
		{Server: config.Server{Name: "b", Transport: config.Stdio, Command: "/bin/true", Args: []string{shared}}},
	}
	o := &Options{Launcher: "/bin/true", ServersDir: filepath.Join(home, ".config", "mcptray", "servers"), Home: home}
	o.Others = func(name string) []string { return o.OthersWrite(servers, name) }
	if err := os.Symlink(secrets, filepath.Join(shared, "a.env")); err != nil {
		t.Fatal(err)
	}
	if env, err := o.serverEnv(&servers[0].Server); err == nil || env["BANK_TOKEN"] != "" {
		t.Errorf("B's link was followed for A: %v, %v", env, err)
	}
}
