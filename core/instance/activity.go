package instance

import (
	"context"
	"log/slog"

	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/core/gateway"
	"github.com/mcptray/mcptray/core/service"
)

// OpenActivity opens the activity record at p's ActivityFile, masking
// svc's secrets and sealing it with svc's keychain, and hands it to svc, which records its trust decisions
// in it. An instance opens it so at Start; the command line's in-process
// service, which records the decision a command makes, opens it the same
// way. Close it with CloseActivity once svc is closed or no longer uses it.
func OpenActivity(ctx context.Context, svc *service.Service, p service.Paths, log *slog.Logger) (*activity.Log, error) {
	l, err := activity.Open(ctx, activity.Options{Path: p.ActivityFile(), Logger: log, Secrets: svc.ActivitySecrets,
		Keys: svc.ActivityKeys()})
	if err != nil {
		return nil, err
	}
	svc.UseActivity(l)
	return l, nil
}

// CloseActivity takes the record from svc and writes its last rows.
func CloseActivity(svc *service.Service, l *activity.Log, log *slog.Logger) {
	if l == nil {
		return
	}
	svc.UseActivity(nil)
	if err := l.Close(); err != nil {
		log.Warn("closing the activity record", "err", err)
	}
}

// openActivity opens the activity record in mcptray's folder and hands it
// to the service, and returns it as the gateway's recorder. When it cannot
// be opened, mcptray runs on without one (said in the log).
func (i *Instance) openActivity() gateway.Recorder {
	l, err := OpenActivity(i.ctx, i.Service, i.opts.Service.Paths, i.log)
	if err != nil {
		i.log.Warn("the activity record could not be opened; calls are not recorded", "err", err)
		return nil // no recorder, not a nil *activity.Log in one
	}
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
	CloseActivity(i.Service, l, i.log)
}
