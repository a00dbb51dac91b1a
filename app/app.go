// Package app is mcptray's desktop face: the Fyne application and its
// windows. The command line lives in app/cli.
//
// app reaches core through the small Source interface below, and applies
// every change that arrives from a goroutine inside fyne.Do.
package app

import (
	"context"
	"log/slog"
	"time"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"

	"github.com/mcptray/mcptray/assets"
	"github.com/mcptray/mcptray/core/config"
)

// Source is what the app needs from core: the servers now, and word of
// every change.
type Source interface {
	Load() *config.Set
	Watch(ctx context.Context, logger *slog.Logger, current *config.Set, debounce time.Duration) (<-chan config.Update, error)
}

// ID is the application's unique id (FyneApp.toml says the same).
const ID = "dev.mcptray.mcptray"

// Run opens the main window and returns when the person closes it or ctx
// ends.
func Run(ctx context.Context, logger *slog.Logger, src Source) int {
	a := fyneapp.NewWithID(ID)
	a.SetIcon(fyne.NewStaticResource("icon.png", assets.AppIcon()))
	w := a.NewWindow("mcptray")
	set := src.Load()
	view := newServersView(set)
	w.SetContent(view.content)
	w.Resize(fyne.NewSize(720, 440))

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	updates, err := src.Watch(ctx, logger, set, config.DefaultDebounce)
	if err != nil {
		logger.Warn("config changes will show after a restart", "err", err)
	} else {
		go func() {
			for u := range updates {
				fyne.Do(func() { view.show(u.Set) })
			}
		}()
	}
	go func() {
		<-ctx.Done()
		fyne.Do(a.Quit)
	}()
	w.ShowAndRun()
	return 0
}
