package keychain

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/mcptray/mcptray/core/secret"
)

// These tests take the keychain away, each in a process of its own (godbus
// keeps its session bus connection for the life of a process): the test
// binary runs itself again, as TestChild, with what the case needs.

const (
	childMode  = "MCPTRAY_KEYCHAIN_TEST_CHILD"  // what TestChild does
	childToken = "MCPTRAY_KEYCHAIN_TEST_TOKEN"  // the secret it tries to store
	childWant  = "MCPTRAY_KEYCHAIN_TEST_REASON" // words its Reason must have
)

// noServices is a session bus with nothing to start on demand, so no
// Secret Service unless a test provides one.
const noServices = `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:tmpdir=%s</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`

func TestUnavailable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		// setup returns the command to run the child with, around the
		// test binary's arguments, and the environment to change.
		setup      func(t *testing.T) (wrap []string, env map[string]string)
		mode, want string
	}{
		{
			name: "no such socket",
			setup: func(t *testing.T) ([]string, map[string]string) {
				return nil, map[string]string{
					"DBUS_SESSION_BUS_ADDRESS": "unix:path=" + filepath.Join(t.TempDir(), "no-bus"),
				}
			},
			mode: "unavailable", want: "no D-Bus session bus",
		},
		{
			name: "no bus address",
			setup: func(t *testing.T) ([]string, map[string]string) {
				// With no address godbus looks for /run/user/<uid>/bus: on
				// a desktop it would find the person's own session.
				u, err := user.Current()
				if err != nil {
					t.Fatal(err)
				}
				if _, err := os.Stat(filepath.Join("/run/user", u.Uid, "bus")); err == nil {
					t.Skip("this machine has a session bus at /run/user/" + u.Uid + "/bus")
				}
				return nil, map[string]string{"DBUS_SESSION_BUS_ADDRESS": ""}
			},
			mode: "unavailable", want: "no D-Bus session bus",
		},
		{
			name: "no Secret Service",
			setup: func(t *testing.T) ([]string, map[string]string) {
				return []string{"dbus-run-session", "--config-file=" + busConfig(t), "--"}, nil
			},
			mode: "unavailable", want: "no Secret Service",
		},
		{
			name: "locked keyring",
			setup: func(t *testing.T) ([]string, map[string]string) {
				// gnome-keyring without --unlock, in folders of its own: no
				// login keyring, and no display to ask for a password on.
				dir := t.TempDir()
				data, run := filepath.Join(dir, "data"), filepath.Join(dir, "run")
				if err := os.Mkdir(data, 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.Mkdir(run, 0o700); err != nil {
					t.Fatal(err)
				}
				return []string{"dbus-run-session", "--", "sh", "-c",
						`gnome-keyring-daemon --start --components=secrets >/dev/null && exec "$@"`, "sh"},
					map[string]string{
						"XDG_DATA_HOME": data, "XDG_RUNTIME_DIR": run,
						"DISPLAY": "", "WAYLAND_DISPLAY": "",
					}
			},
			mode: "unavailable", want: "locked",
		},
		{
			name: "keyring not answering",
			setup: func(t *testing.T) ([]string, map[string]string) {
				return []string{"dbus-run-session", "--config-file=" + busConfig(t), "--"}, nil
			},
			mode: "stuck",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			wrap, env := tc.setup(t)
			if len(wrap) > 0 {
				requireTools(t, "dbus-run-session", "gnome-keyring-daemon")
			}
			token := "tok-" + rand.Text()
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			args := append(wrap, os.Args[0], "-test.run=^TestChild$", "-test.v", "-test.count=1")
			cmd := exec.CommandContext(ctx, args[0], args[1:]...)
			// A keyring daemon the child's bus started can outlive it and
			// hold its output open: do not wait for that past the child.
			cmd.WaitDelay = 10 * time.Second
			cmd.Env = append(os.Environ(), childMode+"="+tc.mode, childToken+"="+token, childWant+"="+tc.want)
			for k, v := range env {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("the child failed (%v):\n%s", err, out)
			}
			if !strings.Contains(string(out), "child ran: "+tc.mode) {
				t.Fatalf("the child did not run its case:\n%s", out)
			}
			if strings.Contains(string(out), token) {
				t.Errorf("the secret appears in the child's output:\n%s", out)
			}
			t.Logf("child:\n%s", out)
		})
	}
}

