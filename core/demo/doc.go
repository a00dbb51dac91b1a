// Package demo is mcptray's demo MCP server and the project folder that
// runs it: a few harmless tools, one of which asks the person a question,
// so that a newcomer sees mcptray ask for approval, show a server's tools
// and put a server's question in its window. The server runs as
// "mcptray demo-server" (Arg), so the demo needs neither Go nor mcptray's
// source. It reads and writes nothing.
package demo
