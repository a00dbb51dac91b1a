package instance

import (
	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/core/gateway"
)

// openActivity opens the activity record in mcptray's folder and hands it
// to the service, and returns it as the gateway's recorder. When it cannot
// be opened, mcptray runs on without one (said in the log).
func (i *Instance) openActivity() gateway.Recorder {
	l, err := activity.Open(i.ctx, activity.Options{Path: i.opts.Service.Paths.ActivityFile(), Logger: i.log,
		Secrets: i.Service.ActivitySecrets})
	if err != nil {
		i.log.Warn("the activity record could not be opened; calls are not recorded", "err", err)
		return nil
	}
	i.Service.UseActivity(l)
	i.mu.Lock()
	i.Activity = l
	i.mu.Unlock()
	return l
}

// closeActivity writes the record's last rows and closes it, once the
// gateway is gone.
func (i *Instance) closeActivity() {
	i.mu.Lock()
	l := i.Activity
	i.mu.Unlock()
	if l == nil {
		return
	}
	i.Service.UseActivity(nil)
	if err := l.Close(); err != nil {
		i.log.Warn("closing the activity record", "err", err)
	}
}
