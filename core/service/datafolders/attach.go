package datafolders

import (
	"errors"

	"github.com/mcptray/mcptray/core/config"
)

// Service is what the folders need of the running mcptray, given once by
// the service as it is made (Attach): they are Options' fields of the same
// names, which a test that makes Folders alone gives directly.
type Service struct {
	// Dir is the folder that holds the servers' data folders, as their
	// sandbox would give them now; "" when servers have none here.
	Dir func() string
	// Stopped is closed once the server called name has no process.
	Stopped func(name string) <-chan struct{}
	// InUse calls fn with the config in use, while no other config is put
	// to use.
	InUse func(fn func(*config.Set))
	// OwnersFile keeps whom each data folder was made for.
	OwnersFile string
}

// Attach gives the folders what they need of the service. service.New
// calls it, once, before the folders are used; nothing else does.
// core/instance makes the folders beside the service and gives them in the
// service's Options. Folders serve one service: a second Attach, which
// would have them wait for another service's servers, is refused and
// changes nothing.
func (f *Folders) Attach(s Service) error {
	if !f.attached.CompareAndSwap(false, true) {
		return errors.New("the data folders serve another service already")
	}
	f.opts.Dir, f.opts.Stopped, f.opts.InUse, f.opts.OwnersFile = s.Dir, s.Stopped, s.InUse, s.OwnersFile
	return nil
}
