package sandbox

import "testing"

// How the check judges a door from what its probe said and what reached
// the scene's listeners, without running a probe: a try that got through,
// or one the probe saw refused while something still reached a listener
// outside, is an open door, never a held one; a door a server must be able
// to use and cannot is broken; a limit mcptray already names is no failure.
func TestJudge(t *testing.T) {
	plain := Door{Name: "tcp-refused", Open: "it could reach a port on this computer"}
	must := Door{Name: "own-data", Must: true, Open: "it cannot write its own data"}
	limited := Door{Name: "udp", Open: "it could send UDP",
		Limit: func(k Kind, namespaces bool) string {
			if !k.Proxy && !namespaces {
				return "its network is open"
			}
			return ""
		}}
	judgedBy := Door{Name: "proxy", Open: "it could reach the network past the proxy",
		Held: func(_ *Scene, outcome string) bool { return outcome == "closed" }}
	local, noProxy := Kinds[0], Kinds[2]

	for _, c := range []struct {
		name       string
		door       Door
		kind       Kind
		namespaces bool
		outcome    string
		reached    int
		want       string
	}{
		{"refused, nothing reached", plain, local, true, "ECONNREFUSED", 0, "held"},
		{"got through", plain, local, true, "ok", 0, "open"},
		{"refused, yet a listener was reached", plain, local, true, "ECONNREFUSED", 1, "open"},
		{"got through, and reached", plain, local, true, "ok", 1, "open"},
		{"must, worked", must, local, true, "ok", 0, "works"},
		{"must, refused", must, local, true, "EACCES", 0, "broken"},
		{"limit named", limited, noProxy, false, "ok", 0, "limit"},
		{"limit not named here", limited, local, true, "ok", 0, "open"},
		{"limit named, refused", limited, noProxy, false, "EPERM", 0, "held"},
		{"own judge says held", judgedBy, local, true, "closed", 0, "held"},
		{"own judge says open", judgedBy, local, true, "ECONNREFUSED", 0, "open"},
	} {
		s := &Scene{reached: map[string]int{c.door.Name: c.reached}}
		r := c.door.judge(s, c.kind, c.namespaces, c.outcome)
		if r.State != c.want {
			t.Errorf("%s: state %q, want %q (%+v)", c.name, r.State, c.want, r)
		}
		if (r.State == "open" || r.State == "broken") && r.Open != c.door.Open {
			t.Errorf("%s: open = %q, want the door's words", c.name, r.Open)
		}
		if (KindResult{Doors: []DoorResult{r}}).Held() != (c.want == "held" || c.want == "works" || c.want == "limit") {
			t.Errorf("%s: the kind counts as held or not wrongly with a door %s", c.name, r.State)
		}
	}
}
