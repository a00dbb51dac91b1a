package window

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/core/gateway"
	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

// appsIntro is what the Apps view says first.
const appsIntro = "Your AI apps can use every server mcptray runs through mcptray's one gateway: each server then runs once, signed in once. " +
	"Connect an app here, then quit it fully and open it again."

// appsRefresh is how often the open Apps view looks again, so that an app
// that has not arrived in time says so without a change notice.
const appsRefresh = 20 * time.Second

// appsView is the Apps dialog.
type appsView struct {
	d      *dialog.CustomDialog
	scroll *container.Scroll
	list   *fyne.Container
	ways   *fyne.Container
	stop   chan struct{}
	apps   []service.App
	status gateway.Status
	sets   *service.SetsView // what each app gets (appsets.go); nil when unknown
	// The widgets of each app, by its key, for tests.
	connect    map[string]*widget.Button
	statusText map[string]*widget.Label
	searchBox  *fyne.Container
	search     *widget.Check // the search mode's switch
	copyToken  *widget.Button
	copyStdio  *widget.Button
	moveDialog *dialog.ConfirmDialog
	moveChecks map[string]*widget.Check
	moveAnswer func(bool)                // the move dialog's answer, for tests
	gets       map[string]*widget.Select // each app's What it gets, by its key
	getsText   map[string]*widget.Label  // and its words
	setsBox    *fyne.Container           // the sets and New set… (appsets.go)
	newSet     *widget.Button
	editSet    map[string]*widget.Button // each set's Edit…, by its name
	setEditor  *setEditor                // the open set editor, for tests
}

// showApps opens the Apps view.
func (v *window) showApps() {
	a := &appsView{list: container.NewVBox(), ways: container.NewVBox(), stop: make(chan struct{})}
	a.list.Add(caption("Looking for your apps…"))
	a.searchBox, a.setsBox = container.NewVBox(), container.NewVBox()
	body := container.NewVBox(wrapped(appsIntro), a.list, widget.NewSeparator(), section("Sets"), a.setsBox,
		widget.NewSeparator(), section("Many servers?"), a.searchBox,
		widget.NewSeparator(), section("Other apps"), a.ways)
	a.scroll = container.NewVScroll(clearOfScrollBar(body))
	a.d = dialog.NewCustom("Apps", "Close", a.scroll, v.win)
	a.d.SetOnClosed(func() {
		close(a.stop)
		if v.apps == a {
			v.apps = nil
		}
	})
	a.d.Resize(fyne.NewSize(640, 520))
	v.apps = a
	a.d.Show()
	v.reloadApps()
	v.appsWork.Add(1)
	go func() {
		defer v.appsWork.Done()
		t := time.NewTicker(appsRefresh)
		defer t.Stop()
		for {
			select {
			case <-a.stop:
				return
			case <-v.ctx.Done():
				return
			case <-t.C:
				v.do(v.reloadApps)
			}
		}
	}()
}

// clearOfScrollBar keeps content's right edge clear of the scroll bar,
// which Fyne draws over a scrolled content: the Apps view's Connect,
// right-aligned, was clipped under it.
func clearOfScrollBar(content fyne.CanvasObject) fyne.CanvasObject {
	return container.New(layout.NewCustomPaddedLayout(0, 0, 0, theme.Size(theme.SizeNameScrollBar)), content)
}

// reloadApps asks the running mcptray about the apps and its gateway again,
// and shows the answer in the open Apps view.
func (v *window) reloadApps() {
	a, g := v.apps, v.b
	if a == nil || g == nil {
		return
	}
	v.appsWork.Add(1)
	go func() {
		defer v.appsWork.Done()
		apps, err := g.Apps(v.ctx)
		st, serr := g.GatewayStatus(v.ctx)
		sv, setsErr := g.Sets(v.ctx)
		if serr != nil {
			st = gateway.Status{Problem: serr.Error()}
		}
		if v.ctx.Err() != nil {
			return // the window is closing
		}
		v.do(func() {
			if v.apps == a {
				if err != nil {
					a.list.RemoveAll()
					a.list.Add(wrapped("Cannot read the apps: " + sanitize.Line(err.Error())))
				} else {
					a.apps, a.status = apps, st
					a.sets = nil
					if setsErr == nil {
						a.sets = &sv
					}
					a.render(v)
				}
			}
			v.done("apps")
		})
	}()
}