// TestChild is TestUnavailable's child process.
func TestChild(t *testing.T) {
	mode := os.Getenv(childMode)
	if mode == "" {
		t.Skip("TestUnavailable runs this in a process of its own")
	}
	t.Logf("child ran: %s", mode)
	token := os.Getenv(childToken)
	k := New("mcptray-test-" + rand.Text())
	key := secret.Key{Server: "server", Kind: secret.Tokens}
	switch mode {
	case "unavailable":
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		want := os.Getenv(childWant)
		check := func(op string, err error) {
			t.Helper()
			var u *secret.UnavailableError
			if !errors.As(err, &u) {
				t.Fatalf("%s = %v (%T), want a *secret.UnavailableError", op, err, err)
			}
			msg := err.Error()
			t.Logf("%s: %s", op, msg)
			if strings.Contains(msg, token) {
				t.Errorf("%s: the error quotes the secret", op)
			}
			if !strings.HasPrefix(msg, "cannot reach your keychain: ") {
				t.Errorf("%s: the message is not the plain one: %s", op, msg)
			}
			if !strings.Contains(u.Reason, want) {
				t.Errorf("%s: Reason %q does not say %q", op, u.Reason, want)
			}
			if !strings.Contains(u.Fix, "install gnome-keyring or KWallet") {
				t.Errorf("%s: Fix %q does not say what to install", op, u.Fix)
			}
			if u.Err == nil {
				t.Errorf("%s: the cause is not kept", op)
			}
			// The cause is for logs; the person reads words.
			for _, jargon := range []string{"dbus:", "org.freedesktop", "dial unix", "failed to unlock", "exec:", "connect:"} {
				if strings.Contains(msg, jargon) {
					t.Errorf("%s: the message has %q in it: %s", op, jargon, msg)
				}
			}
		}
		check("Set", k.Set(ctx, key, []byte(token)))
		check("Set of a long value", k.Set(ctx, key, []byte(strings.Repeat(token, 500))))
		_, err := k.Get(ctx, key)
		check("Get", err)
		check("Delete", k.Delete(ctx, key))
		check("DeleteServer", k.DeleteServer(ctx, key.Server))

	case "stuck":
		// A Secret Service that takes every call and never answers, as
		// one waiting on an unlock prompt would.
		release := stuckSecretService(t)
		defer release()
		for _, op := range []struct {
			name string
			call func(context.Context) error
		}{
			{"Get", func(ctx context.Context) error { _, err := k.Get(ctx, key); return err }},
			{"Set", func(ctx context.Context) error { return k.Set(ctx, key, []byte(token)) }},
			{"Delete", func(ctx context.Context) error { return k.Delete(ctx, key) }},
		} {
			ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
			start := time.Now()
			err := op.call(ctx)
			took := time.Since(start)
			cancel()
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%s = %v, want context.DeadlineExceeded", op.name, err)
			}
			// The bus itself gives up on a call after 25 seconds.
			if took > 10*time.Second {
				t.Errorf("%s returned %v after its context ended", op.name, took)
			}
			t.Logf("%s returned %v after %v", op.name, err, took.Round(time.Millisecond))
		}

	default:
		t.Fatalf("no such mode %q", mode)
	}
}

// stuckSecretService takes the Secret Service's name on the session bus
// and holds every call made to it until release is called.
func stuckSecretService(t *testing.T) (release func()) {
	t.Helper()
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		t.Fatal(err)
	}
	hold := make(chan struct{})
	get := func(iface, prop string) (dbus.Variant, *dbus.Error) {
		<-hold
		return dbus.Variant{}, dbus.MakeFailedError(errors.New("released"))
	}
	for _, iface := range []string{"org.freedesktop.DBus.Properties"} {
		if err := conn.ExportMethodTable(map[string]any{"Get": get}, "/org/freedesktop/secrets", iface); err != nil {
			t.Fatal(err)
		}
	}
	reply, err := conn.RequestName("org.freedesktop.secrets", dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("taking the Secret Service's name: %v (%v)", reply, err)
	}
	return func() {
		close(hold)
		conn.Close()
	}
}

// busConfig writes a session bus configuration with no services.
func busConfig(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "session.conf")
	if err := os.WriteFile(file, fmt.Appendf(nil, noServices, dir), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// requireTools skips the test when a program it runs is missing, or fails
// it under CI, where make deps must have installed it.
func requireTools(t *testing.T, names ...string) {
	t.Helper()
	for _, name := range names {
		if _, err := exec.LookPath(name); err != nil {
			if os.Getenv("CI") == "" {
				t.Skipf("%s is not installed (make deps installs it)", name)
			}
			t.Fatalf("%s is not installed: run make deps", name)
		}
	}
}
