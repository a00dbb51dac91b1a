//go:build !linux

package rawio

import "io"

// Elsewhere than on Linux, reads and writes are the ordinary ones.

type reader struct{ io.Reader }

func newReader(io.Reader) *reader { return nil }

type writer struct{ io.Writer }

func newWriter(io.Writer) *writer { return nil }

func (w *writer) TryWrite(b []byte) (int, error) { return w.Write(b) }
