package window

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/widget"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/gateway"
	"github.com/mcptray/mcptray/core/service"
	"github.com/mcptray/mcptray/core/sets"
)

// TestRealEditSet: the set editor changes a set fully by click — its
// name, a server whole, a single tool of another, a tool's permission and
// hiding in the set — and Cursor, which has the set through its own token,
// hears list_changed and gets the set as changed: the hidden tool is gone,
// the blocked one refused. Remove set… says which apps have it and what
// they get after; once removed, Cursor gets every server again.
func TestRealEditSet(t *testing.T) {
	var token string
	r := newReal(t, map[string]any{"mcpServers": map[string]any{"a": testServer("a"), "b": testServer("b")}}, withGateway(&token),
		func(r *real, _ *service.Options) {
			if err := os.MkdirAll(filepath.Join(r.dir, ".cursor"), 0o700); err != nil {
				t.Fatal(err)
			}
		})
	ctx, cancel := context.WithTimeout(context.Background(), realDeadline)
	defer cancel()
	if _, err := r.svc.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := r.svc.PutSet(ctx, service.SetRequest{Name: "Work", Servers: []string{"a"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.svc.GiveApp(ctx, service.GiveRequest{App: "cursor", Choice: "Work"}); err != nil {
		t.Fatal(err)
	}
	changed := make(chan struct{}, 16)
	cursor := cursorSession(t, ctx, r.inst.Gateway.Status().URL, gateway.AppToken(token, "cursor"), changed)
	names := func() []string {
		res, err := cursor.ListTools(ctx, mcp.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tl := range res.Tools {
			out = append(out, tl.Name)
		}
		return out
	}
	if got := names(); !slices.Contains(got, "mcp__a__echo") || slices.Contains(got, "mcp__b__echo") {
		t.Fatalf("Cursor's tools before the edit: %v", got)
	}

	a := r.openApps()
	r.until("the Work set's Edit…", func() bool { return r.v.apps.editSet["Work"] != nil })
	var edit *widget.Button
	r.v.do(func() { edit = r.v.apps.editSet["Work"] })
	r.tap(edit)
	a = r.v.apps
	r.until("the set editor", func() bool { return a.setEditor != nil })
	var save *widget.Button
	r.v.do(func() {
		e := a.setEditor
		if r.win.Canvas().Focused() != e.findField {
			t.Errorf("a set's editor opens with its focus on %T, not on the find field", r.win.Canvas().Focused())
		}
		pa, pb := e.servers["a"], e.servers["b"]
		if !pa.in.Checked || !pa.all.Checked || pb.in.Checked || pa.tools["add"] == nil {
			t.Fatalf("the editor of Work: a %v/%v, b %v", pa.in.Checked, pa.all.Checked, pb.in.Checked)
		}
		if p := pa.tools["add"].perm; !strings.HasPrefix(p.Selected, "As in general: ") || p.Selected != p.Options[0] {
			t.Errorf("a tool the set says nothing of: %q", p.Selected)
		}
		e.name.SetText("Writing")
		pb.in.SetChecked(true)
		pb.all.SetChecked(false)
		pb.tools["echo"].held.SetChecked(true)
		pa.tools["add"].perm.SetSelected("Block")
		pa.tools["ask"].hide.SetChecked(true)
		save = e.save
	})
	screenshot(t, r, "apps-edit-set")
	r.tap(save)
	r.until("the Writing set in the file", func() bool {
		c, err := sets.Read(sets.Path(r.paths))
		if err != nil || len(c.Sets) != 1 {
			return false
		}
		s := c.Sets[0]
		return s.Name == "Writing" && c.Apps["cursor"] == "Writing" && slices.Equal(s.Servers, []string{"a"}) &&
			slices.Equal(s.Tools, []string{"b/echo"}) && s.Permissions["mcp__a__add"] == config.Block &&
			len(s.Permissions) == 1 && slices.Equal(s.Hidden, []string{"mcp__a__ask"})
	})
	waitChanged(t, changed, "the edit")
	got := names()
	if !slices.Contains(got, "mcp__b__echo") || slices.Contains(got, "mcp__a__ask") || slices.Contains(got, "mcp__b__add") || !slices.Contains(got, "mcp__a__echo") {
		t.Errorf("Cursor's tools after the edit: %v", got)
	}
	res, err := cursor.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "mcp__a__add", Arguments: map[string]any{"a": 1, "b": 2}}})
	if err == nil && !res.IsError {
		t.Errorf("a tool the set blocks was called: %+v", res)
	}

	// Opened again, the editor shows the set as saved.
	r.until("the Writing set's Edit…", func() bool { return r.v.apps.editSet["Writing"] != nil })
	r.v.do(func() { edit = r.v.apps.editSet["Writing"] })
	r.tap(edit)
	a = r.v.apps
	r.until("the Writing set's editor", func() bool { return a.setEditor != nil && a.setEditor.from == "Writing" })
	var remove *widget.Button
	r.v.do(func() {
		e := a.setEditor
		pa, pb := e.servers["a"], e.servers["b"]
		if pa.tools["add"].perm.Selected != "Block" || !pa.tools["ask"].hide.Checked || !pb.in.Checked || pb.all.Checked ||
			!pb.tools["echo"].held.Checked || pb.tools["add"].held.Checked {
			t.Errorf("the editor after the save: add %q, ask hidden %v, b %v/%v", pa.tools["add"].perm.Selected, pa.tools["ask"].hide.Checked, pb.in.Checked, pb.all.Checked)
		}
		remove = e.remove
	})
	r.tap(remove)
	r.until("Remove set's question", func() bool { return a.setEditor.removeAnswer != nil })
	screenshot(t, r, "apps-remove-set")
	var words string
	r.v.do(func() { words = a.setEditor.removeWords })
	if words != "Remove the Writing set? Cursor gets it now; after, it gets every server, until you give it another set." {
		t.Errorf("Remove set asks: %q", words)
	}
	r.v.do(func() { a.setEditor.removeAnswer(true) })
	r.until("no set in the file", func() bool {
		c, err := sets.Read(sets.Path(r.paths))
		return err == nil && len(c.Sets) == 0 && c.Apps["cursor"] == ""
	})
	waitChanged(t, changed, "the removal")
	if got := names(); !slices.Contains(got, "mcp__b__add") || !slices.Contains(got, "mcp__a__ask") {
		t.Errorf("Cursor's tools after the removal: %v", got)
	}
}

// cursorSession is an HTTP session of Cursor with its own token; changed
// hears each tools/list_changed.
func cursorSession(t *testing.T, ctx context.Context, url, token string, changed chan<- struct{}) *client.Client {
	t.Helper()
	c, err := client.NewStreamableHttpClient(url, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}),
		transport.WithContinuousListening())
	if err != nil {
		t.Fatal(err)
	}
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == string(mcp.MethodNotificationToolsListChanged) {
			select {
			case changed <- struct{}{}:
			default:
			}
		}
	})
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = "2025-06-18"
	req.Params.ClientInfo = mcp.Implementation{Name: "cursor", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatal(err)
	}
	return c
}

