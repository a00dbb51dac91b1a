package instance

import (
	"context"
	"log/slog"

	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/core/service"
)

// openActivity opens the activity record at so's ActivityFile, sealed
// with so's keychain and masking the secrets the service made with it
// keeps (secrets: its ActivitySecrets, once it is made), for the service
// to be given in so.Record.
func openActivity(ctx context.Context, so service.Options, secrets func(context.Context) []string, log *slog.Logger) (*activity.Log, error) {
	return activity.Open(ctx, activity.Options{Path: so.Paths.ActivityFile(), Logger: log, Secrets: secrets, Keys: so.Store})
}

// closeActivity writes the record's last rows and closes it, once the
// gateway and the service that record in it are gone.
func closeActivity(l *activity.Log, log *slog.Logger) {
	if l == nil {
		return
	}
	if err := l.Close(); err != nil {
		log.Warn("closing the activity record", "err", err)
	}
}
