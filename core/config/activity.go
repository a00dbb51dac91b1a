package config

import (
	"encoding/json"
	"fmt"

	"github.com/tailscale/hujson"
)

// activityKey is the key of the activity record's settings in mcptray's
// config file: {"activity": {"keepArguments": false, "days": 90,
// "maxMB": 100}}.
const activityKey = "activity"

// ActivitySettings are the person's settings of the activity record.
type ActivitySettings struct {
	// KeepArguments keeps calls' argument values, secrets masked, rather
	// than only their shape.
	KeepArguments bool `json:"keepArguments,omitempty"`
	// Days is how long calls are kept; zero means the default (90).
	Days int `json:"days,omitempty"`
	// MaxMB bounds the record's size in megabytes; zero means the default
	// (100).
	MaxMB int `json:"maxMB,omitempty"`
}

// Check says in plain words what is wrong with s.
func (s ActivitySettings) Check() error {
	switch {
	case s.Days < 0 || s.Days > 36500:
		return fmt.Errorf("the activity record keeps calls for 1 to 36500 days, not %d", s.Days)
	case s.MaxMB < 0 || s.MaxMB > 1e6:
		return fmt.Errorf("the activity record's size is 1 to 1000000 MB, not %d", s.MaxMB)
	}
	return nil
}

// ActivitySettings returns the activity record's settings as the file
// holds them.
func (u *UserFile) ActivitySettings() (ActivitySettings, error) {
	var s ActivitySettings
	raw, ok := u.rest[activityKey]
	if !ok {
		return s, nil
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return ActivitySettings{}, fmt.Errorf("%q must be an object such as {\"keepArguments\": false, \"days\": 90, \"maxMB\": 100}", activityKey)
	}
	if err := s.Check(); err != nil {
		return ActivitySettings{}, err
	}
	return s, nil
}

// activitySettings reads the "activity" object of mcptray's own config
// file, for the loaded set; what is wrong is a problem, and the defaults
// apply.
func (d *document) activitySettings() (ActivitySettings, *Problem) {
	v := member(d.root.Value.(*hujson.Object), activityKey)
	if v == nil {
		return ActivitySettings{}, nil
	}
	std, err := hujson.Standardize(append([]byte(nil), d.data[v.StartOffset:v.EndOffset]...))
	var s ActivitySettings
	if err == nil {
		err = json.Unmarshal(std, &s)
		if err == nil {
			err = s.Check()
		} else {
			err = fmt.Errorf("%q must be an object such as {\"keepArguments\": false, \"days\": 90, \"maxMB\": 100}", activityKey)
		}
	}
	if err != nil {
		return ActivitySettings{}, d.problem(v.StartOffset, "", err.Error())
	}
	return s, nil
}

// SetActivitySettings keeps s; the defaults remove the key.
func (u *UserFile) SetActivitySettings(s ActivitySettings) error {
	if err := s.Check(); err != nil {
		return err
	}
	if u.rest == nil {
		u.rest = map[string]json.RawMessage{}
	}
	if s == (ActivitySettings{}) {
		delete(u.rest, activityKey)
		return nil
	}
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	u.rest[activityKey] = b
	return nil
}

// ModifyActivitySettings changes the activity record's settings in
// mcptray's config file at path.
func ModifyActivitySettings(path string, fn func(*ActivitySettings)) error {
	return ModifyUserFile(path, func(u *UserFile) error {
		s, err := u.ActivitySettings()
		if err != nil {
			return err
		}
		fn(&s)
		return u.SetActivitySettings(s)
	})
}
