package e2e

// The packages mcptray's main imports. Importing them here makes go test
// compile them, once, before it links a package that uses Binary, whose go
// build then only compiles main and links. Otherwise, on a fresh machine,
// these tests would start early and compile Fyne and its OpenGL binding
// (minutes of cgo) a second time, beside go test's own build.
// TestDepsAreMains keeps the list in step with main.go.
//
// As in main, app/posixlocale (imported by e2e.go) keeps Fyne's init quiet
// under C.UTF-8; Main puts the locale back before the tests start programs.
import (
	_ "github.com/mcptray/mcptray/app/autostart"
	_ "github.com/mcptray/mcptray/app/cli"
	_ "github.com/mcptray/mcptray/app/host"
	_ "github.com/mcptray/mcptray/app/window"
	_ "github.com/mcptray/mcptray/core/config"
	_ "github.com/mcptray/mcptray/core/control"
	_ "github.com/mcptray/mcptray/core/logfile"
	_ "github.com/mcptray/mcptray/core/service"
	_ "github.com/mcptray/mcptray/keychain"
	_ "golang.org/x/term"
)
