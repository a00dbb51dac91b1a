//go:build !windows

package autostart

import "errors"

// runKey stands in for the Windows registry, which only Windows has.
type runKey struct{}

var errNoRegistry = errors.New("the Windows registry exists only on Windows")

func (runKey) read() (string, bool, error) { return "", false, errNoRegistry }
func (runKey) write(string) error          { return errNoRegistry }
func (runKey) remove() error               { return errNoRegistry }
func (runKey) String() string              { return `HKCU\` + runKeyPath + `\` + runValue }
