package signin

import "errors"

// Attach gives the desk the service's change notices, which front ends
// hear when the keychain's state changed. service.New calls it, once,
// before the desk is used; nothing else does. core/instance makes the
// desk beside the service and gives it in the service's Options. A desk
// serves one service: a second Attach is refused, and changes nothing.
func (d *Desk) Attach(changed func()) error {
	if !d.attached.CompareAndSwap(false, true) {
		return errors.New("the sign-in desk serves another service already")
	}
	d.opts.Changed = changed
	return nil
}