// waitChanged waits for a list_changed after what.
func waitChanged(t *testing.T, changed <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-changed:
	case <-time.After(realDeadline):
		t.Fatalf("Cursor heard no list_changed after %s", what)
	}
}

// TestRealSetsFileEditedByHand: sets.json edited by hand while mcptray
// runs is read at once: Cursor, given a set there, hears list_changed and
// lists only the set's tools, and the Apps view shows the set; a file
// with a mistake is refused, the Apps view says why in words, and Cursor
// keeps its set.
func TestRealSetsFileEditedByHand(t *testing.T) {
	var token string
	r := newReal(t, map[string]any{"mcpServers": map[string]any{"a": testServer("a"), "b": testServer("b")}}, withGateway(&token), following,
		func(r *real, _ *service.Options) {
			if err := os.MkdirAll(filepath.Join(r.dir, ".cursor"), 0o700); err != nil {
				t.Fatal(err)
			}
		})
	ctx, cancel := context.WithTimeout(context.Background(), realDeadline)
	defer cancel()
	if _, err := r.svc.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	changed := make(chan struct{}, 16)
	cursor := cursorSession(t, ctx, r.inst.Gateway.Status().URL, gateway.AppToken(token, "cursor"), changed)
	r.openApps()
	path := sets.Path(r.paths)
	if err := os.WriteFile(path, []byte(`{"version":1,"sets":[{"name":"Hand","tools":["b/echo"]}],"apps":{"cursor":"Hand"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	waitChanged(t, changed, "the hand edit")
	res, err := cursor.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil || len(res.Tools) != 1 || res.Tools[0].Name != "mcp__b__echo" {
		t.Fatalf("Cursor's tools after the hand edit: %+v, %v", res, err)
	}
	r.until("the Hand set in the Apps view", func() bool { return r.v.apps != nil && r.v.apps.editSet["Hand"] != nil })

	if err := os.WriteFile(path, []byte(`{"version":1,"sets":[{"name":"Hand","tools":["b/echo"]}],"apps":{"cursor":"Gone"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	var shown string
	defer func() {
		if t.Failed() {
			t.Logf("the sets in the Apps view:\n%s", shown)
		}
	}()
	r.until("the file's problem in the Apps view", func() bool {
		shown = strings.Join(labels(r.v.apps.setsBox), "\n")
		return strings.Contains(shown, `the app cursor: there is no set called "Gone"`) && strings.Contains(shown, "the sets stay as they were until it is fixed")
	})
	screenshot(t, r, "apps-sets-file-refused")
	res, err = cursor.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil || len(res.Tools) != 1 {
		t.Errorf("Cursor's tools after a bad file: %+v, %v", res, err)
	}
}

// TestRealNewSetSaysWhatItRisks: a set made by click that reads private
// data and can send data out says so, in the guard's words, as it is
// saved, not only later in the Apps view's lines.
func TestRealNewSetSaysWhatItRisks(t *testing.T) {
	var token string
	r := newReal(t, map[string]any{"mcpServers": map[string]any{"a": testServer("a"), "b": testServer("b")}}, withGateway(&token),
		func(r *real, _ *service.Options) {
			if err := os.MkdirAll(filepath.Join(r.dir, ".cursor"), 0o700); err != nil {
				t.Fatal(err)
			}
		})
	ctx, cancel := context.WithTimeout(context.Background(), realDeadline)
	defer cancel()
	yes := true
	if err := r.svc.SetGuardLabels(ctx, "mcp__a__echo", config.LabelChange{Private: &yes}, false); err != nil {
		t.Fatal(err)
	}
	if err := r.svc.SetGuardLabels(ctx, "mcp__b__echo", config.LabelChange{Egress: &yes}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := r.svc.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	a := r.openApps()
	r.until("New set…", func() bool { return a.newSet != nil })
	var newSet *widget.Button
	r.v.do(func() { newSet = a.newSet })
	r.tap(newSet)
	r.until("the set editor", func() bool { return a.setEditor != nil })
	var save *widget.Button
	r.v.do(func() {
		e := a.setEditor
		if r.win.Canvas().Focused() != e.name {
			t.Errorf("a new set's editor opens with its focus on %T, not on the set's name", r.win.Canvas().Focused())
		}
		e.name.SetText("Leaky")
		e.servers["a"].in.SetChecked(true)
		e.servers["b"].in.SetChecked(true)
		save = e.save
	})
	r.tap(save)
	var words string
	r.until("the saved set's words", func() bool {
		words = strings.Join(labels(r.win.Canvas().Overlays().Top()), "\n")
		return strings.Contains(words, "saved")
	})
	for _, want := range []string{"The Leaky set reads private data (mcp__a__echo)", "and can send data out (", "the flow guard asks before such a call."} {
		if !strings.Contains(words, want) {
			t.Errorf("saving the Leaky set says %q, without %q", words, want)
		}
	}
	screenshot(t, r, "apps-set-saved-risk")
}
