// An app's side of mcptray's gateway: the official TypeScript SDK's client
// starts the command it is given (an app's `mcptray stdio`) over stdio, as
// the apps built on it do, and initializes, lists the tools and calls one.
//
//   node stdio-client.mjs TOOL JSON -- COMMAND ARGS…
//
// It prints one line a step ("initialize: mcptray …", "tools/list: N tools,
// TOOL among them", "tools/call: TEXT") and exits 1 at the first that fails.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const sep = process.argv.indexOf('--');
if (sep !== 4 || process.argv.length < 6) {
  console.error('usage: node stdio-client.mjs TOOL JSON -- COMMAND ARGS…');
  process.exit(2);
}
const [tool, json] = process.argv.slice(2, 4);
const [command, ...args] = process.argv.slice(sep + 1);

const transport = new StdioClientTransport({ command, args, env: process.env, stderr: 'inherit' });
const client = new Client({ name: 'mcptray-stdio-client', version: '1.0.0' });
try {
  await client.connect(transport);
  const info = client.getServerVersion();
  console.log(`initialize: ${info.name} ${info.version}`);
  const { tools } = await client.listTools();
  if (!tools.some((t) => t.name === tool)) {
    throw new Error(`tools/list has no ${tool}: ${tools.map((t) => t.name).join(', ')}`);
  }
  console.log(`tools/list: ${tools.length} tools, ${tool} among them`);
  const res = await client.callTool({ name: tool, arguments: JSON.parse(json) });
  if (res.isError) {
    throw new Error(`tools/call failed: ${JSON.stringify(res.content)}`);
  }
  console.log(`tools/call: ${res.content.map((c) => c.text ?? '').join(' ')}`);
  await client.close();
} catch (err) {
  console.error(`stdio-client: ${err.message}`);
  await client.close().catch(() => {});
  process.exit(1);
}
