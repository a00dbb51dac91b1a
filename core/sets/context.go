package sets

import "context"

// appKey marks a context with the app mcptray knows for sure.
type appKey struct{}

// WithApp marks ctx as an app's whom mcptray knows for sure: the name it
// gave the app in the config it wrote for it (mcptray stdio --app NAME),
// or the name of the app's own token.
func WithApp(ctx context.Context, app string) context.Context {
	return context.WithValue(ctx, appKey{}, app)
}

// AppFrom is the app WithApp marked ctx with.
func AppFrom(ctx context.Context) (string, bool) {
	app, ok := ctx.Value(appKey{}).(string)
	return app, ok && app != ""
}

// CheckApp says in plain words what is wrong with an app's name, or nil.
func CheckApp(app string) error { return checkName("an app", app) }
