package pins

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// A bundle's declared tools and prompts are pinned before it runs; at its
// first start those offered as declared are pinned as offered, and what
// it did not declare, or declared otherwise, or what reads as orders, is
// held.
func TestPolicyPinsWhatABundleDeclared(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), FileName)
	c := &clock{time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)}
	p := NewPolicy(path, c.now, nil)
	declared := []Def{
		{Name: "get_weather", Description: rugPull},
		{Name: "forecast", Description: "Tells the weather of the next days."},
		{Name: "delete_city", Description: "Forgets a place."},
		{Name: "alerts", Description: "Says the weather alerts."},
	}
	if err := p.PinDeclared("weather", declared, []Def{{Name: "summarize", Description: "Summarizes a text."}}); err != nil {
		t.Fatal(err)
	}
	if sv := onDisk(t, path); !sv.DeclaredTools || len(sv.Tools) != 4 {
		t.Fatalf("before its first start the file keeps %+v", sv)
	}

	p.SeeTools([]Listed{{Server: "weather", Tools: weatherList(rugPull, false)}})
	p.SeePrompts("weather", []mcp.Prompt{summarizePrompt("Summarizes a text."), mcp.NewPrompt("extra")})
	// forecast as declared; get_weather as declared but flagged;
	// delete_city described otherwise; alerts not offered.
	if got := offeredTools(p); !slices.Equal(got, []string{"forecast"}) {
		t.Errorf("offered %v; want forecast alone", got)
	}
	if got := listNames(reviewNow(p).Held, changeName); !slices.Equal(got, []string{"changed:delete_city", "changed:get_weather"}) {
		t.Errorf("held %v", got)
	}
	if got, err := p.OfferablePrompts("weather", []mcp.Prompt{summarizePrompt("Summarizes a text."), mcp.NewPrompt("extra")}); err != nil ||
		!slices.Equal(listNames(got, promptName), []string{"summarize"}) {
		t.Errorf("offerable prompts %v, %v; want summarize alone", listNames(got, promptName), err)
	}
	sv := onDisk(t, path)
	if sv.DeclaredTools || sv.DeclaredPrompts {
		t.Error("the declaration is still the pins after the first start")
	}
	i := slices.IndexFunc(sv.Tools, func(d Def) bool { return d.Name == "forecast" })
	if i < 0 || sv.Tools[i].Annotations != (weatherList("", false)[1].Hints) {
		t.Errorf("forecast is pinned as %+v; want it as the server offered it", sv.Tools)
	}

	// A second install over the first keeps the pins of what ran.
	if err := p.PinDeclared("weather", nil, nil); err != nil {
		t.Fatal(err)
	}
	if sv := onDisk(t, path); sv.DeclaredTools || len(sv.Tools) == 0 {
		t.Errorf("installed again: the file keeps %+v", sv)
	}
}
