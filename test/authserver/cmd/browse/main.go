// Command browse is the browser of sign-in tests where curl is missing: it
// GETs the URL it is given and follows redirects, as `curl -sL -o
// /dev/null` does, with no proxy.
package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"time"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: browse URL")
		os.Exit(2)
	}
	c := &http.Client{Transport: &http.Transport{Proxy: nil}, Timeout: time.Minute}
	resp, err := c.Get(os.Args[1])
	if err != nil {
		os.Exit(1)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}
