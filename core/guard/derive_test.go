package guard

import (
	"strings"
	"testing"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/sandbox"
	"github.com/mcptray/mcptray/core/tools"
)

func TestDerive(t *testing.T) {
	t.Parallel()
	folder := sandbox.Grant{Kind: "folder", What: "~/Documents"}
	registry := sandbox.Grant{Kind: "host", What: "registry.npmjs.org"}
	hooks := sandbox.Grant{Kind: "host", What: "hooks.slack.com", Setting: "hooks.slack.com", Deny: "--host hooks.slack.com"}
	asked := sandbox.Grant{Kind: "host", What: "api.github.com", AskedBy: "/p/.mcp.json"}
	ro := tools.Hints{ReadOnly: tools.HintTrue, OpenWorld: tools.HintFalse}
	for _, c := range []struct {
		name   string
		sv     Server
		tool   tools.Tool
		want   Labels
		reason string // one of the reasons, in part
	}{
		{"a folder it names is private", Server{Name: "files", Grants: []sandbox.Grant{folder, registry}}, tools.Tool{Name: "read_text_file", Hints: ro},
			Labels(Private), "reads private data: it may read ~/Documents"},
		{"its package registry alone is nothing", Server{Name: "memory", Grants: []sandbox.Grant{registry}}, tools.Tool{Name: "read_graph", Hints: ro}, 0, ""},
		{"a host the person allowed", Server{Name: "slack", Grants: []sandbox.Grant{hooks}}, tools.Tool{Name: "chat"},
			Labels(Untrusted | Egress), "can send data out: it may reach hooks.slack.com"},
		{"a host its entry asks for", Server{Name: "gh", Grants: []sandbox.Grant{asked}}, tools.Tool{Name: "get_issue"},
			Labels(Untrusted | Egress), "it may reach api.github.com"},
		{"a key and a host", Server{Name: "github", Account: "it holds your key GITHUB_TOKEN", Grants: []sandbox.Grant{asked, registry}}, tools.Tool{Name: "get_file_contents"},
			Labels(Private | Untrusted | Egress), "reads private data: it holds your key GITHUB_TOKEN and may reach api.github.com"},
		{"a key and only its registry", Server{Name: "k", Account: "it holds your key K", Grants: []sandbox.Grant{registry}}, tools.Tool{Name: "get"}, 0, ""},
		{"a port", Server{Name: "db", Grants: []sandbox.Grant{{Kind: "port", What: "5432", Setting: "5432"}}}, tools.Tool{Name: "query"},
			Labels(Untrusted | Egress), "port 5432"},
		{"sockets", Server{Name: "d", Grants: []sandbox.Grant{{Kind: "sockets"}}}, tools.Tool{Name: "run"}, Labels(Private | Egress), "sockets"},
		{"a remote signed in, a tool that writes", Server{Name: "notion", Remote: true, Host: "mcp.notion.com", Account: "it is signed in to your account at mcp.notion.com"},
			tools.Tool{Name: "update_page"}, Labels(Private | Untrusted | Egress), "remote service at mcp.notion.com"},
		{"a remote signed in, a tool that only reads", Server{Name: "notion", Remote: true, Host: "mcp.notion.com", Account: "it is signed in to your account at mcp.notion.com"},
			tools.Tool{Name: "get_page", Hints: ro}, Labels(Private | Untrusted), "signed in"},
		{"a public remote", Server{Name: "docs", Remote: true, Host: "docs.example.com"}, tools.Tool{Name: "get_docs"}, Labels(Untrusted), "remote"},
		{"openWorldHint adds", Server{Name: "e"}, tools.Tool{Name: "gzip", Hints: tools.Hints{OpenWorld: tools.HintTrue}}, Labels(Untrusted | Egress), "openWorldHint"},
		{"a claim to only read removes nothing", Server{Name: "files", Grants: []sandbox.Grant{folder, hooks}}, tools.Tool{Name: "list", Hints: ro}, Labels(Private | Untrusted | Egress), ""},
		{"fetch by name", Server{Name: "web"}, tools.Tool{Name: "fetch"}, Labels(Untrusted), "its name says it does (fetch)"},
		{"browser_navigate by name", Server{Name: "pw"}, tools.Tool{Name: "browser_navigate"}, Labels(Untrusted), "browser"},
		{"search alone is the web's", Server{Name: "brave"}, tools.Tool{Name: "search"}, Labels(Untrusted), "(search)"},
		{"search_files is not", Server{Name: "files"}, tools.Tool{Name: "search_files"}, 0, ""},
		{"send by name", Server{Name: "slack"}, tools.Tool{Name: "send_message"}, Labels(Egress), "(send)"},
		{"postComment by name", Server{Name: "gh"}, tools.Tool{Name: "postComment"}, Labels(Egress), "(post)"},
		{"reading mail by name", Server{Name: "gmail"}, tools.Tool{Name: "list_emails"}, Labels(Private), "(emails)"},
		{"no sandbox says so", Server{Name: "x", Unconfined: "it runs without a sandbox"}, tools.Tool{Name: "echo"}, 0, "without a sandbox"},
	} {
		got := Derive(c.sv, c.tool)
		if got.Labels != c.want {
			t.Errorf("%s: labels %s, want %s (%q)", c.name, got.Labels, c.want, got.Words())
		}
		if c.reason != "" && !strings.Contains(got.Words(), c.reason) {
			t.Errorf("%s: reasons %q do not say %q", c.name, got.Words(), c.reason)
		}
	}
}

func TestCorrect(t *testing.T) {
	t.Parallel()
	yes, no := true, false
	tl := Derive(Server{Name: "slack", Grants: []sandbox.Grant{{Kind: "host", What: "hooks.slack.com", Setting: "hooks.slack.com"}}}, tools.Tool{Name: "chat"})
	got := tl.Correct(config.LabelChange{Egress: &no, Private: &yes})
	if got.Labels != Labels(Private|Untrusted) {
		t.Fatalf("corrected labels %s, want private, untrusted", got.Labels)
	}
	words := got.Words()
	for _, w := range []string{"reads private data: you said so", "not egress: you said so", "it may reach hooks.slack.com"} {
		if !strings.Contains(words, w) {
			t.Errorf("reasons %q do not say %q", words, w)
		}
	}
	if strings.Contains(words, "can send data out") {
		t.Errorf("reasons %q still say it sends", words)
	}
	if tl.Labels != Labels(Untrusted|Egress) || len(tl.Reasons) != 2 {
		t.Errorf("correcting changed the labels it was given: %s %v", tl.Labels, tl.Reasons)
	}
}

func TestWords(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"read_text_file": "read text file", "fetchURL": "fetch url", "browser.navigate": "browser navigate",
		"get-tiny-image": "get tiny image", "postComment": "post comment",
	} {
		if got := strings.Join(words(name), " "); got != want {
			t.Errorf("words(%q) = %q, want %q", name, got, want)
		}
	}
}
