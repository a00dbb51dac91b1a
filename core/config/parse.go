package config

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/tailscale/hujson"

	"github.com/mcptray/mcptray/core/sanitize"
)

// MaxFileSize is the largest config file mcptray reads. Real ones are a few
// kilobytes (~/.claude.json, which also keeps history, can reach megabytes);
// anything larger is a mistake, and reading it would only cost memory.
const MaxFileSize = 64 << 20

// Source is one config file to read, and what mcptray knows about it before
// reading it.
type Source struct {
	Scope  Scope
	App    string
	File   string
	Format Format
	// Folder is the project folder the file belongs to: the default cwd of
	// its stdio servers and the value of ${workspaceFolder}.
	Folder string
	// PluginRoot is the plugin's folder for plugin manifests.
	PluginRoot string
}

// document is a parsed config file: standard JSON bytes whose offsets match
// the original file, and the tree that holds those offsets.
type document struct {
	src  Source
	data []byte
	// orig is the file as written, for positions: blanking a comment turns
	// each of its bytes into a space, so a non-ASCII character in a comment
	// would shift the columns counted in data.
	orig []byte
	root hujson.Value
	pos  *positions // over orig
}

// openNoWait opens path to read without waiting: opening a named pipe
// waits for a writer, and a file in a project may be one its server made.
func openNoWait(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// readSource reads and parses src.File. A file that does not exist is no
// problem: most people have only some of the apps mcptray looks at.
func readSource(src Source) (*document, *Problem) {
	f, err := openNoWait(src.File)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &Problem{File: src.File, Message: "cannot be read: " + plainIOError(err)}
	}
	defer f.Close()
	tooBig := &Problem{File: src.File, Message: fmt.Sprintf("is larger than %d MiB; mcptray skipped it", MaxFileSize>>20)}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, &Problem{File: src.File, Message: "is a folder, not a config file"}
	} else if err == nil && !st.Mode().IsRegular() {
		// A project's server may change its project: a named pipe there
		// would keep every reload waiting.
		return nil, &Problem{File: src.File, Message: "is not a file (a named pipe or a device); mcptray skipped it"}
	} else if err == nil && st.Size() > MaxFileSize {
		return nil, tooBig // without reading it: a watcher reloads often
	}
	// Stat can be wrong (pipes, /proc), so the limit is enforced on the read.
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, &Problem{File: src.File, Message: "cannot be read: " + plainIOError(err)}
	}
	if len(data) > MaxFileSize {
		return nil, tooBig
	}
	return parseDocument(src, data)
}

func plainIOError(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return err.Error()
}

// parseDocument parses JSON with comments and trailing commas (VS Code
// writes both, and people copy its files elsewhere), keeping byte offsets so
// that every later problem can name its line and column.
func parseDocument(src Source, data []byte) (*document, *Problem) {
	// An empty file is an empty config: `touch .mcp.json` is a common first
	// step. A UTF-8 byte order mark, which Windows editors write, becomes one
	// space, so that columns stay those an editor shows.
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}")
	} else if bom := []byte("\uFEFF"); bytes.HasPrefix(data, bom) {
		data = append([]byte(" "), data[len(bom):]...) // one character, as editors count it
	}
	// hujson's tree aliases the bytes it parses, and Standardize blanks
	// comments in place: parse a copy so that data stays as written.
	root, err := hujson.Parse(bytes.Clone(data))
	if err != nil {
		p := &Problem{File: src.File, Message: "is not valid JSON: " + err.Error()}
		// hujson reports "hujson: line L, column C: reason", C counted in
		// bytes; Problem counts characters.
		var reason string
		if n, _ := fmt.Sscanf(err.Error(), "hujson: line %d, column %d:", &p.Line, &p.Column); n == 2 {
			p.Line, p.Column = lineColumn(data, lineOffset(data, p.Line)+p.Column-1)
			if _, reason, _ = strings.Cut(err.Error(), ": "); reason != "" {
				_, reason, _ = strings.Cut(reason, ": ")
				p.Message = "is not valid JSON: " + plainSyntaxError(reason)
			}
		}
		return nil, p
	}
	root.Standardize() // comments become spaces: offsets are unchanged
	d := &document{src: src, data: root.Pack(), orig: data, root: root, pos: newPositions(data)}
	if _, ok := root.Value.(*hujson.Object); !ok {
		return nil, d.problem(root.StartOffset, "", "must hold a JSON object { … }")
	}
	return d, nil
}

// plainSyntaxError rewords hujson's reason for a literal it cannot read,
// which quotes the literal whole: a mistyped string may be a token, and it
// holds the control character that made it invalid.
func plainSyntaxError(reason string) string {
	lit, ok := strings.CutPrefix(reason, "invalid literal: ")
	switch {
	case !ok:
		return reason
	case strings.HasPrefix(lit, `"`):
		return `a string holds a control character (write a tab as \t, a line break as \n) or an unknown \ escape`
	default:
		return `a value must be a "quoted string", a number, true, false or null`
	}
}

