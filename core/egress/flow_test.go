package egress

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// flows is an Options.Flow whose chain the test sets: "" while no call
// of a tainted session runs.
type flows struct {
	mu    sync.Mutex
	chain string
}

func (f *flows) set(chain string) {
	f.mu.Lock()
	f.chain = chain
	f.mu.Unlock()
}

func (f *flows) Flow(_, dest string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.chain == "" {
		return ""
	}
	return f.chain + " (to " + dest + ")."
}

// TestFlowAsksWithTheChain: while a call of a session that read private
// data and untrusted content runs on the server, its connection to a host
// not on its list is asked about with the chain, even when the person
// allowed that host once before without it; a host on its list passes
// unasked; a refusal said before stands; the answer given with the chain
// holds for that chain; and a refusal says the chain and the command.
func TestFlowAsksWithTheChain(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	a := newAsker()
	f := &flows{}
	l := &lists{hosts: map[string][]string{"store": {s.Dest("other.test.example")}}}
	p := startProxy(t, Options{Hosts: l.Hosts, Ask: a.Ask, Flow: f.Flow})
	proxyURL := p.Env("store")["HTTPS_PROXY"]
	api, listed, third := s.Dest("api.test.example"), s.Dest("other.test.example"), s.Dest("third.test.example")

	// Before the session read both: asked as ever, and allowed once.
	replied := connect(proxyURL, api)
	q := a.next(t)
	if q.Chain != "" || q.Message() != "Allow store to reach "+api+"?" {
		t.Errorf("the question before: %+v", q.Question)
	}
	q.answer <- AllowOnce
	if r := within(t, replied, "the first CONNECT"); r.status != http.StatusOK {
		t.Fatalf("allowed once: %+v", r)
	}
	// Denied, a host stays denied.
	replied = connect(proxyURL, third)
	a.next(t).answer <- Deny
	within(t, replied, "the denied CONNECT")

	f.set("Claude Code read ~/notes/tax.txt through files, then read https://example.com/issue/42 through fetch. It now wants to send data through store")
	chain := f.Flow("store", api)
	replied = connect(proxyURL, api)
	q = a.next(t)
	if q.Chain != chain || q.Message() != chain+" Allow store to reach "+api+"?" {
		t.Errorf("the question with the chain: %+v\n%s", q.Question, q.Message())
	}
	q.answer <- Deny
	r := within(t, replied, "the CONNECT denied with the chain")
	if r.status != http.StatusForbidden || !strings.Contains(r.body, chain) || !strings.Contains(r.body, "mcptray sandbox allow store --host "+api) {
		t.Errorf("denied with the chain: %+v", r)
	}
	// The same chain is not asked twice; the listed host and the host
	// denied before are not asked at all.
	if r := within(t, connect(proxyURL, api), "the second CONNECT"); r.status != http.StatusForbidden {
		t.Errorf("the second connection with the chain: %+v", r)
	}
	if r := within(t, connect(proxyURL, listed), "the listed CONNECT"); r.status != http.StatusOK {
		t.Errorf("a listed host with the chain: %+v", r)
	}
	if r := within(t, connect(proxyURL, third), "the CONNECT denied before"); r.status != http.StatusForbidden || !strings.Contains(r.body, "you denied it") {
		t.Errorf("a host denied before: %+v", r)
	}
	a.none(t)
	refused := p.Refusals("store")
	if last := refused[len(refused)-1]; last.Chain != f.Flow("store", third) || last.Reason != "you denied it" {
		t.Errorf("the last refusal: %+v", last)
	}

	// The call ended: the answer given before the chain holds again.
	f.set("")
	if r := within(t, connect(proxyURL, api), "the CONNECT after the call"); r.status != http.StatusOK {
		t.Errorf("after the call: %+v", r)
	}
	a.none(t)
}

// TestFlowBlocked: an Ask that says the guard blocks refuses at once, in
// its words.
func TestFlowBlocked(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	f := &flows{chain: "An app read your data through files, then read content from outside through fetch. It now wants to send data through store"}
	p := startProxy(t, Options{Flow: f.Flow, Ask: func(_ context.Context, q Question) (Reply, error) {
		if q.Chain == "" {
			t.Errorf("asked without the chain: %+v", q)
		}
		return Reply{Answer: Deny}, ErrGuardBlocks
	}})
	r := within(t, connect(p.Env("store")["HTTPS_PROXY"], s.Dest("api.test.example")), "the blocked CONNECT")
	if r.status != http.StatusForbidden || !strings.Contains(r.body, "mcptray guard ask") || !strings.Contains(r.body, f.chain) {
		t.Errorf("blocked: %+v", r)
	}
}
