"""A small MCP server over stdio, without dependencies, for core/bundle's tests."""
import json
import sys

TOOLS = [{"name": "shout", "description": "Says the text back in capitals.",
          "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}}]


def answer(msg_id, result):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg_id, "result": result}) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    try:
        msg = json.loads(line)
    except ValueError:
        continue
    if "id" not in msg:
        continue
    method = msg.get("method")
    if method == "initialize":
        answer(msg["id"], {"protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {}},
                           "serverInfo": {"name": "bundle-python", "version": "0.2.0"}})
    elif method == "tools/list":
        answer(msg["id"], {"tools": TOOLS})
    elif method == "tools/call":
        text = msg["params"].get("arguments", {}).get("text", "")
        answer(msg["id"], {"content": [{"type": "text", "text": str(text).upper()}]})
    else:
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"],
                                     "error": {"code": -32601, "message": "no such method"}}) + "\n")
        sys.stdout.flush()