// lineOffset returns the byte offset at which 1-based line starts.
func lineOffset(b []byte, line int) int {
	off := 0
	for ; line > 1; line-- {
		i := bytes.IndexByte(b[off:], '\n')
		if i < 0 {
			return len(b)
		}
		off += i + 1
	}
	return off
}

func (d *document) problem(offset int, server, msg string) *Problem {
	line, col := d.pos.at(offset)
	return &Problem{File: d.src.File, Line: line, Column: col, Server: server, Message: msg}
}

// member returns the value under key in obj, or nil.
func member(obj *hujson.Object, key string) *hujson.Value {
	for i := range obj.Members {
		if lit, ok := obj.Members[i].Name.Value.(hujson.Literal); ok && lit.String() == key {
			return &obj.Members[i].Value
		}
	}
	return nil
}

// servers returns the servers of the document, each a problem of its own
// when it is wrong.
func (d *document) servers(vars Vars) ([]Server, []Problem) {
	top := d.root.Value.(*hujson.Object)
	servers, problems := d.serverMap(top, d.src.Format.serversKey(), d.src.Folder, vars)
	if d.src.Format != ClaudeCode {
		return servers, problems
	}
	projects := member(top, "projects")
	if projects == nil {
		return servers, problems
	}
	pobj, ok := projects.Value.(*hujson.Object)
	if !ok {
		return servers, append(problems, *d.problem(projects.StartOffset, "", `"projects" must be an object`))
	}
	for _, m := range pobj.Members {
		obj, ok := m.Value.Value.(*hujson.Object)
		if !ok {
			continue // Claude Code's own business; only mcpServers matter here
		}
		folder := m.Name.Value.(hujson.Literal).String()
		pv := vars
		pv.Folder = folder
		s, p := d.serverMap(obj, "mcpServers", folder, pv)
		servers, problems = append(servers, s...), append(problems, p...)
	}
	return servers, problems
}

func (d *document) serverMap(obj *hujson.Object, key, folder string, vars Vars) ([]Server, []Problem) {
	v := member(obj, key)
	if v == nil {
		return nil, nil
	}
	if lit, ok := v.Value.(hujson.Literal); ok && lit.Kind() == 'n' {
		return nil, nil // "mcpServers": null is as good as absent
	}
	m, ok := v.Value.(*hujson.Object)
	if !ok {
		return nil, []Problem{*d.problem(v.StartOffset, "", fmt.Sprintf("%q must be an object of servers by name", key))}
	}
	var servers []Server
	var problems []Problem
	for _, mem := range m.Members {
		name := mem.Name.Value.(hujson.Literal).String()
		s, p := d.server(name, &mem.Value, folder, vars)
		if p != nil {
			problems = append(problems, *p)
			continue
		}
		servers = append(servers, s)
	}
	return servers, problems
}

// rawServer is a server entry as written, before validation and expansion.
type rawServer struct {
	Type     string
	Command  string
	Args     []string
	Env      map[string]string
	EnvFile  string
	Cwd      string
	URL      string
	Headers  map[string]string
	OAuth    *OAuth
	Disabled bool
	Mcptray  json.RawMessage
}

// fields lists the keys of a server entry that mcptray reads, what each must
// be, and where it goes. Other keys (alwaysAllow, autoApprove, gallery…) are
// other apps' business and are ignored.
func (r *rawServer) fields() map[string]struct {
	want string
	dst  any
} {
	type f = struct {
		want string
		dst  any
	}
	return map[string]f{
		"type":     {"a string (stdio, http, sse or ws)", &r.Type},
		"command":  {"a string", &r.Command},
		"args":     {"a list of strings", &r.Args},
		"env":      {"an object of strings", &r.Env},
		"envFile":  {"a string", &r.EnvFile},
		"cwd":      {"a string", &r.Cwd},
		"url":      {"a string", &r.URL},
		"headers":  {"an object of strings", &r.Headers},
		"oauth":    {"an object", &r.OAuth},
		"disabled": {"true or false", &r.Disabled},
		entryKey:   {"an object", &r.Mcptray},
	}
}

func (d *document) server(name string, v *hujson.Value, folder string, vars Vars) (Server, *Problem) {
	display, hidden := displayName(name)
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		return Server{}, d.problem(v.StartOffset, display, "must be an object with a command or a url")
	}
	if sanitize.Line(name) == "" { // nothing a person could see
		return Server{}, d.problem(v.StartOffset, "", "has an empty name; give it a name")
	}
	var raw rawServer
	fields := raw.fields()
	for _, m := range obj.Members {
		key := m.Name.Value.(hujson.Literal).String()
		f, ok := fields[key]
		if !ok {
			continue
		}
		val := d.data[m.Value.StartOffset:m.Value.EndOffset]
		if string(val) == "null" {
			continue
		}
		if err := json.Unmarshal(val, f.dst); err != nil {
			return Server{}, d.problem(m.Value.StartOffset, display, fmt.Sprintf("%q must be %s", key, f.want))
		}
	}
	line, col := d.pos.at(v.StartOffset)
	s := Server{
		Name:       display,
		NameHidden: hidden,
		ConfigName: name,
		Scope:      d.src.Scope,
		Origin:     Origin{File: d.src.File, App: d.src.App, Folder: folder, Line: line, Column: col},
		Disabled:   raw.Disabled,
		OAuth:      raw.OAuth,
	}
	if err := raw.build(&s, vars, folder, d.src.PluginRoot); err != nil {
		return Server{}, d.problem(v.StartOffset, display, err.Error())
	}
	if len(raw.Mcptray) > 0 {
		ask, err := sandboxAsk(raw.Mcptray, cmp.Or(folder, d.src.PluginRoot))
		if err != nil {
			return Server{}, d.problem(v.StartOffset, display, err.Error())
		}
		s.SandboxAsk = ask
		if d.src.Scope == User {
			s.Bundle = bundleOf(raw.Mcptray)
		}
	}
	return s, nil
}

