package window

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"sort"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"
	"github.com/tailscale/hujson"

	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

// pasted is one server a paste describes: its name, its entry as a config
// file writes it, and what mcptray understood of it.
type pasted struct {
	name   string
	entry  json.RawMessage
	server service.Server
}

// parsePaste reads what a person pasted: the JSON snippet a server's README
// gives ({"mcpServers": {…}}, a bare {"name": {…}}, VS Code's
// {"servers": {…}}, or just "name": {…}), comments and trailing commas
// allowed, or a server's URL. Its errors are in plain words.
func parsePaste(text string) ([]pasted, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, errors.New("Paste a server's JSON snippet or its web address first.")
	}
	if !strings.ContainsAny(text, "{}\"") {
		return parseURL(text)
	}
	if strings.HasPrefix(text, `"`) {
		// "name": {…} copied without the braces around it.
		text = "{" + strings.TrimSuffix(text, ",") + "}"
	}
	std, err := hujson.Standardize([]byte(text))
	if err != nil {
		return nil, fmt.Errorf("This is not a JSON snippet mcptray can read (%s). Copy the whole snippet, from its first { to its last }.", plainJSONError(err))
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(std, &top); err != nil {
		return nil, errors.New("This is not a JSON object. Copy the whole snippet, from its first { to its last }.")
	}
	servers := top
	for _, key := range []string{"mcpServers", "servers", "mcp_servers"} {
		if raw, ok := top[key]; ok {
			servers = nil
			if err := json.Unmarshal(raw, &servers); err != nil || servers == nil {
				return nil, fmt.Errorf("%q should hold the servers by name, like {\"my-server\": {\"command\": …}}.", key)
			}
			break
		}
	}
	if _, ok := servers["command"]; ok {
		return nil, errors.New(`This is one server without its name. Put it inside {"my-server": …} with a name of your choice.`)
	}
	if _, ok := servers["url"]; ok {
		return nil, errors.New(`This is one server without its name. Put it inside {"my-server": …} with a name of your choice.`)
	}
	if len(servers) == 0 {
		return nil, errors.New("The snippet names no server.")
	}
	names := make([]string, 0, len(servers))
	for n := range servers {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []pasted
	for _, n := range names {
		raw := servers[n]
		if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
			return nil, fmt.Errorf("%s is not a server: a server is an object like {\"command\": …} or {\"url\": …}.", quoteArg(sanitize.Line(n)))
		}
		sv, err := service.ParseEntry(n, raw) // the service's checks, which Add makes again
		if err != nil {
			return nil, fmt.Errorf("%s.", sanitize.Line(err.Error()))
		}
		out = append(out, pasted{name: n, entry: raw, server: sv})
	}
	return out, nil
}

// plainJSONError shortens a JSON syntax error to what a person can use.
func plainJSONError(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 && strings.HasPrefix(msg, "hujson") {
		msg = msg[i+2:]
	}
	return sanitize.Line(msg)
}

// parseURL reads a remote server's address, and names it after its host.
func parseURL(text string) ([]pasted, error) {
	u, err := url.Parse(text)
	if err != nil || u.Host == "" || strings.ContainsAny(text, " \t\n") {
		return nil, errors.New("This is neither a JSON snippet nor a web address. A web address starts with https://")
	}
	entry := map[string]string{"url": text}
	switch u.Scheme {
	case "https", "http":
	case "wss", "ws":
		entry["type"] = "ws"
	default:
		return nil, fmt.Errorf("mcptray cannot connect to a %s: address; a server's address starts with https://", sanitize.Line(u.Scheme))
	}
	raw, _ := json.Marshal(entry)
	name := nameFromHost(u)
	sv, err := service.ParseEntry(name, raw)
	if err != nil {
		return nil, fmt.Errorf("This address cannot be used: %s.", sanitize.Line(err.Error()))
	}
	return []pasted{{name: name, entry: raw, server: sv}}, nil
}

