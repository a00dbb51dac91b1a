package window

import (
	"log/slog"
	"sync"
	"time"
)

// quitting ends the window's process: quit closes the window on the UI
// goroutine, and leave asks for that from any other goroutine. Both first
// arm a timer that ends the process after grace whatever the UI goroutine
// does. leave arms it before it asks: a UI goroutine that never runs what
// it is asked (stuck in its GL driver, as under Wine on a busy machine)
// would otherwise keep the window's process running after mcptray quit.
func quitting(logger *slog.Logger, do func(func()), closeWindow func(), grace time.Duration, exit func()) (quit, leave func()) {
	var once sync.Once
	arm := func() {
		once.Do(func() {
			time.AfterFunc(grace, func() {
				logger.Warn("the window did not close in time; exiting")
				exit()
			})
		})
	}
	quit = func() {
		// Fyne can hang while it shuts down when an event arrives at that
		// moment; closing the window must end this process all the same.
		arm()
		closeWindow()
	}
	leave = func() {
		arm()
		do(quit)
	}
	return quit, leave
}
