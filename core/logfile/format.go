package logfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/mcptray/mcptray/core/sanitize"
)

// Format turns one line of a log into words for a person: a JSON slog
// record becomes "2006-01-02 15:04:05 INFO  message key=value …" with its
// time in the local time zone and its attributes in the order they were
// logged (a group's as group.key=value). Any other line is shown as it is.
// Either way the result is one line, with nothing in it that could rewrite
// a terminal.
func Format(line string) string {
	rec, ok := parse(line)
	if !ok {
		return sanitize.Line(line)
	}
	var b strings.Builder
	if t, err := time.Parse(time.RFC3339Nano, rec.time); err == nil {
		b.WriteString(t.Local().Format("2006-01-02 15:04:05"))
	} else {
		b.WriteString(sanitize.Line(rec.time))
	}
	fmt.Fprintf(&b, " %-5s %s", sanitize.Line(rec.level), sanitize.Line(rec.msg))
	for _, a := range rec.attrs {
		b.WriteString(" ")
		b.WriteString(sanitize.Line(a[0]))
		b.WriteString("=")
		b.WriteString(sanitize.Line(quote(a[1])))
	}
	return b.String()
}

// record is a JSON slog line taken apart.
type record struct {
	time, level, msg string
	attrs            [][2]string // key, value, in order
}

// parse reads a JSON object's members in order, which encoding/json's maps
// would lose.
func parse(line string) (record, bool) {
	var rec record
	if !strings.HasPrefix(strings.TrimSpace(line), "{") {
		return rec, false
	}
	dec := json.NewDecoder(strings.NewReader(line))
	dec.UseNumber()
	if !members(dec, "", &rec) {
		return rec, false
	}
	return rec, rec.msg != "" || rec.level != ""
}

// members reads one object's members (its '{' not yet read) into rec,
// each key after prefix.
func members(dec *json.Decoder, prefix string, rec *record) bool {
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return false
		}
		key, _ := t.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return false
		}
		raw = bytes.TrimSpace(raw)
		if len(raw) > 0 && raw[0] == '{' {
			if !members(json.NewDecoder(bytes.NewReader(raw)), prefix+key+".", rec) {
				return false
			}
			continue
		}
		val := string(raw)
		var s string
		if json.Unmarshal(raw, &s) == nil {
			val = s
		}
		switch {
		case prefix == "" && key == slog.TimeKey:
			rec.time = val
		case prefix == "" && key == slog.LevelKey:
			rec.level = val
		case prefix == "" && key == slog.MessageKey:
			rec.msg = val
		default:
			rec.attrs = append(rec.attrs, [2]string{prefix + key, val})
		}
	}
	_, err := dec.Token() // '}'
	return err == nil
}

// quote quotes a value that would not read as one word.
func quote(v string) string {
	if v == "" || strings.ContainsFunc(v, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r) || r == '"' || r == '=' || r == '\\'
	}) {
		return strconv.Quote(v)
	}
	return v
}
