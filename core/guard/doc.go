// Package guard breaks the "lethal trifecta" at mcptray's gateway: an AI
// app that, in one session, reads the person's private data with one tool,
// reads content someone else wrote with another (a web page whose text
// orders it to send that data away), and then calls a tool that can send
// data out. Each call is harmless on its own; the guard follows the
// sessions and holds the third.
//
// Each tool carries up to three labels (label.go): private (it reads the
// person's data), untrusted (it brings in what others wrote) and egress
// (it can send data out), each with its reason in words. They are derived
// (derive.go) from what mcptray knows for a fact: what the server's
// sandbox lets it read and reach, whether it is a remote service; and from
// what the server claims (its tools' annotations and names), which only
// ever add a label and never take one away. The person corrects a tool's
// labels (config.GuardRules.Labels); that is the one way to remove one.
//
// A Tracker (session.go) keeps, for each app session (or, for an app on
// MCP's sessionless revision, its client name within a time window),
// which labels its calls have touched and the first call that touched
// each. Once a session has touched private and untrusted, its call of an
// egress tool is held: the gateway asks the person with the chain in words
// (chain.go), "Claude Code read ~/notes/tax.txt through files, then read
// https://example.com/issue/42 through fetch. It now wants to send data
// through slack (to hooks.slack.com).", or refuses it in block mode. A
// session that lacks one of the three is never held. Any other call of a
// session that has touched both is tainted (Verdict.Tainted): while it
// runs, the sandbox's proxy asks with the same chain about its server's
// first connection to a host not on its list, so that a tool whose
// labels miss what it does still cannot send data out unasked.
//
// The guard must never keep a call's arguments beyond the few words of
// its chain (a path, an address), never let a server's claim remove a
// label, and never block: it runs on every call's path, and a call costs
// it a map lookup and a lock.
package guard