// nameFromHost makes a short name from a URL's host: mcp.notion.com is
// "notion", 127.0.0.1:8080 is "local-8080".
func nameFromHost(u *url.URL) string {
	host := u.Hostname()
	if host == "localhost" || net.ParseIP(host) != nil {
		if p := u.Port(); p != "" {
			return "local-" + p
		}
		return "local"
	}
	labels := strings.Split(strings.ToLower(host), ".")
	if len(labels) > 1 {
		labels = labels[:len(labels)-1] // the top-level domain
	}
	for len(labels) > 1 {
		switch labels[0] {
		case "mcp", "www", "api":
			labels = labels[1:]
			continue
		}
		break
	}
	name := labels[len(labels)-1]
	if name == "" {
		name = "server"
	}
	return name
}

// describe says what mcptray understood of p: what it runs or where it
// connects, and the names (never the values) of its environment and
// headers.
func (p pasted) describe() string {
	sv := p.server
	lines := []string{sanitize.Line(p.name)}
	if sv.Transport.Remote() {
		lines = append(lines, "  connects to "+sanitize.Line(sv.URL))
		if n := sv.HeaderNames; len(n) > 0 {
			lines = append(lines, "  sends the headers "+names(n)+" (values not shown)")
		}
	} else {
		lines = append(lines, "  runs "+commandLine(sv.Command, sv.Args))
		if sv.Cwd != "" {
			lines = append(lines, "  in the folder "+sanitize.Line(sv.Cwd))
		}
		if n := sv.EnvNames; len(n) > 0 {
			lines = append(lines, "  with the environment variables "+names(n)+" (values not shown)")
		}
	}
	return strings.Join(lines, "\n")
}

// addDialog is the "Add a server" dialog: a box to paste into, what
// mcptray understood, and the Add button.
type addDialog struct {
	d       *dialog.CustomDialog
	paste   *widget.Entry
	name    *widget.Entry // the name of a server given by its URL
	nameBox *fyne.Container
	preview *widget.Label
	problem *widget.Label
	add     *widget.Button
	servers []pasted
	offered string // the name last offered for a URL
}

const pasteHelp = "Paste the JSON snippet from the server's instructions (the part with \"mcpServers\", \"servers\" or the server's name), or the web address of an online server."

// showAdd opens the "Add a server" dialog.
func (v *window) showAdd() {
	a := &addDialog{
		paste:   widget.NewMultiLineEntry(),
		name:    widget.NewEntry(),
		preview: widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Monospace: true}),
		problem: wrapped(""),
	}
	a.paste.SetPlaceHolder("{\n  \"mcpServers\": {\n    \"my-server\": {\"command\": \"npx\", \"args\": [\"-y\", \"some-mcp-server\"]}\n  }\n}\n\nor https://example.com/mcp")
	a.paste.SetMinRowsVisible(7)
	a.paste.Wrapping = fyne.TextWrapBreak
	a.preview.Wrapping = fyne.TextWrapBreak
	a.problem.Importance = widget.DangerImportance
	a.problem.Hide()
	a.nameBox = container.NewBorder(nil, nil, widget.NewLabel("Name"), nil, a.name)
	a.nameBox.Hide()
	a.add = widget.NewButton("Add", func() { v.addPasted(a) })
	a.add.Importance = widget.HighImportance
	a.add.Disable()
	a.paste.OnChanged = func(string) { a.check() }
	a.name.OnChanged = func(string) { a.check() }

	body := container.NewVBox(wrapped(pasteHelp), a.paste, a.nameBox, a.problem, a.preview)
	a.d = dialog.NewCustomWithoutButtons("Add a server", container.NewVScroll(body), v.win)
	a.d.SetButtons([]fyne.CanvasObject{widget.NewButton("Cancel", a.d.Hide), a.add})
	a.d.Resize(fyne.NewSize(620, 520))
	v.addDialog = a
	a.d.Show()
	v.win.Canvas().Focus(a.paste)
}

