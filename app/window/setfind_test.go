package window

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/service"
	"github.com/mcptray/mcptray/core/sets"
	"github.com/mcptray/mcptray/core/tools"
	"github.com/mcptray/mcptray/test/mcpserver"
)

// seenLine is a line the person sees in the set editor: a check box
// ("[x] name"), a choice ("<Block>") or words, and where it is drawn.
type seenLine struct {
	text string
	y, h float32
}

// seen is what the person sees of o, walking only what is shown, in
// order, each line with its position in o.
func seen(o fyne.CanvasObject) []seenLine {
	var out []seenLine
	var walk func(o fyne.CanvasObject, at fyne.Position)
	walk = func(o fyne.CanvasObject, at fyne.Position) {
		if o == nil || !o.Visible() {
			return
		}
		at = at.Add(o.Position())
		line := func(text string) { out = append(out, seenLine{text, at.Y, o.Size().Height}) }
		switch x := o.(type) {
		case *widget.Check:
			box := "[ ] "
			if x.Checked {
				box = "[x] "
			}
			line(box + x.Text)
		case *widget.Select:
			line("<" + x.Selected + ">")
		case *widget.Label:
			line(x.Text)
		case *fyne.Container:
			for _, c := range x.Objects {
				walk(c, at)
			}
		case fyne.Widget:
			for _, c := range test.WidgetRenderer(x).Objects() {
				walk(c, at)
			}
		}
	}
	walk(o, fyne.Position{})
	return out
}

// seenTexts are the texts of lines.
func seenTexts(lines []seenLine) []string {
	var out []string
	for _, l := range lines {
		out = append(out, l.text)
	}
	return out
}

