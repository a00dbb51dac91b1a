// Command sniwatcher runs a StatusNotifierWatcher on the session bus until
// it is interrupted, so that a tray can be tried without a desktop, for
// example inside dbus-run-session:
//
//	dbus-run-session -- sh -c 'sniwatcher & sleep 1; mcptray'
//
// It prints each item that registers.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"

	"github.com/godbus/dbus/v5"

	"github.com/mcptray/mcptray/tray/sniwatcher"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "sniwatcher:", err)
		os.Exit(1)
	}
}

func run() error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return fmt.Errorf("connecting to the session bus: %w", err)
	}
	defer conn.Close()
	w, err := sniwatcher.Serve(ctx, conn)
	if err != nil {
		return err
	}
	fmt.Println("sniwatcher: serving", sniwatcher.Name)
	var seen []string
	for {
		items, err := w.Wait(ctx, func(items []string) bool { return len(items) != len(seen) })
		if err != nil {
			return nil // interrupted
		}
		for _, it := range items {
			fmt.Println("sniwatcher: item", it)
		}
		seen = items
	}
}
