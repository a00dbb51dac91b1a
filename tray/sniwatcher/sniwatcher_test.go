package sniwatcher_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/mcptray/mcptray/tray/sniwatcher"
	"github.com/mcptray/mcptray/tray/traytest"
)

func TestWatcher(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	w := traytest.StartWatcher(ctx, t)

	// An item registers as fyne.io/systray does: by object path.
	item, err := dbus.ConnectSessionBus()
	if err != nil {
		t.Fatal(err)
	}
	defer item.Close()
	watcher := item.Object(sniwatcher.Name, sniwatcher.Path)
	if err := watcher.CallWithContext(ctx, sniwatcher.Interface+".RegisterStatusNotifierItem", 0, "/StatusNotifierItem").Err; err != nil {
		t.Fatalf("registering: %v", err)
	}
	want := item.Names()[0] + "/StatusNotifierItem"
	if got := w.Items(); !slices.Equal(got, []string{want}) {
		t.Errorf("Items() = %q, want %q", got, want)
	}

	c := traytest.Connect(t)
	obj := c.Object(sniwatcher.Name, sniwatcher.Path)
	var items []string
	if err := obj.StoreProperty(sniwatcher.Interface+".RegisteredStatusNotifierItems", &items); err != nil {
		t.Fatalf("reading RegisteredStatusNotifierItems: %v", err)
	}
	if !slices.Equal(items, []string{want}) {
		t.Errorf("RegisteredStatusNotifierItems = %q, want %q", items, want)
	}
	var host bool
	if err := obj.StoreProperty(sniwatcher.Interface+".IsStatusNotifierHostRegistered", &host); err != nil || !host {
		t.Errorf("IsStatusNotifierHostRegistered = %v, %v; want true", host, err)
	}

	// It forgets an item whose program leaves the bus.
	item.Close()
	if _, err := w.Wait(ctx, func(items []string) bool { return len(items) == 0 }); err != nil {
		t.Error(err)
	}
}
