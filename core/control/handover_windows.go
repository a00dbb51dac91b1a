package control

import (
	"errors"
	"net"
	"os"
)

// CanHandOver is false on Windows: AF_UNIX sockets there carry no handles,
// and mcptray stdio copies the app's messages instead.
func CanHandOver(*os.File) bool { return false }

var errNoHandover = errors.New("handing over stdin and stdout needs a Unix system")

func sendFiles(net.Conn, ...*os.File) error { return errNoHandover }

func receiveFiles(net.Conn, int) ([]*os.File, error) { return nil, errNoHandover }