// TestRealSetEditorFinds: the set editor's find field, typed into as a
// person types, shows only the servers and tools that match — by the
// server's name, the tool's name, its title or its description, in any
// case — each tool under its server, and says so when nothing does;
// cleared, it shows everything as before. A set saved while the field
// hides some of its tools saves them too, with their permission and
// hiding: finding changes what is shown, never what is saved.
func TestRealSetEditorFinds(t *testing.T) {
	var token string
	var mailTools string
	r := newReal(t, nil, withGateway(&token), func(r *real, _ *service.Options) {
		if err := os.MkdirAll(filepath.Join(r.dir, ".cursor"), 0o700); err != nil {
			t.Fatal(err)
		}
		mailTools = filepath.Join(r.dir, "mail-tools.json")
		err := mcpserver.WriteToolsFile(mailTools,
			mcpserver.FileTool{Name: "send_mail", Description: "Sends a message to anyone."},
			mcpserver.FileTool{Name: "read_inbox", Title: "Inbox reader"},
			mcpserver.FileTool{Name: "delete_mail", Title: "Trash a message", Description: "Moves a message to the bin."})
		if err != nil {
			t.Fatal(err)
		}
		r.write(r.paths.UserFile(), map[string]any{"mcpServers": map[string]any{
			"notes": testServer("notes"),
			"mail":  map[string]any{"command": testServerBin, "args": []string{"-name", "mail", "-tools-file", mailTools}},
		}})
	})
	ctx, cancel := context.WithTimeout(context.Background(), realDeadline)
	defer cancel()
	if _, err := r.svc.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	_, err := r.svc.PutSet(ctx, service.SetRequest{Name: "Work", Tools: []string{"mail/send_mail", "mail/read_inbox"},
		Rules: &service.SetRules{Permissions: map[string]config.Permission{"mail/send_mail": config.Block}, Hide: []string{"mail/read_inbox"}}})
	if err != nil {
		t.Fatal(err)
	}
	a := r.openApps()
	r.until("the Work set's Edit…", func() bool { return a.editSet["Work"] != nil })
	var edit *widget.Button
	r.v.do(func() { edit = a.editSet["Work"] })
	r.tap(edit)
	a = r.v.apps
	r.until("the set editor", func() bool { return a.setEditor != nil })
	var e *setEditor
	r.v.do(func() { e = a.setEditor })
	var shown []seenLine
	look := func() []string {
		r.v.do(func() { shown = seen(e.scroll.Content) })
		return seenTexts(shown)
	}
	// typeIn types text into the emptied find field, key by key.
	typeIn := func(text string) []string {
		r.v.do(func() {
			e.findField.SetText("")
			test.Type(e.findField, text)
		})
		return look()
	}
	// said fails the test unless the editor shows want, in that order,
	// and nothing of notWant; each line below the one before.
	said := func(what string, got []string, want, notWant []string) {
		t.Helper()
		at := 0
		for _, w := range want {
			i := slices.Index(got[at:], w)
			if i < 0 {
				t.Errorf("%s: the editor shows no %q after %v:\n%s", what, w, got[:at], strings.Join(got, "\n"))
				return
			}
			at += i + 1
		}
		for _, w := range notWant {
			if slices.Contains(got, w) {
				t.Errorf("%s: the editor shows %q:\n%s", what, w, strings.Join(got, "\n"))
			}
		}
		// Each line below the one before, but for a tool's permission and
		// Hide, beside its name.
		var lines []seenLine
		for _, l := range shown {
			if !strings.HasPrefix(l.text, "<") && !strings.HasSuffix(l.text, "] Hide") {
				lines = append(lines, l)
			}
		}
		for i := 1; i < len(lines); i++ {
			if lines[i].h <= 0 || lines[i].y < lines[i-1].y+lines[i-1].h/2 {
				t.Errorf("%s: %q (at %v, %v high) is drawn over %q (at %v, %v high)", what, lines[i].text, lines[i].y, lines[i].h,
					lines[i-1].text, lines[i-1].y, lines[i-1].h)
			}
		}
	}
	const sendsNote = "Sends a message to anyone."
	everything := look()
	said("as it opens", everything,
		[]string{"[x] mail", "[ ] All of this server's tools", "[ ] delete_mail", "[x] read_inbox", "<As in general: Ask>", "[x] Hide",
			"[x] send_mail", "<Block>", "[ ] Hide", "[ ] notes"},
		[]string{"[x] echo", sendsNote})

	got := typeIn("MAIL")
	said("MAIL", got, []string{"[x] mail", "[ ] delete_mail", "[ ] echo", "[x] read_inbox", "[x] send_mail"}, []string{"[ ] notes"})

	r.v.do(func() {
		for range len("MAIL") {
			e.findField.TypedKey(&fyne.KeyEvent{Name: fyne.KeyBackspace})
		}
	})
	if got = look(); !slices.Equal(got, everything) {
		t.Errorf("cleared, the editor shows\n%s\nnot, as it opened,\n%s", strings.Join(got, "\n"), strings.Join(everything, "\n"))
	}

	got = typeIn("zebra")
	said("zebra", got, []string{`No server or tool matches “zebra”: check its spelling, or clear the search to see every server.`},
		[]string{"[x] mail", "[ ] notes"})
	var clearShown bool
	r.v.do(func() {
		clearShown = e.findClear.Visible()
		test.Tap(e.findClear)
	})
	if got := look(); !clearShown || !slices.Equal(got, everything) {
		t.Errorf("the find field's clear button (shown %v): the editor shows\n%s", clearShown, strings.Join(got, "\n"))
	}

	// One tool found in place of another, the list as high as before, as
	// when a name is pasted over the one typed: it is drawn where the
	// other was.
	r.v.do(func() { e.findField.SetText("inbox") })
	said("inbox", look(), []string{"[x] mail", "[ ] All of this server's tools", "[x] read_inbox", "[x] Hide", "[ ] Servers added later join it too"},
		[]string{"[x] send_mail", "[ ] notes"})
	r.v.do(func() { e.findField.SetText("send_mail") })
	said("send_mail", look(), []string{"[x] mail", "[ ] All of this server's tools", "[x] send_mail", "<Block>", "[ ] Servers added later join it too"},
		[]string{"[x] read_inbox", "[ ] notes"})

	// By a tool's description: notes is not ticked, so it says how many
	// of its tools match, and ticked, it shows only those.
	got = typeIn("sends")
	said("sends", got, []string{"[x] mail", "[ ] notify_tools_changed", "[ ] progress", "[x] send_mail", sendsNote,
		"[ ] notes", "2 of its tools match: tick notes to see them."},
		[]string{"[ ] echo", "[x] read_inbox", "[ ] delete_mail"})
	r.v.do(func() { test.Tap(e.servers["notes"].in) })
	got = look()
	said("sends, notes ticked", got, []string{"[x] mail", "[x] notes", "[ ] All of this server's tools", "[ ] notify_tools_changed", "[ ] progress"},
		[]string{"[ ] echo", "2 of its tools match: tick notes to see them."})
	r.v.do(func() { test.Tap(e.servers["notes"].in) })

	// By a tool's title, in a word of the query: only delete_mail shows,
	// and is ticked; the two ticked before, hidden now, are saved too.
	got = typeIn("mail trash")
	said("mail trash", got, []string{"[x] mail", "[ ] delete_mail", "Trash a message: Moves a message to the bin."},
		[]string{"[ ] notes", "[x] send_mail", "[x] read_inbox"})
	var save *widget.Button
	r.v.do(func() {
		test.Tap(e.servers["mail"].tools["delete_mail"].held)
		save = e.save
	})
	screenshot(t, r, "apps-set-editor-find")
	r.tap(save)
	var file sets.Set
	r.until("the Work set saved", func() bool {
		c, err := sets.Read(sets.Path(r.paths))
		if err != nil || len(c.Sets) != 1 {
			return false
		}
		file = c.Sets[0]
		return slices.Contains(file.Tools, "mail/delete_mail")
	})
	slices.Sort(file.Tools)
	if !slices.Equal(file.Tools, []string{"mail/delete_mail", "mail/read_inbox", "mail/send_mail"}) || len(file.Servers) != 0 ||
		fmt.Sprint(file.Permissions) != "map[mcp__mail__send_mail:block]" || !slices.Equal(file.Hidden, []string{"mcp__mail__read_inbox"}) {
		t.Errorf("saved while finding, the Work set is %+v", file)
	}
}

