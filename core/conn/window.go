package conn

import "context"

// acquire takes a place in a sliding window: as soon as one connection
// attempt finishes, the next may start, so one slow server holds up only its
// own place and not a whole batch.
func acquire(ctx context.Context, window chan struct{}) error {
	select {
	case window <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func release(window chan struct{}) { <-window }
