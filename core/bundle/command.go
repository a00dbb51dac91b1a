package bundle

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Run is what runs a bundle's server: the exact command, its arguments,
// its environment and the folder it starts in.
type Run struct {
	Command string
	Args    []string
	Env     map[string]string
	Cwd     string
}

// Command is what runs the bundle unpacked in dir on the operating system
// goos with settings: its mcp_config with that platform's overrides, and
// the bundle format's variables substituted: ${__dirname} (dir), ${HOME},
// ${DESKTOP}, ${DOCUMENTS}, ${DOWNLOADS}, ${pathSeparator} and ${/}, and
// ${user_config.KEY}. An argument that is only ${user_config.KEY} becomes
// one argument for each of its values, none when it has none; an
// optional setting without a value is empty text elsewhere, and an
// environment variable left empty by one is left out. A sensitive
// setting's value never goes in: secretRef(key) stands for it. A relative
// command is the bundle's own program, in dir (with .exe added on Windows
// to a binary bundle's); the server starts in dir.
func (m *Manifest) Command(dir, goos string, p Places, settings []Setting, secretRef func(key string) string) (Run, error) {
	mc := m.Server.MCPConfig
	if o, ok := mc.PlatformOverrides[platform(goos)]; ok {
		if o.Command != "" {
			mc.Command = o.Command
		}
		if o.Args != nil {
			mc.Args = o.Args
		}
		if o.Env != nil {
			mc.Env = o.Env
		}
	}
	sep := "/"
	if goos == "windows" {
		sep = `\`
	}
	values := map[string][]string{}
	for _, s := range settings {
		if s.Config.Sensitive {
			values[s.Key] = []string{secretRef(s.Key)}
		} else {
			values[s.Key] = s.Values
		}
	}
	var unknown []string
	lookup := func(name string) (string, bool) {
		switch name {
		case "__dirname":
			return dir, true
		case "pathSeparator", "/":
			return sep, true
		}
		if v, ok := p.lookup(name); ok {
			return v, true
		}
		if key, ok := strings.CutPrefix(name, "user_config."); ok {
			if _, declared := m.UserConfig[key]; declared {
				return strings.Join(values[key], " "), true
			}
		}
		unknown = append(unknown, "${"+name+"}")
		return "", false
	}
	run := Run{Cwd: dir, Command: substitute(mc.Command, lookup)}
	for _, a := range mc.Args {
		if key, ok := wholeSetting(a); ok {
			if _, declared := m.UserConfig[key]; declared {
				run.Args = append(run.Args, values[key]...)
				continue
			}
		}
		run.Args = append(run.Args, substitute(a, lookup))
	}
	for k, v := range mc.Env {
		out := substitute(v, lookup)
		if out == "" && v != "" {
			continue
		}
		if run.Env == nil {
			run.Env = map[string]string{}
		}
		run.Env[k] = out
	}
	if len(unknown) > 0 {
		return Run{}, refuse(fmt.Sprintf("its mcp_config refers to %s, which the bundle format does not define", strings.Join(unknown, ", ")))
	}
	if run.Command == "" {
		return Run{}, refuse("its mcp_config names no command")
	}
	if !filepath.IsAbs(run.Command) && strings.ContainsAny(run.Command, `/\`) {
		run.Command = filepath.Join(dir, filepath.FromSlash(run.Command))
	}
	// The format has hosts add .exe to a binary bundle's program on
	// Windows.
	if goos == "windows" && m.Server.Type == "binary" && strings.HasPrefix(run.Command, dir) && filepath.Ext(run.Command) == "" {
		run.Command += ".exe"
	}
	return run, nil
}

// wholeSetting reports whether a is only ${user_config.KEY}, and KEY.
func wholeSetting(a string) (string, bool) {
	inner, ok := strings.CutPrefix(a, "${user_config.")
	if !ok || !strings.HasSuffix(inner, "}") || strings.Contains(inner[:len(inner)-1], "}") {
		return "", false
	}
	return inner[:len(inner)-1], true
}

// substitute replaces each ${NAME} in s that lookup knows, once: what
// it puts in is not read again.
func substitute(s string, lookup func(name string) (string, bool)) string {
	if !strings.Contains(s, "${") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		if v, ok := lookup(s[i+2 : i+end]); ok {
			b.WriteString(v)
		} else {
			b.WriteString(s[i : i+end+1])
		}
		s = s[i+end+1:]
	}
}
