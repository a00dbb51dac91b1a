// Package transport is how mcptray reaches one MCP server: a child process over stdio, streamable HTTP or SSE, a WebSocket, or a server in this process. It knows nothing of configs, states or front ends.
package transport
