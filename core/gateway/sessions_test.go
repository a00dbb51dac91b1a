package gateway

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// TestSessionsRecordApps: an app on the HTTP face is recorded with its
// clientInfo, the face, the app it is and the tools it was given.
func TestSessionsRecordApps(t *testing.T) {
	t.Parallel()
	r := newRig(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	c, err := client.NewStreamableHttpClient(r.face.Status().URL,
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + r.token}))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = legacy
	req.Params.ClientInfo = mcp.Implementation{Name: "Visual Studio Code", Version: "1.107.0"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatal(err)
	}
	list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	got := r.gw.Sessions()
	if len(got) != 1 {
		t.Fatalf("sessions: %+v", got)
	}
	s := got[0]
	if s.Client != "Visual Studio Code" || s.ClientVersion != "1.107.0" || s.App != "VS Code" || s.Face != FaceHTTP ||
		!s.Listed || s.Tools != len(list.Tools) || s.ToolLimit != 128 || s.ToolWarning != "" || s.Ended || s.Started.IsZero() {
		t.Errorf("the session: %+v (the app was given %d tools)", s, len(list.Tools))
	}
	// (mcp-go's client sends its closing DELETE without the token, so the
	// HTTP face refuses it; core/control's TestAppArrives sees a session
	// end through the control endpoint.)
	c.Close()
}