// stateImportance colours an app's status.
func stateImportance(s service.AppState) widget.Importance {
	switch s {
	case service.AppInUse:
		return widget.SuccessImportance
	case service.AppNotArrived:
		return widget.WarningImportance
	case service.AppNotConnected:
		return widget.LowImportance
	}
	return widget.MediumImportance
}

// render shows the last answer.
func (a *appsView) render(v *window) {
	a.list.RemoveAll()
	a.connect = map[string]*widget.Button{}
	a.statusText = map[string]*widget.Label{}
	a.gets, a.getsText = map[string]*widget.Select{}, map[string]*widget.Label{}
	var missing []string
	for _, app := range a.apps {
		if !app.Found {
			missing = append(missing, sanitize.Line(app.Name))
			continue
		}
		a.list.Add(a.appRow(v, app))
	}
	if len(missing) > 0 {
		a.list.Add(caption("Not found on this computer: " + strings.Join(missing, ", ") + "."))
	}
	a.renderSets(v)
	a.renderSearch(v)
	a.renderWays(v)
	a.scroll.Content.Refresh()
	a.scroll.Refresh()
}

// appRow is one app: its name, how it stands, what to do, and its button.
func (a *appsView) appRow(v *window, app service.App) fyne.CanvasObject {
	name := widget.NewLabelWithStyle(sanitize.Line(app.Name), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	status := wrapped(capitalise(sanitize.Line(app.Status)))
	status.Importance = stateImportance(app.State)
	box := container.NewVBox()
	var btn *widget.Button
	if app.Key != "" {
		if app.Connected {
			btn = widget.NewButton("Disconnect", func() { v.disconnectApp(app) })
		} else {
			btn = widget.NewButton("Connect", func() { v.connectApp(app) })
			btn.Importance = widget.HighImportance
		}
		a.connect[app.Key] = btn
		a.statusText[app.Key] = status
	}
	if btn != nil {
		box.Add(container.NewBorder(nil, nil, nil, btn, name))
	} else {
		box.Add(name)
	}
	box.Add(status)
	if gets := a.whatItGets(v, app); gets != nil {
		box.Add(gets)
	}
	if app.Hint != "" {
		box.Add(wrapped(sanitize.Line(app.Hint)))
	}
	if app.ToolWarning != "" {
		w := wrapped(sanitize.Line(app.ToolWarning))
		w.Importance = widget.WarningImportance
		box.Add(w)
	}
	if app.Problem != "" {
		p := wrapped(sanitize.Line(app.Problem))
		p.Importance = widget.DangerImportance
		box.Add(p)
	}
	if len(app.Sessions) > 0 {
		s := app.Sessions[0]
		words := fmt.Sprintf("%s %s, through %s", sanitize.Line(s.Client), sanitize.Line(s.ClientVersion), faceWords(s.Face))
		if s.Named == "" {
			// Not started by a config mcptray wrote (stdio --app) nor
			// with the app's own token: any program can say this.
			words += ", known only by what it says of itself"
		}
		box.Add(caption(words))
	}
	return box
}

func faceWords(face string) string {
	if face == gateway.FaceHTTP {
		return "its HTTP address"
	}
	return "mcptray stdio"
}

// stdioCommand is the command an app runs to reach the gateway.
func stdioCommand() string {
	exe, err := os.Executable()
	if err != nil {
		exe = "mcptray"
	}
	return commandLine(exe, []string{"stdio"})
}

// searchWords say what the search mode does.
const searchWords = "Search mode: apps see two tools, one that finds your tools by words and one that calls them, instead of every tool. " +
	"Their model's context stays small, and they stay under their tool limits, however many servers you run."

// renderSearch shows the search mode's switch as the config has it.
func (a *appsView) renderSearch(v *window) {
	a.searchBox.RemoveAll()
	a.search = widget.NewCheck("Let apps search for tools instead of listing them all", nil)
	a.search.Checked = v.snap.Gateway.Search
	a.search.OnChanged = func(on bool) {
		v.act("Could not change search mode", func(ctx context.Context) error { return v.b.SetSearch(ctx, on) })
	}
	a.searchBox.Add(a.search)
	a.searchBox.Add(wrappedCaption(searchWords))
}

// renderWays says how any other app reaches the gateway: the command, or
// the HTTP address with its token.
func (a *appsView) renderWays(v *window) {
	a.ways.RemoveAll()
	cmd := stdioCommand()
	a.copyStdio = widget.NewButtonWithIcon("Copy", theme.ContentCopyIcon(), func() {
		v.app.Clipboard().SetContent(cmd)
	})
	line := widget.NewLabel(cmd)
	line.TextStyle = fyne.TextStyle{Monospace: true}
	line.Selectable = true
	line.Truncation = fyne.TextTruncateEllipsis
	a.ways.Add(wrapped("Apps that start a command run:"))
	a.ways.Add(container.NewBorder(nil, nil, nil, a.copyStdio, line))
	st := a.status
	switch {
	case st.Problem != "":
		p := wrapped("Apps that speak HTTP cannot use mcptray now: " + sanitize.Line(st.Problem))
		p.Importance = widget.WarningImportance
		a.ways.Add(p)
		a.copyToken = nil
	case st.URL != "":
		url := widget.NewLabel(sanitize.Line(st.URL))
		url.TextStyle = fyne.TextStyle{Monospace: true}
		url.Selectable = true
		a.ways.Add(wrapped("Apps that speak HTTP use this address:"))
		a.ways.Add(url)
		if st.Auth == "none" {
			a.copyToken = nil
			a.ways.Add(caption("It asks for no token now (mcptray serve --gateway-no-auth)."))
			break
		}
		a.copyToken = widget.NewButtonWithIcon("Copy token", theme.ContentCopyIcon(), func() { v.copyGatewayToken() })
		a.ways.Add(wrapped("with the header Authorization: Bearer TOKEN, where TOKEN is kept in your keychain:"))
		a.ways.Add(container.NewHBox(a.copyToken))
	}
	a.ways.Refresh()
}

// copyGatewayToken puts the gateway's token on the clipboard; it is shown
// nowhere and never logged.
func (v *window) copyGatewayToken() {
	a, g := v.apps, v.b
	if a == nil || g == nil {
		return
	}
	v.appsWork.Add(1)
	go func() {
		defer v.appsWork.Done()
		tok, err := g.GatewayToken(v.ctx)
		if v.ctx.Err() != nil {
			return // the window is closing
		}
		v.do(func() {
			if err != nil {
				v.showError("Could not copy the token", err)
			} else {
				v.app.Clipboard().SetContent(tok)
				if a.copyToken != nil {
					a.copyToken.SetText("Copied")
				}
			}
			v.done("action")
		})
	}()
}

// connectApp connects app, first asking about its own copies of servers
// mcptray runs, when it has any.
func (v *window) connectApp(app service.App) {
	if len(app.Movable) == 0 {
		v.doConnect(app, nil)
		return
	}
	a := v.apps
	checks := map[string]*widget.Check{}
	box := container.NewVBox(wrapped(fmt.Sprintf("%s's config also has servers that mcptray runs. Take these out of %s's config; mcptray runs them for it through the gateway:",
		sanitize.Line(app.Name), sanitize.Line(app.Name))))
	for _, m := range app.Movable {
		c := widget.NewCheck(fmt.Sprintf("%s (mcptray runs it as %s)", sanitize.Line(m.Name), sanitize.Line(m.RunsAs)), nil)
		c.SetChecked(true)
		checks[m.Name] = c
		box.Add(c)
	}
	box.Add(caption("Its config as it was is kept next to it, as .bak."))
	answer := func(ok bool) {
		if !ok {
			return
		}
		var move []string
		for _, m := range app.Movable {
			if checks[m.Name].Checked {
				move = append(move, m.Name)
			}
		}
		v.doConnect(app, move)
	}
	d := dialog.NewCustomConfirm("Connect "+sanitize.Line(app.Name), "Connect", "Cancel", box, answer, v.win)
	d.Resize(fyne.NewSize(520, 0))
	if a != nil {
		a.moveDialog, a.moveChecks, a.moveAnswer = d, checks, answer
	}
	d.Show()
}

// doConnect asks the running mcptray to connect app.
func (v *window) doConnect(app service.App, move []string) {
	g := v.b
	v.actThen("Could not connect "+sanitize.Line(app.Name), func(ctx context.Context) error {
		_, err := g.ConnectApp(ctx, service.ConnectRequest{App: app.Key, Move: move})
		return err
	}, v.reloadApps)
}

// disconnectApp asks the running mcptray to disconnect app.
func (v *window) disconnectApp(app service.App) {
	g := v.b
	v.actThen("Could not disconnect "+sanitize.Line(app.Name), func(ctx context.Context) error {
		_, err := g.DisconnectApp(ctx, app.Key)
		return err
	}, v.reloadApps)
}
