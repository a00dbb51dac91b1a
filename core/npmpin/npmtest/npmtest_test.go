package npmtest

import (
	"net/http"
	"testing"
)

// status is the registry's answer to GET path.
func status(t *testing.T, r *Registry, path string) int {
	t.Helper()
	resp, err := http.Get(r.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestEachTestFindsItEmpty: the registry one test published to is the
// next test's too, and holds nothing of the first's: a package and a
// scoped one, published again at the same version.
func TestEachTestFindsItEmpty(t *testing.T) {
	scoped := map[string]string{"package.json": `{"name":"@acme/tool","version":"1.0.0"}`}
	var first string
	for _, name := range []string{"first", "second"} {
		t.Run(name, func(t *testing.T) {
			r := Start(t)
			if first == "" {
				first = r.URL
			} else if r.URL != first {
				t.Errorf("the second test got another registry (%s, then %s)", first, r.URL)
			}
			for _, path := range []string{"echo-mcp", "@acme%2ftool"} {
				if got := status(t, r, path); got != http.StatusNotFound {
					t.Errorf("%s is there before this test published it: %d", path, got)
				}
			}
			r.Publish(t, Server("1.0.0"))
			r.Publish(t, scoped)
			for _, path := range []string{"echo-mcp", "@acme%2ftool"} {
				if got := status(t, r, path); got != http.StatusOK {
					t.Errorf("%s is not there after it was published: %d", path, got)
				}
			}
		})
	}
}
