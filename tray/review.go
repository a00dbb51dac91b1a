package tray

import (
	"fmt"

	"github.com/mcptray/mcptray/core/service"
)

// A server whose tools changed since the person saw them has the changed
// ones held from apps (service.Review): the menu has a line that opens its
// review, the icon asks for attention, and a notification says so when the
// window is closed. Those the person chose to keep held have been looked
// at: they are not counted; nor are those of a server that does not run
// now (its review says what it held when it last ran).

// heldCount is how many of a server's tools and prompts are held and wait
// to be looked at.
func heldCount(sv service.Server) int {
	if sv.Suppressed != "" || sv.BuiltIn() || sv.State != service.Connected {
		return 0
	}
	return sv.Review.Pending()
}

// changedTools is "changed 1 tool" or "changed N tools".
func changedTools(n int) string {
	if n == 1 {
		return "changed 1 tool"
	}
	return fmt.Sprintf("changed %d tools", n)
}

// heldItems are the menu's lines for servers with held changes: "weather
// changed 1 tool — Review…", which opens the window at the server.
func heldItems(running []service.Server) []Item {
	var out []Item
	for _, sv := range running {
		if n := heldCount(sv); n > 0 {
			out = append(out, Item{Label: name(sv) + " " + changedTools(n) + " — Review…", Action: OpenAction, Server: sv.Name})
		}
	}
	return out
}

// anyHeld reports whether a server holds changes for the person.
func anyHeld(s service.Snapshot) bool {
	for _, sv := range s.Servers {
		if heldCount(sv) > 0 {
			return true
		}
	}
	return false
}

// heldNotices are the notifications for servers that hold more changes
// than they did in prev.
func heldNotices(prev, next service.Snapshot) []Notice {
	before := map[string]int{}
	for _, sv := range prev.Servers {
		before[sv.Name] = heldCount(sv)
	}
	var out []Notice
	for _, sv := range next.Servers {
		if n := heldCount(sv); n > before[sv.Name] {
			out = append(out, Notice{
				Server: sv.Name,
				Title:  name(sv) + " " + changedTools(n),
				Body:   "Your apps are not offered what changed until you accept it. Click to review it.",
			})
		}
	}
	return out
}