// check reads the paste again and says what mcptray understood.
func (a *addDialog) check() {
	servers, err := parsePaste(a.paste.Text)
	if err != nil {
		a.servers = nil
		a.nameBox.Hide()
		a.preview.SetText("")
		if strings.TrimSpace(a.paste.Text) == "" {
			a.problem.Hide()
		} else {
			a.problem.SetText(err.Error())
			a.problem.Show()
		}
		a.add.Disable()
		return
	}
	byURL := !strings.ContainsAny(a.paste.Text, "{}\"")
	if byURL {
		// Offer the name taken from the host, until the person types
		// their own.
		if !a.nameBox.Visible() || a.name.Text == a.offered {
			a.offered = servers[0].name
			a.name.SetText(a.offered)
			a.nameBox.Show()
		}
		servers[0].name = strings.TrimSpace(a.name.Text)
	} else {
		a.nameBox.Hide()
	}
	a.servers = servers
	a.problem.Hide()
	lines := []string{"mcptray will add " + count(len(servers), "server") + " to its own config:"}
	for _, p := range servers {
		lines = append(lines, p.describe())
	}
	a.preview.SetText(strings.Join(lines, "\n"))
	if byURL && servers[0].name == "" {
		a.add.Disable()
		return
	}
	a.add.Enable()
}

// addPasted adds each server of the paste, one request each, then shows
// the first and goes on to sign in where a server needs it.
func (v *window) addPasted(a *addDialog) {
	servers := a.servers
	if len(servers) == 0 {
		return
	}
	a.add.Disable()
	go func() {
		var added []service.AddResult
		var failed []string
		var firstErr error
		for _, p := range servers {
			res, err := v.b.Add(v.ctx, service.AddRequest{Name: p.name, Entry: p.entry})
			if err != nil {
				failed = append(failed, sanitize.Line(p.name)+": "+sanitize.Line(err.Error()))
				if firstErr == nil {
					firstErr = err
				}
				continue
			}
			added = append(added, res)
		}
		if v.ctx.Err() != nil {
			return
		}
		v.do(func() {
			if len(failed) > 0 {
				a.problem.SetText("Not added — " + strings.Join(failed, "\n") + "\nChange the snippet and press Add again.")
				a.problem.Show()
				a.add.Enable()
				// Those added are in; only the failed ones remain.
				var left []pasted
				for _, p := range servers {
					ok := true
					for _, r := range added {
						if r.Server.ConfigName == p.name || r.Server.Name == p.name {
							ok = false
						}
					}
					if ok {
						left = append(left, p)
					}
				}
				a.servers = left
			} else {
				a.d.Hide()
			}
			var notes []string
			for _, r := range added {
				if r.Note != "" {
					notes = append(notes, sanitize.Line(r.Server.Name)+": "+sanitize.Line(r.Note))
				}
				if r.Server.Transport.Remote() && r.Note == "" {
					v.signInWhenAsked(r.Server)
				}
			}
			if len(added) > 0 {
				v.focus(added[0].Server.Name)
			}
			if len(notes) > 0 && len(failed) == 0 {
				v.showError("Added, but not used", errors.New(strings.Join(notes, "\n")))
			}
			v.done("add")
		})
	}()
}

// signInWhenAsked goes straight on to signing in to sv once the service
// says it needs it (now, or when it has tried to connect).
func (v *window) signInWhenAsked(sv service.Server) {
	if v.signInNext == nil {
		v.signInNext = map[string]bool{}
	}
	v.signInNext[sv.Name] = true
	if cur, ok := v.snap.Find(sv.Name); ok {
		v.signInIfWaiting(cur)
	}
}

// signInIfWaiting starts the sign-in of a server just added once it needs
// one; a server that connected without is forgotten.
func (v *window) signInIfWaiting(sv service.Server) {
	if !v.signInNext[sv.Name] {
		return
	}
	switch {
	case sv.Fix.Action == service.SignInAction:
		delete(v.signInNext, sv.Name)
		v.signIn(sv)
	case sv.State == service.Connected, sv.State == service.Failed, sv.Suppressed != "":
		delete(v.signInNext, sv.Name)
	}
}
