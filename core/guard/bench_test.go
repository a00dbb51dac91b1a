package guard

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/sandbox"
	"github.com/mcptray/mcptray/core/tools"
)

// referenceLabels are the reference servers' tools (core/pins/testdata/
// reference-tools.json) labelled as a person's setup gives them: the
// filesystem server on ~/Documents, memory and everything as npx runs
// them (their package registry the one host they may reach).
func referenceLabels(t testing.TB) map[string]*ToolLabels {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "pins", "testdata", "reference-tools.json"))
	if err != nil {
		t.Fatal(err)
	}
	var byServer map[string][]tools.Tool
	if err := json.Unmarshal(b, &byServer); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	if err := os.Mkdir(filepath.Join(home, "Documents"), 0o700); err != nil {
		t.Fatal(err)
	}
	registry := sandbox.Grant{Kind: "host", What: "registry.npmjs.org", Words: "reach registry.npmjs.org"}
	args := map[string][]string{
		"filesystem": {"-y", "@modelcontextprotocol/server-filesystem", "~/Documents"},
		"memory":     {"-y", "@modelcontextprotocol/server-memory"},
		"everything": {"-y", "@modelcontextprotocol/server-everything"},
	}
	out := map[string]*ToolLabels{}
	for name, list := range byServer {
		sv := Server{Name: name, Grants: append(sandbox.Grants(sandbox.Input{Home: home, Args: args[name]}), registry)}
		for _, tool := range list {
			tl := Derive(sv, tool)
			out[name+"/"+tool.Name] = &tl
		}
	}
	if out["filesystem/read_text_file"] == nil || !out["filesystem/read_text_file"].Labels.Has(Private) {
		t.Fatalf("the filesystem server on ~/Documents does not read private data: %+v", out["filesystem/read_text_file"])
	}
	return out
}

// tasks are what people do with the reference servers, each a few calls
// (server/tool).
var tasks = map[string][]string{
	"summarise files":    {"filesystem/list_allowed_directories", "filesystem/list_directory", "filesystem/read_text_file", "filesystem/read_text_file"},
	"find in files":      {"filesystem/search_files", "filesystem/read_text_file", "filesystem/get_file_info"},
	"edit a file":        {"filesystem/read_text_file", "filesystem/edit_file", "filesystem/write_file"},
	"tidy a folder":      {"filesystem/directory_tree", "filesystem/create_directory", "filesystem/move_file", "filesystem/list_directory_with_sizes"},
	"look at media":      {"filesystem/read_media_file", "filesystem/read_multiple_files", "filesystem/read_file"},
	"remember":           {"memory/create_entities", "memory/create_relations", "memory/add_observations"},
	"recall":             {"memory/read_graph", "memory/search_nodes", "memory/open_nodes"},
	"forget":             {"memory/delete_observations", "memory/delete_relations", "memory/delete_entities"},
	"try the demo":       {"everything/echo", "everything/get-sum", "everything/get-tiny-image", "everything/get-annotated-message"},
	"demo resources":     {"everything/get-resource-links", "everything/get-resource-reference", "everything/get-structured-content"},
	"demo environment":   {"everything/get-env", "everything/get-roots-list", "everything/trigger-long-running-operation"},
	"demo questions":     {"everything/trigger-elicitation-request", "everything/toggle-simulated-logging", "everything/toggle-subscriber-updates"},
	"research":           {"everything/simulate-research-query", "everything/echo"},
	"gzip a page":        {"everything/gzip-file-as-resource"},
	"gzip pages twice":   {"everything/gzip-file-as-resource", "everything/gzip-file-as-resource"},
	"ask the model once": {"everything/trigger-sampling-request"},
}

// benignSessions are each task alone and each ordered pair of tasks, but
// for the pairs that read the person's files and then reach the world
// twice (gzip-file-as-resource fetches a URL the model chooses): that is
// the trifecta itself, which the guard is there to ask about.
func benignSessions(labels map[string]*ToolLabels) (sessions [][]string, trifectas int) {
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range tasks {
			if !yield(k) {
				return
			}
		}
	})
	reads := func(task string) bool {
		return slices.ContainsFunc(tasks[task], func(c string) bool { return labels[c].Labels.Has(Private) })
	}
	reaches := func(task string) int {
		n := 0
		for _, c := range tasks[task] {
			if labels[c].Labels.Has(Untrusted) && labels[c].Labels.Has(Egress) {
				n++
			}
		}
		return n
	}
	for _, a := range names {
		sessions = append(sessions, tasks[a])
		for _, b := range names {
			if a == b {
				continue
			}
			if reads(a) && reaches(b) >= 2 {
				trifectas++
				continue
			}
			sessions = append(sessions, slices.Concat(tasks[a], tasks[b]))
		}
	}
	return sessions, trifectas
}

// TestBenignReferenceSessions: over sessions of what people do with the
// reference servers, the guard asks in none (bench/README.md has the
// figures).
func TestBenignReferenceSessions(t *testing.T) {
	t.Parallel()
	labels := referenceLabels(t)
	sessions, trifectas := benignSessions(labels)
	if len(sessions) < 50 {
		t.Fatalf("only %d sessions", len(sessions))
	}
	tr := NewTracker("/home/p", 0)
	asked, calls := 0, 0
	for i, s := range sessions {
		for _, c := range s {
			calls++
			if v := tr.See(Call{Session: fmt.Sprint(i), App: "Claude Code", Tool: labels[c]}); v.Held {
				asked++
				t.Errorf("session %d (%v) held at %s: %s", i, s, c, v.Chain.Words())
				break
			}
		}
	}
	t.Logf("%d benign sessions, %d calls, asked in %d; %d trifecta sessions left out", len(sessions), calls, asked, trifectas)
	// The trifectas left out are held, each.
	held := 0
	for i, s := range trifectaSessions(labels) {
		for _, c := range s {
			if tr.See(Call{Session: fmt.Sprint("t", i), Tool: labels[c]}).Held {
				held++
				break
			}
		}
	}
	if held != trifectas {
		t.Errorf("%d of the %d trifecta sessions held", held, trifectas)
	}
}

// trifectaSessions are the pairs benignSessions leaves out.
func trifectaSessions(labels map[string]*ToolLabels) [][]string {
	var out [][]string
	for _, a := range tasks {
		for _, b := range tasks {
			if slices.ContainsFunc(a, func(c string) bool { return labels[c].Labels.Has(Private) }) &&
				len(slices.DeleteFunc(slices.Clone(b), func(c string) bool { return !labels[c].Labels.Has(Egress) })) >= 2 {
				out = append(out, slices.Concat(a, b))
			}
		}
	}
	return out
}

// BenchmarkSee is the guard's cost of one call: a session's call of a
// tool, its session followed; p50-ns is the median of single calls.
func BenchmarkSee(b *testing.B) {
	labels := referenceLabels(b)
	tr := NewTracker("/home/p", 0)
	seq := []*ToolLabels{labels["filesystem/read_text_file"], labels["memory/search_nodes"], labels["everything/echo"], labels["everything/gzip-file-as-resource"]}
	args := json.RawMessage(`{"path":"/home/p/Documents/a.txt"}`)
	sessions := make([]string, 64)
	for i := range sessions {
		sessions[i] = fmt.Sprint("session-", i)
	}
	times := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		tr.See(Call{Session: sessions[i%len(sessions)], App: "Claude Code", Tool: seq[i%len(seq)], Args: args})
		times = append(times, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(times)
	if len(times) > 0 {
		b.ReportMetric(float64(times[len(times)/2].Nanoseconds()), "p50-ns")
	}
}
