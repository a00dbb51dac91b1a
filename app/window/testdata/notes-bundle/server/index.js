// A small MCP server over stdio, without dependencies: a copy of
// core/bundle/testdata/node/server/index.js, so that the window's bundle
// dialog installs a bundle that runs.
const fs = require("fs");
const readline = require("readline");

const tools = [
  { name: "echo", description: "Says back the text it is given.", annotations: { readOnlyHint: true },
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } },
  { name: "read_file", description: "Reads a text file.", annotations: { readOnlyHint: true },
    inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } },
  { name: "write_file", description: "Writes a text file.",
    inputSchema: { type: "object", properties: { path: { type: "string" }, text: { type: "string" } }, required: ["path", "text"] } },
];

function answer(id, result) {
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id, result }) + "\n");
}

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  let msg;
  try { msg = JSON.parse(line); } catch { return; }
  if (msg.id === undefined) return;
  switch (msg.method) {
    case "initialize":
      answer(msg.id, { protocolVersion: msg.params.protocolVersion, capabilities: { tools: {} },
        serverInfo: { name: "bundle-node", version: "1.0.0" },
        instructions: "folder=" + (process.argv[2] || "") + " greeting=" + (process.env.GREETING || "") });
      break;
    case "tools/list":
      answer(msg.id, { tools });
      break;
    case "tools/call": {
      const a = msg.params.arguments || {};
      if (msg.params.name === "echo") {
        answer(msg.id, { content: [{ type: "text", text: String(a.text) }] });
      } else if (msg.params.name === "write_file") {
        try {
          fs.writeFileSync(a.path, String(a.text));
          answer(msg.id, { content: [{ type: "text", text: "written" }] });
        } catch (e) {
          answer(msg.id, { isError: true, content: [{ type: "text", text: e.code || String(e) }] });
        }
      } else {
        try {
          answer(msg.id, { content: [{ type: "text", text: fs.readFileSync(a.path, "utf8") }] });
        } catch (e) {
          answer(msg.id, { isError: true, content: [{ type: "text", text: e.code || String(e) }] });
        }
      }
      break;
    }
    default:
      process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "no such method" } }) + "\n");
  }
});
