package host

import (
	"fmt"
	"runtime"
)

// DisplayProblem says, in one line for a person, why no window can open
// here, or "" when one can. Only Linux and the BSDs can lack a display:
// there a desktop session sets DISPLAY (X11) or WAYLAND_DISPLAY.
func DisplayProblem(getenv func(string) string) string {
	switch runtime.GOOS {
	case "darwin", "windows", "ios", "android":
		return ""
	}
	if getenv("DISPLAY") != "" || getenv("WAYLAND_DISPLAY") != "" {
		return ""
	}
	return fmt.Sprint("mcptray needs a desktop, and there is none here (DISPLAY and WAYLAND_DISPLAY are not set). ",
		"To run your servers without one, use: mcptray serve")
}
