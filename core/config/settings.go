package config

import "encoding/json"

// Setting returns the string value of a top-level key of mcptray's config
// file that the UserFile does not model itself ("registryUrl", say), and
// whether it is there as a string.
func (u *UserFile) Setting(key string) (string, bool) {
	raw, ok := u.rest[key]
	if !ok {
		return "", false
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}
