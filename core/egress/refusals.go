package egress

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mcptray/mcptray/core/sanitize"
)

// DefaultMaxRefusals is how many refusals the proxy keeps per server.
const DefaultMaxRefusals = 50

// Refusal is a refused connection, or several in a row to the same
// destination for the same reason.
type Refusal struct {
	// Time is when the last of them was refused.
	Time   time.Time `json:"time"`
	Server string    `json:"server"`
	// Host and Port are where the server connected; Dest is the two as a
	// list writes them, what the command allows.
	Host string `json:"host"`
	Port int    `json:"port"`
	Dest string `json:"dest"`
	// Reason says why, in words that follow "mcptray did not let SERVER
	// reach DEST: " ("you denied it").
	Reason string `json:"reason"`
	// Chain says, when the connection came during a call for an app
	// session that had read the person's data and content someone else
	// wrote, how (Question.Chain); "" otherwise.
	Chain string `json:"chain,omitempty"`
	// Count is how many connections in a row this record stands for.
	Count int `json:"count"`
}

// Command is the command that allows the refused destination.
func (r Refusal) Command() string { return AllowCommand(r.Server, r.Dest) }

// Words are the refusal in a sentence, with the chain that made mcptray's
// guard ask when there is one, and the command that allows it.
func (r Refusal) Words() string {
	chain := ""
	if r.Chain != "" {
		chain = " " + sanitize.String(r.Chain)
	}
	return fmt.Sprintf("mcptray did not let %s reach %s: %s.%s To allow it: %s",
		sanitize.Line(r.Server), sanitize.Line(r.Dest), r.Reason, chain, r.Command())
}

// AllowCommand is the command that lets server reach dest.
func AllowCommand(server, dest string) string {
	return "mcptray sandbox allow " + quoteArg(sanitize.Line(server)) + " --host " + quoteArg(sanitize.Line(dest))
}

// quoteArg quotes an argument as a person would type it in a shell.
func quoteArg(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t'\"\\$`;&|<>()*?[]#~!{}") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// refusals keeps each server's latest refusals, oldest first.
type refusals struct {
	mu       sync.Mutex
	max      int
	byServer map[string][]Refusal
}

// add keeps r, folding it into the latest record when that is the same
// destination and reason; it reports whether r made a new record.
func (rs *refusals) add(r Refusal) bool {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	list := rs.byServer[r.Server]
	if n := len(list); n > 0 && list[n-1].Dest == r.Dest && list[n-1].Reason == r.Reason && list[n-1].Chain == r.Chain {
		list[n-1].Count++
		list[n-1].Time = r.Time
		return false
	}
	r.Count = 1
	list = append(list, r)
	if len(list) > rs.max {
		list = append(list[:0:0], list[len(list)-rs.max:]...)
	}
	rs.byServer[r.Server] = list
	return true
}

// Refusals are a server's latest refused connections, oldest first: at
// most Options.MaxRefusals, several in a row to the same destination for
// the same reason counted in one.
func (p *Proxy) Refusals(server string) []Refusal {
	p.refusals.mu.Lock()
	defer p.refusals.mu.Unlock()
	return append([]Refusal(nil), p.refusals.byServer[server]...)
}

// refuse answers a refused connection with 403 and its words, keeps its
// record, logs it with the command that allows it (not the chain, whose
// paths and addresses are the person's), and tells Options.OnRefusal.
func (p *Proxy) refuse(w http.ResponseWriter, server string, d dest, reason, chain string) {
	r := Refusal{Time: time.Now(), Server: server, Host: d.host, Port: d.port, Dest: d.key(), Reason: reason, Chain: chain}
	if p.refusals.add(r) {
		p.log.Info("refused a server's connection", "server", sanitize.Line(server), "host", r.Dest,
			"reason", reason, "guard", chain != "", "allow", r.Command())
	}
	if p.opts.OnRefusal != nil {
		p.opts.OnRefusal(r)
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Connection", "close")
	w.WriteHeader(http.StatusForbidden)
	fmt.Fprintln(w, r.Words())
}
