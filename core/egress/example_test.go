package egress_test

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"

	"github.com/mcptray/mcptray/core/control"
	"github.com/mcptray/mcptray/core/egress"
)

// How a running mcptray wires the proxy: the window's question through the
// control endpoint, each server's list from what it declares and what the
// person allowed, and "Always" kept. The allowed hosts live in a map here;
// mcptray keeps them in its config.
func Example() {
	var (
		mu      sync.Mutex
		allowed = map[string][]string{} // the person's choices, by server
	)
	declared := map[string][]string{"weather": egress.Declared("npx", []string{"-y", "weather-mcp"}, nil)}
	endpoint := &control.Endpoint{Logger: slog.Default()} // the instance's own, with OpenWindow
	p := egress.New(egress.Options{
		Logger: slog.Default(),
		Hosts: func(server string) []string {
			mu.Lock()
			defer mu.Unlock()
			return slices.Concat(declared[server], allowed[server])
		},
		Ask: endpoint.AskEgress, // with no window to ask in: ErrNoWindow, a no
		Remember: func(server, dest, _ string) error {
			mu.Lock()
			defer mu.Unlock()
			allowed[server] = append(allowed[server], dest)
			return nil
		},
		OnRefusal: func(r egress.Refusal) { /* tell the window: the server's detail shows r.Words() */ },
	})
	if err := p.Start(context.Background()); err != nil {
		panic(err)
	}
	defer p.Close()

	// Starting the server: the proxy's variables over its own, and a
	// sandbox that lets it connect to p.Port() on 127.0.0.1 and nowhere
	// else by TCP.
	env := map[string]string{"WEATHER_UNITS": "metric"}
	for k, v := range p.Env("weather") {
		env[k] = v
	}
	fmt.Println(declared["weather"], env["NODE_USE_ENV_PROXY"], p.Port() > 0)
	// ... and when it stops:
	p.Forget("weather")
	// Output: [registry.npmjs.org] 1 true
}
