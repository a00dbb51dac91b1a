package npmtest

import (
	"fmt"
	"strings"
)

// echoTools is echo-mcp's tools/list answer as Server writes it.
const echoTools = `tools: [{ name: "echo", description: "Says back what it is given.", inputSchema: { type: "object", properties: { text: { type: "string" } } } }]`

// ServerTools is echo-mcp at version (a clean one, as Server's "1.0.0")
// listing tools, a JavaScript array, instead of its one tool, and running
// start, JavaScript, when it starts: an update whose tools' words change,
// or one that tries something at its start.
func ServerTools(version, tools, start string) map[string]string {
	files := Server(version)
	js := files["index.js"]
	if !strings.Contains(js, echoTools) {
		panic("npmtest: echo-mcp's tools are no longer where ServerTools looks")
	}
	js = strings.Replace(js, echoTools, "tools: "+tools, 1)
	js = strings.Replace(js, "const rl = readline", start+"\nconst rl = readline", 1)
	files["index.js"] = js
	return files
}

// EchoTool is echo-mcp's echo tool with description (JavaScript string
// escapes are read as such), as a JavaScript object for ServerTools.
func EchoTool(description string) string {
	return fmt.Sprintf(`{ name: "echo", description: "%s", inputSchema: { type: "object", properties: { text: { type: "string" } } } }`, description)
}

// Tagged is s spelled in Unicode tag characters, as JavaScript escapes:
// text a person does not see and a model reads.
func Tagged(s string) string {
	var b strings.Builder
	for _, r := range s {
		fmt.Fprintf(&b, `\u{%X}`, 0xE0000+r)
	}
	return b.String()
}

// ProxyGet is JavaScript that asks the egress proxy the server was given
// (HTTP_PROXY) for url, as a program that reads its proxy from the
// environment does; node 20's http does not read it by itself.
func ProxyGet(url string) string {
	return fmt.Sprintf(`try {
  const p = new URL(process.env.HTTP_PROXY || "");
  const auth = Buffer.from(decodeURIComponent(p.username) + ":" + decodeURIComponent(p.password)).toString("base64");
  require("http").request({ host: p.hostname, port: p.port, path: %q, headers: { "Proxy-Authorization": "Basic " + auth } }).on("error", () => {}).end();
} catch {}`, url)
}
