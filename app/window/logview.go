package window

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/core/logfile"
)

// logLines is how many of the log's newest lines the log view shows.
const logLines = 500

// logPoll is how often the open log view looks for new lines.
const logPoll = 500 * time.Millisecond

// logView is the dialog that shows the newest lines of mcptray's log (the
// tray process's, where servers run) and follows it while it is open.
type logView struct {
	d      *dialog.CustomDialog
	where  *widget.Label // where the log is, or that there is none yet
	text   *widget.Label // the lines, selectable for copying
	scroll *container.Scroll
	folder *widget.Button
	lines  []string // formatted, oldest first
}

// showLog opens the log view. Its lines follow the log, through v.do,
// until it is closed.
func (v *window) showLog() *logView {
	path := v.opts.LogFile
	l := &logView{where: wrapped(""), text: widget.NewLabel("")}
	l.text.Selectable = true
	l.text.TextStyle = fyne.TextStyle{Monospace: true}
	l.scroll = container.NewScroll(l.text)
	l.folder = widget.NewButtonWithIcon("Open log folder", theme.FolderOpenIcon(), func() { v.openLogFolder(filepath.Dir(path)) })
	if path == "" {
		l.where.SetText("mcptray keeps no log on this computer: it found no folder for it.")
		l.folder.Disable()
	} else if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		l.where.SetText("There is no log yet at " + path + ". mcptray writes it while it runs.")
	} else {
		l.where.SetText("mcptray's log, newest lines last: " + path)
	}
	body := container.NewBorder(l.where, container.NewHBox(l.folder), nil, nil, l.scroll)
	l.d = dialog.NewCustom("Log", "Close", body, v.win)
	l.d.Resize(fyne.NewSize(900, 560))
	ctx, cancel := context.WithCancel(v.ctx)
	l.d.SetOnClosed(cancel)
	l.d.Show()
	if path == "" {
		cancel()
		return l
	}
	go func() {
		err := logfile.Follow(ctx, path, logLines, logPoll, func(lines []string) {
			v.do(func() {
				l.add(path, lines)
				v.done("log")
			})
		})
		if ctx.Err() == nil {
			v.do(func() { l.where.SetText(fmt.Sprintf("Could not read the log at %s: %v", path, err)) })
		}
	}()
	return l
}

// add shows new lines, and keeps the newest in sight unless the person
// scrolled up to read older ones.
func (l *logView) add(path string, lines []string) {
	for _, s := range lines {
		l.lines = append(l.lines, logfile.Format(s))
	}
	if len(l.lines) > logLines {
		l.lines = l.lines[len(l.lines)-logLines:]
	}
	atEnd := l.scroll.Offset.Y >= l.scroll.Content.MinSize().Height-l.scroll.Size().Height-1
	l.where.SetText("mcptray's log, newest lines last: " + path)
	l.text.SetText(strings.Join(l.lines, "\n"))
	if atEnd {
		l.scroll.ScrollToBottom()
	}
}

// openLogFolder shows the log folder in the system's file manager.
func (v *window) openLogFolder(dir string) {
	// It may not be there yet when nothing was logged.
	err := os.MkdirAll(dir, 0o700)
	if err == nil {
		err = v.openURL(fileURL(dir))
	}
	if err != nil {
		v.showError("Could not open the log folder", fmt.Errorf("mcptray could not open %s (%s). Open it in your file manager yourself.", dir, err))
	}
}
