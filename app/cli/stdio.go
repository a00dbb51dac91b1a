package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mcptray/mcptray/core/control"
)

// startWait bounds how long mcptray stdio waits for an mcptray it started
// to answer.
const startWait = 20 * time.Second

// runStdio is mcptray stdio: an MCP server on stdin and stdout that an app
// starts as a command. It passes every message to the running mcptray's
// gateway over the control socket (the socket's owner check is the
// authentication, so no token lands in the app's config), and starts
// mcptray without a window when none runs.
func runStdio(ctx context.Context, c *cmdContext, args []string) error {
	if len(args) > 0 {
		return usagef("stdio takes no arguments")
	}
	cl, err := c.reachRunning(ctx)
	if err != nil {
		return err
	}
	defer cl.Close()
	b := &bridge{hc: cl.HTTPClient(), out: c.Stdout, log: c.logger()}
	return b.run(ctx, c.Stdin)
}

// reachRunning connects to the running mcptray, starting mcptray serve in
// the background when none runs.
func (c *cmdContext) reachRunning(ctx context.Context) (*control.Client, error) {
	cl, err := control.Dial(ctx, c.paths)
	if !errors.Is(err, control.ErrNotRunning) {
		return cl, err
	}
	exited, logPath, err := c.startServe()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, startWait)
	defer cancel()
	// There is no event for "the socket is there": look again briefly,
	// until the deadline or the started mcptray's end.
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		cl, err := control.Dial(ctx, c.paths)
		if !errors.Is(err, control.ErrNotRunning) {
			return cl, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("the mcptray started for this app did not answer within %s; its log is %s", startWait, logPath)
		case <-exited:
			// Another mcptray may have won the race to start: that is
			// as good.
			if cl, err := control.Dial(ctx, c.paths); err == nil {
				return cl, nil
			}
			return nil, fmt.Errorf("the mcptray started for this app stopped at once; its log is %s", logPath)
		case <-tick.C:
		}
	}
}

// startServe starts mcptray serve in a session of its own, so that it
// outlives this app's connection, with its output in a log file.
func (c *cmdContext) startServe() (exited <-chan struct{}, logPath string, err error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, "", fmt.Errorf("finding mcptray's own program to start it: %w", err)
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return nil, "", fmt.Errorf("finding a folder for mcptray's log: %w", err)
	}
	dir = filepath.Join(dir, "mcptray")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, "", fmt.Errorf("creating %s: %w", dir, err)
	}
	logPath = filepath.Join(dir, "serve.log")
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, "", fmt.Errorf("opening mcptray's log: %w", err)
	}
	defer f.Close()
	fmt.Fprintf(f, "--- %s: started by mcptray stdio\n", time.Now().Format(time.RFC3339))
	cmd := exec.Command(exe, "serve")
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = detached()
	if err := cmd.Start(); err != nil {
		return nil, "", fmt.Errorf("starting mcptray: %w", err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	return done, logPath, nil
}

// bridge passes JSON-RPC lines between an app's stdin and stdout and the
// gateway's streamable HTTP endpoint.
type bridge struct {
	hc  *http.Client
	log *slog.Logger

	outMu sync.Mutex
	out   io.Writer

	mu        sync.Mutex
	session   string // Mcp-Session-Id, once initialize answered
	version   string // the negotiated protocol version
	listening bool
}

// maxLine bounds one message from the app.
const maxLine = 32 << 20

// run bridges until stdin ends, or the running mcptray goes away.
func (b *bridge) run(ctx context.Context, in io.Reader) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	lost := make(chan error, 1)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
		b.endSession()
	}()
	lines := make(chan []byte)
	readErr := make(chan error, 1)
	go func() {
		r := bufio.NewReaderSize(in, 64<<10)
		for {
			line, err := r.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				if len(line) > maxLine {
					readErr <- fmt.Errorf("a message from the app is larger than %d MiB", maxLine>>20)
					return
				}
				select {
				case lines <- bytes.TrimSpace(line):
				case <-ctx.Done():
					return
				}
			}
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = nil
				}
				readErr <- err
				return
			}
		}
	}()
	for {
		var line []byte
		select {
		case err := <-readErr:
			return err // the app closed stdin: it is done with us
		case err := <-lost:
			return err
		case <-ctx.Done():
			return nil
		case line = <-lines:
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if err := json.Unmarshal(line, &m); err != nil {
			b.write([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: not a JSON-RPC message"}}`))
			continue
		}
		isRequest := m.Method != "" && len(m.ID) > 0 && string(m.ID) != "null"
		switch {
		case m.Method == "initialize":
			// Everything after initialize needs its session id.
			b.post(ctx, line, m.ID, true)
			b.startListening(ctx, &wg, lost)
		case isRequest:
			// Requests run side by side: a slow tool does not hold up
			// the next call, or the cancellation of this one.
			wg.Add(1)
			go func() {
				defer wg.Done()
				b.post(ctx, line, m.ID, false)
			}()
		default:
			// Notifications and answers to the server's requests go in
			// order.
			b.post(ctx, line, nil, false)
		}
	}
}

// write sends one message to the app.
func (b *bridge) write(msg []byte) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, msg); err != nil {
		return // not JSON: nothing an app could read
	}
	buf.WriteByte('\n')
	b.outMu.Lock()
	defer b.outMu.Unlock()
	_, _ = b.out.Write(buf.Bytes())
}

