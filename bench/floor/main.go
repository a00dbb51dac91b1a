// Command floor is the least a Go proxy can add in front of a stdio MCP
// server, for BenchmarkGatewayCall's reference rows: it does nothing but
// pass messages on. With -http it is a bare net/http server on 127.0.0.1
// that writes each POST's body to the server as one line and answers with
// the server's next line (one request at a time); without, it copies
// lines from its stdin to the server and back. It prints the URL it serves
// on its stdout in -http mode. With -fasthttp it is the same server on
// fasthttp instead of net/http. It is a benchmark's yardstick, not a
// gateway: no sessions, no checks, no concurrency.
//
//	floor [-http|-fasthttp] COMMAND [ARG...]
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sync"

	"github.com/valyala/fasthttp"
)

func main() {
	useHTTP := flag.Bool("http", false, "serve HTTP on 127.0.0.1 instead of copying stdin and stdout")
	useFast := flag.Bool("fasthttp", false, "serve HTTP with fasthttp instead of net/http")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: floor [-http|-fasthttp] COMMAND [ARG...]")
		os.Exit(2)
	}
	srv := exec.Command(flag.Arg(0), flag.Args()[1:]...)
	srv.Stderr = os.Stderr
	in, err := srv.StdinPipe()
	if err != nil {
		fail(err)
	}
	out, err := srv.StdoutPipe()
	if err != nil {
		fail(err)
	}
	if err := srv.Start(); err != nil {
		fail(err)
	}
	defer srv.Process.Kill()
	if *useFast {
		*useHTTP = true
	}
	if !*useHTTP {
		go io.Copy(os.Stdout, out)
		io.Copy(in, os.Stdin)
		return
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail(err)
	}
	fmt.Printf("http://%s/mcp\n", l.Addr())
	server := &lines{in: in, replies: bufio.NewReader(out)}
	if *useFast {
		fail(fasthttp.Serve(l, func(ctx *fasthttp.RequestCtx) {
			line, err := server.pass(ctx.PostBody())
			switch {
			case err != nil:
				ctx.Error(err.Error(), http.StatusBadGateway)
				return
			case line == nil:
				ctx.SetStatusCode(http.StatusAccepted)
			default:
				ctx.SetContentType("application/json")
				ctx.Write(line)
			}
			ctx.Response.Header.Set("Mcp-Session-Id", "floor")
		}))
	}
	fail(http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		line, err := server.pass(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		w.Header().Set("Mcp-Session-Id", "floor")
		if line == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(line)
	})))
}

// lines is the server, one message a line, one at a time.
type lines struct {
	mu      sync.Mutex
	in      io.Writer
	replies *bufio.Reader
}

// pass writes body to the server as one line and returns the server's next
// line; nil for a notification, which gets no answer.
func (s *lines) pass(body []byte) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.in.Write(append(bytes.TrimSpace(body), '\n')); err != nil {
		return nil, err
	}
	if !bytes.Contains(body, []byte(`"id"`)) {
		return nil, nil
	}
	return s.replies.ReadBytes('\n')
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "floor:", err)
	os.Exit(1)
}
