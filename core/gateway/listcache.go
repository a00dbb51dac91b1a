package gateway

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// tools/list from the encoded list: mcp-go builds its answer to every
// tools/list anew — sorting the tools and encoding each one's schema — which
// with 100 servers of 100 tools takes hundreds of milliseconds a request.
// The gateway's tools change only on Sync, so it encodes the answer there,
// once, and answers the plain tools/list of a live session with those bytes.
// Anything else (a cursor, another method, a modern stateless request) is
// the MCP server's to answer, as before.

// maxListRequest is the largest body checked for a plain tools/list; such a
// request is a few dozen bytes, and a bigger body is a call or a batch.
const maxListRequest = 4 << 10

// encodedList is the answer to tools/list, encoded, and how many tools it
// holds.
type encodedList struct {
	body  []byte
	tools int
}

// encodeList encodes what mcp-go would answer to tools/list with list.
func encodeList(list []server.ServerTool) (*encodedList, error) {
	res := mcp.ListToolsResult{Tools: make([]mcp.Tool, len(list))}
	for i, st := range list {
		res.Tools[i] = st.Tool
	}
	slices.SortFunc(res.Tools, func(a, b mcp.Tool) int { return strings.Compare(a.Name, b.Name) })
	body, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	return &encodedList{body: body, tools: len(res.Tools)}, nil
}

// listRequest is what a plain tools/list request holds.
type listRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  *struct {
		Cursor string          `json:"cursor"`
		Meta   json.RawMessage `json:"_meta"`
	} `json:"params"`
}

// listAnswer is the answer to body, one message of session, from encoded,
// when body is a plain tools/list; the answer ends in a newline.
func (g *Gateway) listAnswer(session string, body []byte, encoded *encodedList) ([]byte, bool) {
	if encoded == nil || len(body) > maxListRequest || !bytes.Contains(body, []byte(`"tools/list"`)) {
		return nil, false
	}
	var req listRequest
	if json.Unmarshal(body, &req) != nil || req.JSONRPC != "2.0" || req.Method != string(mcp.MethodToolsList) ||
		len(req.ID) == 0 || string(req.ID) == "null" || (req.Params != nil && (req.Params.Cursor != "" || len(req.Params.Meta) > 0)) {
		return nil, false
	}
	out := make([]byte, 0, len(encoded.body)+64)
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, req.ID...)
	out = append(out, `,"result":`...)
	out = append(out, encoded.body...)
	out = append(out, "}\n"...)
	// What mcp-go's hooks would have seen: the session was active and was
	// given these tools.
	g.apps.gaveTools(session, encoded.tools, false)
	return out, true
}