// fail answers the app's request id with a JSON-RPC error.
func (b *bridge) fail(id json.RawMessage, msg string) {
	if len(id) == 0 {
		return
	}
	e, _ := json.Marshal(msg)
	b.write([]byte(`{"jsonrpc":"2.0","id":` + string(id) + `,"error":{"code":-32603,"message":` + string(e) + `}}`))
}

func (b *bridge) headers(h http.Header) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.session != "" {
		h.Set("Mcp-Session-Id", b.session)
	}
	if b.version != "" {
		h.Set("Mcp-Protocol-Version", b.version)
	}
}

// post sends one message and passes every message of the answer to the app.
func (b *bridge) post(ctx context.Context, msg []byte, id json.RawMessage, initialize bool) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, control.MCPURL, bytes.NewReader(msg))
	if err != nil {
		b.fail(id, err.Error())
		return
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	b.headers(req.Header)
	resp, err := b.hc.Do(req)
	if err != nil {
		if ctx.Err() == nil {
			b.fail(id, "mcptray did not answer: "+err.Error())
		}
		return
	}
	defer resp.Body.Close()
	if initialize {
		b.mu.Lock()
		b.session = resp.Header.Get("Mcp-Session-Id")
		b.mu.Unlock()
	}
	switch {
	case resp.StatusCode == http.StatusAccepted:
		return
	case resp.StatusCode == http.StatusNotFound:
		b.fail(id, "mcptray has restarted and forgot this connection; restart the app's connection to mcptray")
		return
	case resp.StatusCode != http.StatusOK:
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		if !bytes.Contains(body, []byte(`"jsonrpc"`)) {
			b.fail(id, fmt.Sprintf("mcptray answered %s: %s", resp.Status, strings.TrimSpace(string(body))))
			return
		}
		b.write(body)
		return
	}
	each := func(m []byte) {
		if initialize {
			b.noteVersion(m)
		}
		b.write(m)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		if err := readSSE(resp.Body, each); err != nil && ctx.Err() == nil {
			b.fail(id, "the answer from mcptray broke off: "+err.Error())
		}
		return
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxLine))
	if err != nil {
		b.fail(id, "reading mcptray's answer: "+err.Error())
		return
	}
	each(body)
}

// noteVersion keeps the protocol version initialize settled on, for the
// header every later request carries.
func (b *bridge) noteVersion(msg []byte) {
	var r struct {
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	if json.Unmarshal(msg, &r) == nil && r.Result.ProtocolVersion != "" {
		b.mu.Lock()
		b.version = r.Result.ProtocolVersion
		b.mu.Unlock()
	}
}

// startListening opens the stream on which the gateway sends what the app
// did not ask for (tools/list_changed, requests to the app), once there is
// a session.
func (b *bridge) startListening(ctx context.Context, wg *sync.WaitGroup, lost chan<- error) {
	b.mu.Lock()
	if b.session == "" || b.listening {
		b.mu.Unlock()
		return
	}
	b.listening = true
	b.mu.Unlock()
	wg.Add(1)
	go func() {
		defer wg.Done()
		err := b.listen(ctx)
		if ctx.Err() != nil {
			return
		}
		b.log.Debug("stdio: the listening stream ended", "err", err)
		select {
		case lost <- errors.New("the running mcptray stopped"):
		default:
		}
	}()
}

func (b *bridge) listen(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, control.MCPURL, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "text/event-stream")
	b.headers(req.Header)
	resp, err := b.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("mcptray answered %s", resp.Status)
	}
	return readSSE(resp.Body, b.write)
}

// endSession tells the gateway that the app is gone.
func (b *bridge) endSession() {
	b.mu.Lock()
	session := b.session
	b.mu.Unlock()
	if session == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, control.MCPURL, nil)
	if err != nil {
		return
	}
	b.headers(req.Header)
	if resp, err := b.hc.Do(req); err == nil {
		resp.Body.Close()
	}
}

// readSSE calls fn with the data of each server-sent event until r ends.
func readSSE(r io.Reader, fn func([]byte)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	var data []byte
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case len(line) == 0:
			if len(data) > 0 {
				fn(data)
				data = nil
			}
		case bytes.HasPrefix(line, []byte("data:")):
			d := bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, d...)
		}
	}
	if len(data) > 0 {
		fn(data)
	}
	return sc.Err()
}
