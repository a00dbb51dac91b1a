package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/mcptray/mcptray/core/activity"
)

// runActivityKey is mcptray activity key FILE [--forget]: the record's
// verification key is written to FILE (- for the standard output), to be
// kept somewhere else than this computer; with --forget it is then
// removed from the keychain, so that a program that reads the keychain
// later cannot remake the record's seals. mcptray activity verify --key
// FILE proves the record with it.
func runActivityKey(ctx context.Context, c *cmdContext, args []string) error {
	fset := flag.NewFlagSet("activity key", flag.ContinueOnError)
	fset.SetOutput(io.Discard)
	forget := fset.Bool("forget", false, "")
	if err := parseAnywhere(fset, args); err != nil {
		return usagef("%v", err)
	}
	if fset.NArg() != 1 {
		return usagef("activity key takes the file to write the verification key to (- for the standard output)")
	}
	file := fset.Arg(0)
	l, err := c.openActivity(ctx)
	if errors.Is(err, activity.ErrNoRecord) {
		return errors.New("there is no activity record yet: its key is made with it, at the first call an app makes through mcptray")
	}
	if err != nil {
		return err
	}
	defer l.Close()
	key, err := l.ExportKey(ctx)
	if err != nil {
		return err
	}
	if file == "-" {
		if _, err := c.Stdout.Write(key); err != nil {
			return err
		}
	} else {
		// A new file only: an older key is not written over.
		f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return fmt.Errorf("writing the verification key: %w", err)
		}
		_, err = f.Write(key)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(file)
			return fmt.Errorf("writing the verification key to %s: %w", file, err)
		}
	}
	out := c.Stdout
	if file == "-" {
		out = c.Stderr
	}
	fmt.Fprintln(out, "This is the activity record's verification key: keep it somewhere else than this computer (a password manager, a USB stick).")
	fmt.Fprintln(out, "mcptray activity verify --key FILE proves the record with it, even if someone read your keychain.")
	if !*forget {
		fmt.Fprintln(out, "Your keychain keeps a copy, which any program of your session can read: once the key is safe elsewhere, mcptray activity key --forget FILE removes it.")
		return nil
	}
	if err := l.ForgetKey(ctx); err != nil {
		return err
	}
	fmt.Fprintln(out, "It is no longer in your keychain: mcptray activity verify needs --key FILE from now on.")
	return nil
}

// readLimited reads a small file, at most limit bytes.
func readLimited(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(b)) > limit {
		err = fmt.Errorf("%s is larger than a verification key", path)
	}
	return b, err
}
