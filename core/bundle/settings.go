package bundle

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Places are the folders the bundle format's variables name: ${HOME},
// ${DESKTOP}, ${DOCUMENTS}, ${DOWNLOADS}.
type Places struct {
	Home, Desktop, Documents, Downloads string
}

// PlacesIn are the usual folders in the home folder home.
func PlacesIn(home string) Places {
	return Places{Home: home, Desktop: filepath.Join(home, "Desktop"),
		Documents: filepath.Join(home, "Documents"), Downloads: filepath.Join(home, "Downloads")}
}

func (p Places) lookup(name string) (string, bool) {
	switch name {
	case "HOME":
		return p.Home, true
	case "DESKTOP":
		return p.Desktop, true
	case "DOCUMENTS":
		return p.Documents, true
	case "DOWNLOADS":
		return p.Downloads, true
	}
	return "", false
}

// Setting is one of a bundle's settings (user_config) with the value the
// server gets.
type Setting struct {
	Key    string
	Config UserConfig
	// Values are its value, or values when it takes several; paths are
	// absolute, booleans true or false. A sensitive one's value is a
	// secret: it goes to the keychain, never into a file.
	Values []string
	// Default says the value is the manifest's default, not the person's.
	Default bool
}

// Path reports whether the setting names folders or files on this
// computer: what the server's sandbox is to let it reach.
func (s Setting) Path() bool { return s.Config.Type == "directory" || s.Config.Type == "file" }

// MissingError says which required settings have no value.
type MissingError struct{ Keys []string }

func (e *MissingError) Error() string {
	return "it needs " + strings.Join(e.Keys, ", ") + "; give each with --set KEY=value"
}

// Settings checks the person's values (by key, several for a setting that
// takes several) against what the bundle asks for, fills in its defaults,
// and returns each setting that has a value, in the manifest's order.
// Required settings without a value are a *MissingError.
func (m *Manifest) Settings(given map[string][]string, p Places) ([]Setting, error) {
	for k := range given {
		if _, ok := m.UserConfig[k]; !ok {
			asks := "nothing"
			if len(m.UserConfigOrder) > 0 {
				asks = strings.Join(m.UserConfigOrder, ", ")
			}
			return nil, fmt.Errorf("%s asks for no setting %q; it asks for %s", m.Title(), k, asks)
		}
	}
	var out []Setting
	var missing []string
	for _, k := range m.UserConfigOrder {
		uc := m.UserConfig[k]
		s := Setting{Key: k, Config: uc}
		if vs, ok := given[k]; ok && len(vs) > 0 {
			if len(vs) > 1 && !uc.Multiple {
				return nil, fmt.Errorf("%s takes one value, not %d", k, len(vs))
			}
			for _, v := range vs {
				cv, err := checkValue(k, uc, v, p, true)
				if err != nil {
					return nil, err
				}
				s.Values = append(s.Values, cv)
			}
		} else if vs, err := defaults(uc.Default); err != nil {
			return nil, fmt.Errorf("the manifest's default for %s cannot be read: %w", k, err)
		} else {
			s.Default = true
			for _, v := range vs {
				v = substitute(v, func(name string) (string, bool) { return p.lookup(name) })
				cv, err := checkValue(k, uc, v, p, false)
				if err != nil {
					continue // a default folder this computer lacks is no value
				}
				s.Values = append(s.Values, cv)
			}
		}
		if len(s.Values) == 0 {
			if uc.Required {
				missing = append(missing, k)
			}
			continue
		}
		out = append(out, s)
	}
	if len(missing) > 0 {
		return out, &MissingError{Keys: missing}
	}
	return out, nil
}

// defaults reads a default: a string, number, boolean or list of strings.
func defaults(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	switch v := v.(type) {
	case string:
		return []string{v}, nil
	case bool:
		return []string{strconv.FormatBool(v)}, nil
	case float64:
		return []string{strconv.FormatFloat(v, 'f', -1, 64)}, nil
	case []any:
		var out []string
		for _, e := range v {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("a list of defaults must hold text")
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, fmt.Errorf("a default must be text, a number, true or false, or a list of text")
}

// checkValue checks one value of setting k and returns it as the server
// gets it. A path the person gave must exist; given says it is theirs.
func checkValue(k string, uc UserConfig, v string, p Places, given bool) (string, error) {
	if strings.Contains(v, "${") {
		// mcptray's config would read it as a reference to a variable or a
		// secret of the person's.
		return "", fmt.Errorf("%s holds \"${\", which mcptray would read as a reference; leave it out", k)
	}
	switch uc.Type {
	case "number":
		n, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return "", fmt.Errorf("%s is a number, not %q", k, v)
		}
		if uc.Min != nil && n < *uc.Min || uc.Max != nil && n > *uc.Max {
			return "", fmt.Errorf("%s must be %s", k, rangeWords(uc.Min, uc.Max))
		}
		return strconv.FormatFloat(n, 'f', -1, 64), nil
	case "boolean":
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true", "yes", "on", "1":
			return "true", nil
		case "false", "no", "off", "0":
			return "false", nil
		}
		return "", fmt.Errorf("%s is true or false, not %q", k, v)
	case "directory", "file":
		path := v
		if rest, ok := strings.CutPrefix(path, "~"); ok && (rest == "" || rest[0] == '/' || rest[0] == filepath.Separator) {
			path = p.Home + rest
		}
		if !filepath.IsAbs(path) {
			return "", fmt.Errorf("%s is a full path (from / or ~/), not %q", k, v)
		}
		path = filepath.Clean(path)
		st, err := os.Stat(path)
		switch {
		case err != nil:
			return "", fmt.Errorf("%s: %s does not exist here; give a %s that does", k, path, kindWord(uc.Type))
		case uc.Type == "directory" && !st.IsDir():
			return "", fmt.Errorf("%s is a folder, and %s is not one", k, path)
		case uc.Type == "file" && !st.Mode().IsRegular():
			return "", fmt.Errorf("%s is a file, and %s is not one", k, path)
		}
		return path, nil
	}
	return v, nil
}

func kindWord(t string) string {
	if t == "directory" {
		return "folder"
	}
	return t
}

func rangeWords(lo, hi *float64) string {
	f := func(n *float64) string { return strconv.FormatFloat(*n, 'f', -1, 64) }
	switch {
	case lo != nil && hi != nil:
		return "from " + f(lo) + " to " + f(hi)
	case lo != nil:
		return f(lo) + " or more"
	default:
		return f(hi) + " or less"
	}
}

// Find returns the setting called key among settings.
func Find(settings []Setting, key string) (Setting, bool) {
	i := slices.IndexFunc(settings, func(s Setting) bool { return s.Key == key })
	if i < 0 {
		return Setting{}, false
	}
	return settings[i], true
}