// build validates r, expands its ${…} references and fills in s. Relative
// paths resolve against folder, the project the entry belongs to (in
// ~/.claude.json, each project's path), or else the plugin's root; that
// folder is also the default cwd.
func (r *rawServer) build(s *Server, vars Vars, folder, pluginRoot string) error {
	var err error
	switch {
	case r.Type != "":
		if s.Transport, err = ParseTransport(r.Type); err != nil {
			return err
		}
	case r.Command != "" && r.URL != "":
		return errors.New(`has both a "command" and a "url"; add "type" to say which to use`)
	case r.Command != "":
		s.Transport = Stdio
	case r.URL != "":
		s.Transport = HTTP
	default:
		return errors.New(`needs a "command" (a program to run) or a "url" (a remote server)`)
	}
	if s.Transport == Stdio && r.Command == "" {
		return errors.New(`runs a program but has no "command"`)
	}
	if s.Transport.Remote() && r.URL == "" {
		return fmt.Errorf(`is a remote (%s) server but has no "url"`, s.Transport)
	}

	ex := expander{vars: vars}
	if s.Transport == Stdio {
		s.Command = ex.str(r.Command)
		s.Args = ex.list(r.Args)
		s.Env = ex.dict(r.Env)
		s.PlainKeys = plainKeys(r.Env)
		base := cmp.Or(folder, pluginRoot)
		s.EnvFile = ex.path(r.EnvFile, base)
		s.Cwd = cmp.Or(ex.path(r.Cwd, base), base)
		if strings.TrimSpace(s.Command) == "" && ex.err == nil {
			return errors.New(`has an empty "command"`)
		}
	} else {
		s.URL = ex.str(r.URL)
		s.Headers = ex.dict(r.Headers)
		s.PlainKeys = plainKeys(r.Headers)
	}
	if ex.err != nil {
		return ex.err
	}
	if s.Transport.Remote() {
		advice := `add "type": "ws"`
		if r.Type != "" {
			advice = `set "type" to "ws"`
		}
		return checkURL(s.Transport, s.URL, advice)
	}
	return nil
}

// checkURL checks that raw is an address t can connect to. typeAdvice
// says how to ask for WebSocket in the entry checked: add a "type" or
// change the one it has.
func checkURL(t Transport, raw, typeAdvice string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Errorf("url %q is not a valid address (it should look like https://example.com/mcp)", raw)
	}
	schemes := []string{"http", "https"}
	if t == WebSocket {
		schemes = []string{"ws", "wss"}
	} else if u.Scheme == "ws" || u.Scheme == "wss" {
		return fmt.Errorf("url %q is a WebSocket address; %s to connect to it", raw, typeAdvice)
	}
	for _, s := range schemes {
		if u.Scheme == s {
			return nil
		}
	}
	return fmt.Errorf("url %q must start with %s:// or %s:// for a %s server", raw, schemes[0], schemes[1], t)
}

// expander expands many fields and keeps the first error.
type expander struct {
	vars Vars
	err  error
}

func (e *expander) str(s string) string {
	out, err := e.vars.Expand(s)
	if err != nil && e.err == nil {
		e.err = err
	}
	return out
}

func (e *expander) list(in []string) []string {
	if in == nil {
		return nil
	}
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = e.str(s)
	}
	return out
}

func (e *expander) dict(in map[string]string) map[string]string {
	if in == nil {
		return nil
	}
	out := make(map[string]string, len(in))
	for k, v := range in {
		out[k] = e.str(v)
	}
	return out
}

// path expands s and makes it absolute against folder when it is relative.
func (e *expander) path(s, folder string) string {
	s = e.str(s)
	if s != "" && folder != "" && !filepath.IsAbs(s) {
		s = filepath.Join(folder, s)
	}
	return s
}

// ParseServer checks one server entry as it would be written into a config
// file, with the same rules as a file, and returns the server it describes.
// Front ends use it to check what a person typed before saving it.
func ParseServer(name string, entry []byte, src Source, vars Vars) (Server, error) {
	d, p := parseDocument(src, entry)
	if p != nil {
		return Server{}, p
	}
	s, p := d.server(name, &d.root, src.Folder, vars)
	if p != nil {
		return Server{}, errors.New(p.Message)
	}
	return s, nil
}
