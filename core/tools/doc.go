// Package tools turns the tools an MCP server lists into what an agent sees
// through the gateway: a qualified name that every agent accepts, a
// description of bounded size, and the server's annotation hints read with
// MCP's defaults.
//
// Everything here is a pure function of what a server sent. Server text is
// untrusted: descriptions and titles are sanitised before anyone reads them,
// and annotation hints may only add caution. This package must never let a
// hint lower a protection the person set, never validate or rewrite a
// tool's input schema (that passes through unchanged, elsewhere), and never
// do I/O.
package tools
