package opengl

// Check has nothing to check on macOS, which always offers OpenGL 2.1, and
// where GLFW set up and torn down before Fyne's would change the app's
// menu bar.
func Check() error { return nil }
