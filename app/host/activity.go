package host

import (
	"context"
	"errors"
	"time"

	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/core/instance"
)

// todayCalls is how the tray reads today's count of the apps' calls: from
// the running mcptray's activity record.
func todayCalls(inst *instance.Instance) func(ctx context.Context) (int, error) {
	return func(ctx context.Context) (int, error) {
		l := inst.Activity
		if l == nil {
			return 0, errors.New("there is no activity record")
		}
		s, err := l.Summary(ctx, activity.StartOfDay(time.Now()))
		return s.Calls, err
	}
}
