package pins

import (
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcptray/mcptray/core/tools"
)

// TestPolicyAcceptsOnlyWhatIsNamed: keeping or accepting some held tools
// by name decides on those and no other (a renamed one by its old name
// too), and says which; a name that is not held decides nothing at all;
// and a server that stopped has nothing accepted from the list it last
// gave.
func TestPolicyAcceptsOnlyWhatIsNamed(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), FileName)
	p := NewPolicy(path, nil, nil)
	p.SeeTools([]Listed{{Server: "weather", Tools: weatherList("Tells the weather for a city.", false)}})
	next := weatherList(rugPull, true) // get_weather rug-pulled, delete_city now says it only reads
	next[1].Name, next[1].QualifiedName = "forecast_days", "mcp__weather__forecast_days"
	p.SeeTools([]Listed{{Server: "weather", Tools: next}})
	held := func() []string { return listNames(reviewNow(p).Held, changeName) }
	want := []string{"changed:delete_city", "renamed:forecast_days", "changed:get_weather"}
	if got := held(); !slices.Equal(got, want) {
		t.Fatalf("held %v, want %v", got, want)
	}

	for _, names := range [][]string{{"nope"}, {"get_weather", "nope"}} {
		var nh *NotHeldError
		if got, err := p.Accept("weather", names); !errors.As(err, &nh) || !slices.Equal(nh.Names, []string{"nope"}) || got != nil {
			t.Errorf("accepting %v: %v, %v", names, listNames(got, decidedName), err)
		}
		if got := held(); !slices.Equal(got, want) {
			t.Errorf("accepting %v, of which one is not held, accepted some: held %v", names, got)
		}
	}

	// Kept held by name: that one alone, and a name not held keeps none.
	if kept, err := p.Keep("weather", []string{"delete_city"}); err != nil || !slices.Equal(listNames(kept, decidedName), []string{"tools:delete_city"}) {
		t.Errorf("keeping delete_city: %v, %v", listNames(kept, decidedName), err)
	}
	for _, names := range [][]string{{"nope"}, {"get_weather", "nope"}} {
		if kept, err := p.Keep("weather", names); !errors.As(err, new(*NotHeldError)) || kept != nil {
			t.Errorf("keeping %v, of which one is not held: %v, %v", names, listNames(kept, decidedName), err)
		}
	}
	if r := reviewNow(p); r.Pending() != 2 || r.Summary() != "2 tools changed, held; 1 tool kept held" {
		t.Errorf("after keeping one: %q, pending %d", r.Summary(), r.Pending())
	}

	accepted, err := p.Accept("weather", []string{"get_weather"})
	if err != nil || !slices.Equal(listNames(accepted, decidedName), []string{"tools:get_weather"}) {
		t.Errorf("accepting get_weather: %v, %v", listNames(accepted, decidedName), err)
	}
	accepted, err = p.Accept("weather", []string{"forecast"}) // the renamed one, by its old name
	if err != nil || !slices.Equal(listNames(accepted, decidedName), []string{"tools:forecast_days"}) {
		t.Errorf("accepting forecast: %v, %v", listNames(accepted, decidedName), err)
	}
	if got := held(); !slices.Equal(got, []string{"changed:delete_city"}) {
		t.Errorf("after accepting two: held %v", got)
	}
	if got := offeredTools(p); slices.Contains(got, "delete_city") || !slices.Contains(got, "get_weather") || !slices.Contains(got, "forecast_days") {
		t.Errorf("after accepting two: offered %v", got)
	}

	// The server stops: what it listed last is no longer what it lists.
	p.SeeTools(nil)
	if got, err := p.Accept("weather", nil); !errors.Is(err, ErrNotRunning) || got != nil {
		t.Errorf("accepting a stopped server's tools: %v, %v", listNames(got, decidedName), err)
	}
	if sv := onDisk(t, path); !slices.Equal(listNames(sv.Held, func(c Change) string { return c.Name }), []string{"delete_city"}) ||
		sv.Tools[slices.IndexFunc(sv.Tools, func(d Def) bool { return d.Name == "delete_city" })].Annotations.ReadOnly == tools.HintTrue {
		t.Errorf("after the server stopped, the file keeps %+v", sv)
	}
}

// TestPolicyNeverPinsItsOwnTools: mcptray's own server's tools are names
// other tools may mention, never pinned nor held, however they change.
func TestPolicyNeverPinsItsOwnTools(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), FileName)
	p := NewPolicy(path, nil, nil)
	own := func(desc string) Listed {
		return Listed{Server: "mcptray", Own: true, Tools: []tools.Tool{{Server: "mcptray", Name: "list_servers", QualifiedName: "mcp__mcptray__list_servers", Description: desc}}}
	}
	weather := Listed{Server: "weather", Tools: weatherList("Tells the weather for a city.", false)}
	p.SeeTools([]Listed{own("Lists the servers."), weather})
	p.SeeTools([]Listed{own("Lists the servers, and their tools."), weather})
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if sv, ok := s.Server("mcptray"); ok {
		t.Errorf("mcptray's own tools were pinned: %+v", sv)
	}
}

// TestPolicyKeptHoldsForThatChangeOnly: a change kept held stays held but
// no longer waits for the person; the server's next change of that tool
// is a change of its own, held and waiting again, in this run and in the
// file a restarted mcptray reads, and so is going back to the one kept.
func TestPolicyKeptHoldsForThatChangeOnly(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), FileName)
	p := NewPolicy(path, nil, nil)
	p.SeeTools([]Listed{{Server: "weather", Tools: weatherList("Tells the weather for a city.", false)}})
	p.SeeTools([]Listed{{Server: "weather", Tools: weatherList(rugPull, false)}})
	if _, err := p.Keep("weather", []string{"get_weather"}); err != nil {
		t.Fatal(err)
	}
	if r := reviewNow(p); r.Pending() != 0 || r.Summary() != "1 tool kept held" {
		t.Fatalf("kept: %q, pending %d", r.Summary(), r.Pending())
	}
	again := "Tells the weather. " + rugPull
	p.SeeTools([]Listed{{Server: "weather", Tools: weatherList(again, false)}})
	check := func(when string, r *Review) {
		t.Helper()
		if r.Pending() != 1 || r.Summary() != "1 tool changed, held" || len(r.Held) != 1 || r.Held[0].New == nil || r.Held[0].New.Description != again {
			t.Errorf("%s: %q, pending %d, held %+v", when, r.Summary(), r.Pending(), r.Held)
		}
	}
	check("changed again", reviewNow(p))
	if slices.Contains(offeredTools(p), "get_weather") {
		t.Error("the tool changed again is offered")
	}
	check("after a restart", NewPolicy(path, nil, nil).Remembered("weather", false))
	// Back to the change once kept: the decision went with it.
	p.SeeTools([]Listed{{Server: "weather", Tools: weatherList(rugPull, false)}})
	if r := reviewNow(p); r.Pending() != 1 || r.Summary() != "1 tool changed, held" {
		t.Errorf("back to the change once kept: %q, pending %d", r.Summary(), r.Pending())
	}
}
