//go:build linux

package e2e

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// benchProfiler profiles mcptray serve in BenchmarkGatewayCall when
// MCPTRAY_BENCH_PROFILE names a folder: mcptray is built with -tags pprof
// (see its pprof.go), and each face's calls leave a CPU profile of serve
// in that folder, gateway-stdio.pprof and gateway-http.pprof, the binary
// they were taken of named "mcptray" in them. Read them with go tool pprof
// -top. It is nil without MCPTRAY_BENCH_PROFILE.
//
//	MCPTRAY_BENCH_PROFILE=$PWD/bench/profiles go test -run '^$' -bench 'GatewayCall/via=(stdio|http)-face$' -benchtime 20000x ./test/e2e
type profiler struct {
	binary string // mcptray, built with -tags pprof
	sock   string // where serve takes /start and /stop
	dir    string
	hc     *http.Client
}

func benchProfiler(b *testing.B, run string) *profiler {
	dir := os.Getenv("MCPTRAY_BENCH_PROFILE")
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	tags := "pprof"
	if out, err := exec.Command("go", "env", "CGO_ENABLED").Output(); err == nil && strings.TrimSpace(string(out)) == "0" {
		tags += ",ci"
	}
	Binary(b) // and the sandbox's launcher beside it
	// -trimpath: the profiles name the source files by their module's
	// paths, not by where this checkout is.
	p := &profiler{binary: Build(b, "mcptray-pprof", Module, "-trimpath", "-tags", tags), sock: filepath.Join(run, "pprof.sock"), dir: dir}
	p.hc = &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", p.sock)
	}}}
	return p
}

// around starts a CPU profile of serve and returns what stops it and
// writes it to name.pprof; on a nil profiler both do nothing.
func (p *profiler) around(b *testing.B, name string) func() {
	if p == nil {
		return func() {}
	}
	p.post(b, "start")
	return func() {
		prof, err := renameBinary(p.post(b, "stop"), p.binary, "mcptray")
		if err == nil {
			err = os.WriteFile(filepath.Join(p.dir, name+".pprof"), prof, 0o644)
		}
		if err != nil {
			b.Fatalf("writing mcptray serve's profile: %v", err)
		}
	}
}

func (p *profiler) post(b *testing.B, what string) []byte {
	resp, err := p.hc.Post("http://mcptray/"+what, "", nil)
	if err != nil {
		b.Fatalf("profiling mcptray serve (%s): %v", what, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		b.Fatalf("profiling mcptray serve (%s): %v %s", what, err, out)
	}
	return out
}

// renameBinary is the CPU profile prof (gzipped protobuf, pprof's format)
// with the strings that are exactly from, the path of the program it was
// taken of, made to, so that the profile names no folder of this machine.
// Strings are field 6 of the profile's message; the rest passes as it is.
func renameBinary(prof []byte, from, to string) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(prof))
	if err != nil {
		return nil, err
	}
	msg, err := io.ReadAll(zr)
	if err != nil {
		return nil, err
	}
	var out []byte
	for len(msg) > 0 {
		key, n := binary.Uvarint(msg)
		if n <= 0 {
			return nil, errors.New("not a profile")
		}
		var field []byte
		rest := msg[n:]
		switch key & 7 {
		case 0: // varint
			_, m := binary.Uvarint(rest)
			if m <= 0 {
				return nil, errors.New("not a profile")
			}
			field, rest = msg[:n+m], rest[m:]
		case 2: // bytes
			size, m := binary.Uvarint(rest)
			if m <= 0 || uint64(len(rest)-m) < size {
				return nil, errors.New("not a profile")
			}
			value := rest[m : m+int(size)]
			field, rest = msg[:n+m+int(size)], rest[m+int(size):]
			if key>>3 == 6 && string(value) == from {
				field = binary.AppendUvarint(append([]byte(nil), msg[:n]...), uint64(len(to)))
				field = append(field, to...)
			}
		default:
			return nil, errors.New("a profile holds varints and bytes only")
		}
		out = append(out, field...)
		msg = rest
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(out); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
