//go:build (dragonfly && cgo) || (freebsd && cgo) || linux || netbsd || openbsd

package keychain

import (
	"errors"
	"os"
	"strings"

	"github.com/godbus/dbus/v5"
	"github.com/mcptray/mcptray/core/secret"
)

// Here go-keyring talks to the Secret Service (gnome-keyring, KWallet,
// KeePassXC) over the D-Bus session bus.

// linuxFix is what a person can do about every Secret Service failure.
const linuxFix = "install gnome-keyring or KWallet and log in to a desktop session, or unlock your keyring"

// checkBackend reports a missing session bus before go-keyring is asked for
// anything: when godbus finds no bus address it runs dbus-launch, which
// would start a bus of its own with no keyring on it (or one that starts an
// empty, locked keyring), and the person would learn nothing useful.
func checkBackend() error {
	if err := sessionBus(); err != nil {
		return noBus(err)
	}
	return nil
}

func sessionBus() error {
	if a := os.Getenv("DBUS_SESSION_BUS_ADDRESS"); a == "" || a == "autolaunch:" {
		// Looks in /run/user/<uid> as go-keyring would, sets the variable
		// when it finds the bus there, and never launches one.
		conn, err := dbus.SessionBusPrivateNoAutoStartup()
		if err != nil {
			return err
		}
		conn.Close()
	}
	// The shared connection that go-keyring uses, kept once it is made.
	_, err := dbus.SessionBus()
	return err
}

func noBus(err error) *secret.UnavailableError {
	return &secret.UnavailableError{
		Reason: "there is no D-Bus session bus to find a keyring on",
		Fix:    linuxFix,
		Err:    err,
	}
}

// unavailable reads the Secret Service's errors. Those it does not know
// are left alone, unless the session bus itself has gone.
func unavailable(err error) *secret.UnavailableError {
	u := func(reason string) *secret.UnavailableError {
		return &secret.UnavailableError{Reason: reason, Fix: linuxFix, Err: err}
	}
	name := errorName(err)
	switch {
	case name == "org.freedesktop.DBus.Error.ServiceUnknown",
		name == "org.freedesktop.DBus.Error.NameHasNoOwner",
		strings.HasPrefix(name, "org.freedesktop.DBus.Error.Spawn."):
		return u("no Secret Service (the keyring of gnome-keyring or KWallet) is running")
	case name == "org.freedesktop.Secret.Error.IsLocked":
		return u("your keyring is locked")
	case name == "org.freedesktop.DBus.Error.NoReply",
		name == "org.freedesktop.DBus.Error.Timeout",
		name == "org.freedesktop.DBus.Error.TimedOut":
		return u("the keyring did not answer")
	case name == "org.freedesktop.DBus.Error.AccessDenied":
		return u("the keyring refused mcptray access")
	case name != "":
		return nil
	case strings.HasPrefix(err.Error(), "failed to unlock correct collection"):
		// go-keyring's words when unlocking the default collection did not
		// work: it is locked and the prompt was dismissed or could not be
		// shown, or there is no login keyring at all.
		return u("your keyring is locked, or there is no login keyring")
	}
	if sessionBus() != nil {
		// The bus went away under go-keyring.
		return noBus(err)
	}
	return nil
}

// vanished reports whether err says that an item went between go-keyring
// finding it and reading or deleting it: another process (or another
// Keychain) removed it. gnome-keyring says UnknownMethod.
func vanished(err error) bool {
	switch errorName(err) {
	case "org.freedesktop.DBus.Error.UnknownMethod",
		"org.freedesktop.DBus.Error.UnknownObject",
		"org.freedesktop.DBus.Error.UnknownInterface",
		"org.freedesktop.Secret.Error.NoSuchObject":
		return true
	}
	return false
}

// errorName is the name of the D-Bus error in err, if there is one.
func errorName(err error) string {
	var de dbus.Error
	var dep *dbus.Error
	switch {
	case errors.As(err, &de):
		return de.Name
	case errors.As(err, &dep) && dep != nil:
		return dep.Name
	}
	return ""
}
