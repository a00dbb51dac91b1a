package tray

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/mcptray/mcptray/assets"
)

// Windows loads each tray icon the way fyne.io/systray does (LoadImage of
// a file, as an icon): the PNG itself loaded nothing, and the tray showed
// no icon.
func TestTrayIconLoadsAsSystrayLoadsIt(t *testing.T) {
	tr := &tray{log: slog.New(slog.DiscardHandler)}
	user32 := windows.NewLazySystemDLL("user32.dll")
	loadImage, destroyIcon := user32.NewProc("LoadImageW"), user32.NewProc("DestroyIcon")
	const imageIcon, fromFile, defaultSize = 1, 0x10, 0x40
	for _, state := range assets.States {
		for _, dark := range []bool{false, true} {
			name := assets.TrayIconName(state, dark)
			path := filepath.Join(t.TempDir(), name+".ico")
			if err := os.WriteFile(path, tr.systemIcon(assets.TrayIcon(state, dark)), 0o600); err != nil {
				t.Fatal(err)
			}
			p, err := windows.UTF16PtrFromString(path)
			if err != nil {
				t.Fatal(err)
			}
			h, _, err := loadImage.Call(0, uintptr(unsafe.Pointer(p)), imageIcon, 0, 0, fromFile|defaultSize)
			if h == 0 {
				t.Fatalf("%s: Windows does not load it as an icon: %v", name, err)
			}
			_, _, _ = destroyIcon.Call(h)
		}
	}
}