// TestFindMatches: a tool is found when each word typed is in its
// server's name, its name, its title, its annotations' title or its
// description, in any case; what it says of itself names each title once
// and hides no characters a server slipped in.
func TestFindMatches(t *testing.T) {
	about := toolAbout(tools.Tool{Title: "Send mail", Hints: tools.Hints{Title: "Send mail"}, Description: "Sends\u202e a message."})
	if about != "Send mail: Sends a message." {
		t.Errorf("toolAbout: %q", about)
	}
	server, name, aboutText := "work mail", "send", strings.ToLower(about)
	for _, c := range []struct {
		q    string
		want bool
	}{
		{"", true}, {"MAIL", true}, {"work send", true}, {"message", true}, {"mail message", true},
		{"send  Message ", true}, {"zebra", false}, {"mail zebra", false}, {"mailsend", false},
	} {
		if got := holdsAll(findTerms(c.q), server, name, aboutText); got != c.want {
			t.Errorf("%q finds the tool: %v, want %v", c.q, got, c.want)
		}
	}
}

// manyTools is a snapshot of servers servers of perServer tools each,
// named and described as a code host's are.
func manyTools(servers, perServer int) service.Snapshot {
	verbs := []string{"create", "list", "get", "update", "delete", "search", "merge", "close", "comment_on", "watch"}
	nouns := []string{"issue", "pull_request", "branch", "release", "label", "milestone", "repository", "gist", "project", "workflow_run"}
	var snap service.Snapshot
	for s := range servers {
		sv := service.Server{Name: fmt.Sprintf("server%02d", s), State: service.Connected}
		for i := range perServer {
			verb, noun := verbs[i%len(verbs)], nouns[(i/len(verbs))%len(nouns)]
			name := fmt.Sprintf("%s_%s_%d", verb, noun, i/(len(verbs)*len(nouns)))
			sv.Tools = append(sv.Tools, tools.Tool{Server: sv.Name, Name: name, QualifiedName: tools.QualifiedName(sv.Name, name),
				Description: fmt.Sprintf("%s a %s of the repository the person names, and returns what the host says of it.",
					strings.ReplaceAll(verb, "_", " "), strings.ReplaceAll(noun, "_", " "))})
		}
		snap.Servers = append(snap.Servers, sv)
	}
	return snap
}

// setEditorOf opens the set editor on snap in a window of the test
// driver, as the Apps view does.
func setEditorOf(b *testing.B, snap service.Snapshot) (*window, *setEditor) {
	test.NewTempApp(b)
	w := test.NewWindow(nil)
	b.Cleanup(w.Close)
	w.Resize(fyne.NewSize(900, 640))
	v := &window{win: w, apps: &appsView{}, snap: snap}
	v.showSetEditor("")
	return v, v.apps.setEditor
}

// BenchmarkSetEditorFind: one key typed into the set editor's find field,
// with 20 servers of 100 tools each: a person typing "delete pull", then
// clearing it, one key at a time.
func BenchmarkSetEditorFind(b *testing.B) {
	_, e := setEditorOf(b, manyTools(20, 100))
	var keys []string
	for q := range len("delete pull") + 1 {
		keys = append(keys, "delete pull"[:q])
	}
	keys = append(keys, "") // cleared
	for i := 0; b.Loop(); i++ {
		e.findField.SetText(keys[i%len(keys)])
	}
}

// BenchmarkSetEditorOpen: opening the set editor with 20 servers of 100
// tools each, every row built (once: finding only shows and hides them).
func BenchmarkSetEditorOpen(b *testing.B) {
	v, e := setEditorOf(b, manyTools(20, 100))
	for b.Loop() {
		e.d.Hide()
		v.showSetEditor("")
		e = v.apps.setEditor
	}
}
