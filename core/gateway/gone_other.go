//go:build !unix

package gateway

import (
	"net"
	"time"
)

// watchConn would call gone when the app closes c; where it cannot look
// without reading (Windows), a request ends with its answer, its session,
// or notifications/cancelled.
func watchConn(net.Conn, time.Duration, func()) (stop func()) { return func() {} }
