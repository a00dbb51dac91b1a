// Package config knows which MCP servers exist on this computer, where each
// one came from, and whether the person approved it.
//
// It gathers server configs from seven scopes (see Scope), parses the two file
// formats in use (the "mcpServers" object of Claude Desktop, Claude Code,
// Cursor and .mcp.json, and VS Code's JSON-with-comments "servers"), expands
// ${VAR} references, applies the organisation's allow and deny lists, and
// merges everything into one Set in which each server appears once, keyed by
// what it runs (its Signature) rather than by its name.
//
// Approval is bound to content: a local or project server is approved for
// exactly what it runs (ApprovalKey), so an edit to its .mcp.json asks the
// person again.
//
// A malformed file never takes the others down: it becomes a Problem with
// path, line and column. Every write is atomic and keeps one backup.
//
// config never starts a server, opens a network connection or logs a secret:
// environment values and header values are read, hashed and passed on, never
// printed.
package config
