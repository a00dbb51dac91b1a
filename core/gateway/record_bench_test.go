package gateway

import (
	"bufio"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/keychain"
	"github.com/zalando/go-keyring"
)

// BenchmarkRecordCall measures what the activity record adds to a call:
// the same tools/call of the test server's echo on the stdio face's
// stream, through a gateway with no recorder (record=off) and through one
// recording into a real activity record (record=on, Keep arguments off
// and on; record=on-sealed chains it with a key and seals it, with a
// throwaway keyring of the real keychain). The difference of their p50s is what recording adds (goal:
// ≤ 20 µs).
//
//	go test -run '^$' -bench RecordCall -benchtime 3000x ./core/gateway
func BenchmarkRecordCall(b *testing.B) {
	r := newRig(b, nil)
	for _, mode := range []string{"off", "on", "on-keep", "on-sealed"} {
		b.Run("record="+mode, func(b *testing.B) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			opts := Options{}
			if mode != "off" {
				var keys activity.Keys
				if mode == "on-sealed" {
					if runtime.GOOS == "linux" && os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
						b.Skip("no D-Bus session bus: run make test, which starts one with an unlocked gnome-keyring")
					}
					service := "mcptray-test-" + rand.Text()
					defer keyring.DeleteAll(service)
					keys = keychain.New(service)
				}
				l, err := activity.Open(ctx, activity.Options{Path: filepath.Join(b.TempDir(), "activity.db"),
					Settings: activity.Settings{KeepArguments: mode == "on-keep"}, Secrets: r.svc.ActivitySecrets, Keys: keys})
				if err != nil {
					b.Fatal(err)
				}
				defer l.Close()
				opts.Recorder = l
			}
			g := New(r.svc, opts)
			if err := g.Sync(ctx); err != nil {
				b.Fatal(err)
			}
			inR, inW, _ := os.Pipe()
			outR, outW, _ := os.Pipe()
			defer func() { inW.Close(); outR.Close(); inR.Close() }()
			go func() { g.ServeStream(ctx, inR, outW); outW.Close() }()
			out := bufio.NewReader(outR)
			send := func(msg string) (string, error) {
				if _, err := io.WriteString(inW, msg+"\n"); err != nil {
					return "", err
				}
				return out.ReadString('\n')
			}
			if _, err := send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + legacy + `","capabilities":{},"clientInfo":{"name":"claude-code","version":"1"}}}`); err != nil {
				b.Fatal(err)
			}
			io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
			measureCalls(b, func() error {
				line, err := send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mcp__a__echo","arguments":{"text":"hi","path":"/home/me/notes.md","n":3}}}`)
				if err == nil && !strings.Contains(line, `"hi"`) {
					err = fmt.Errorf("answered %s", line)
				}
				return err
			})
		})
	}
}
