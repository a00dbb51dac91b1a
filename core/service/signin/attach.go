package signin

// Attach gives the desk the service's change notices, which front ends
// hear when the keychain's state changed. service.New calls it, once,
// before the desk is used; nothing else does. core/instance makes the
// desk beside the service and gives it in the service's Options.
func (d *Desk) Attach(changed func()) { d.opts.Changed = changed }
