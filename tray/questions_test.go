package tray

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/assets"
	"github.com/mcptray/mcptray/core/control"
	"github.com/mcptray/mcptray/core/service"
)

// egressAsk is a proxy's question as the tray hears of it.
func egressAsk(id, server, dest string, local bool) control.Question {
	return control.Question{ID: id, Kind: control.KindEgress, Server: server,
		Egress: &control.EgressQuestion{Host: dest, Dest: dest, Local: local}}
}

func TestQuestionsInMenu(t *testing.T) {
	t.Parallel()
	s := snap(sv("weather", service.Connected, ""))
	m := withQuestions(Build(s), []control.Question{egressAsk("1", "weather", "api.weather.gov", false)})
	if m.Icon != assets.StateAttention {
		t.Errorf("icon %s with a question waiting, want attention", m.Icon)
	}
	if want := "mcptray: 1 connected · 1 question waiting"; m.Tooltip != want {
		t.Errorf("tooltip %q, want %q", m.Tooltip, want)
	}
	want := []Item{
		{Label: "1 connected · 1 question waiting", Disabled: true},
		{Separator: true},
		{Label: "weather asks to reach api.weather.gov", Action: OpenAction, Server: "weather"},
		{Label: "Allow once", Action: AllowOnceAction, Server: "weather", Question: "1"},
		{Label: "Always", Action: AllowAlwaysAction, Server: "weather", Question: "1"},
		{Label: "Deny", Action: DenyAction, Server: "weather", Question: "1"},
		{Separator: true},
	}
	if !slices.Equal(m.Items[:len(want)], want) {
		t.Errorf("menu\n%s\nwant it to begin with\n%s", dump(m.Items), dump(want))
	}

	// A failure still shows as one; the fourth question on is folded.
	failing := snap(sv("fs", service.Failed, "npx is not installed"))
	var asks []control.Question
	for i := range 5 {
		asks = append(asks, egressAsk(strconv.Itoa(i), "db", "localhost:"+strconv.Itoa(5430+i), true))
	}
	m = withQuestions(Build(failing), asks)
	if m.Icon != assets.StateFailing {
		t.Errorf("icon %s, want failing", m.Icon)
	}
	labels := dump(m.Items)
	if !strings.Contains(labels, "db asks to reach localhost:5432 (this computer or your network)") ||
		strings.Contains(labels, "localhost:5433") || !strings.Contains(labels, "2 more questions — Open mcptray…") {
		t.Errorf("five questions:\n%s", labels)
	}
	// A question of the flow guard is answered in the window, where its
	// chain can be read; the menu offers no yes.
	chain := "Claude Code read ~/notes/tax.txt through files, then read https://example.com/issue/42 through fetch. It now wants to send data through store (to backup.example)."
	guardAsk := egressAsk("g", "store", "backup.example", false)
	guardAsk.Egress.Chain = chain
	m = withQuestions(Build(s), []control.Question{guardAsk})
	want = []Item{
		{Label: "1 connected · 1 question waiting", Disabled: true},
		{Separator: true},
		{Label: "store wants to send data to backup.example", Action: OpenAction, Server: "store"},
		{Label: "Read what it read, and answer…", Action: OpenAction, Server: "store"},
		{Label: "Deny", Action: DenyAction, Server: "store", Question: "g"},
		{Separator: true},
	}
	if !slices.Equal(m.Items[:len(want)], want) {
		t.Errorf("the guard's question in the menu\n%s\nwant it to begin with\n%s", dump(m.Items), dump(want))
	}
	if n := questionNotice(guardAsk); n.Title != "store wants to send data to backup.example" || !strings.HasPrefix(n.Body, chain+" ") {
		t.Errorf("the guard's question's notice: %+v", n)
	}
	if m := withQuestions(Build(s), nil); m.Icon != assets.StateOK || !slices.Equal(m.Items, Build(s).Items) {
		t.Errorf("no question changed the menu: %+v", m)
	}
}
