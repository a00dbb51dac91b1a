package tools

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/sanitize"
)

// SanitizeResult removes hidden characters from the text a tool returned,
// in place, before a person or a model reads it: its text, the MIME types
// and links it names, and every string in its structured content. The
// bytes of images, audio and binary resources pass unchanged: they are not
// read as text. It reports whether the text held characters that hide
// text or change its direction (sanitize.Hides): the server tried to tell
// the model something a person would not see.
func SanitizeResult(r *mcp.CallToolResult) (hid bool) {
	if r == nil {
		return false
	}
	for i, c := range r.Content {
		switch c := c.(type) {
		case mcp.TextContent:
			// What String leaves as it was hides nothing (Hides looks
			// for what String removes), and is not put back: boxing it
			// again, and looking through it once more, cost every
			// call's answer.
			if text := sanitize.String(c.Text); text != c.Text {
				hid = hid || sanitize.Hides(c.Text)
				c.Text = text
				r.Content[i] = c
			}
		case *mcp.TextContent:
			if text := sanitize.String(c.Text); text != c.Text {
				hid = hid || sanitize.Hides(c.Text)
				c.Text = text
			}
		case mcp.EmbeddedResource:
			r.Content[i] = sanitizeEmbedded(c, &hid)
		case *mcp.EmbeddedResource:
			*c = sanitizeEmbedded(*c, &hid)
		case mcp.ImageContent:
			c.MIMEType = sanitize.Line(c.MIMEType)
			r.Content[i] = c
		case *mcp.ImageContent:
			c.MIMEType = sanitize.Line(c.MIMEType)
		case mcp.AudioContent:
			c.MIMEType = sanitize.Line(c.MIMEType)
			r.Content[i] = c
		case *mcp.AudioContent:
			c.MIMEType = sanitize.Line(c.MIMEType)
		case mcp.ResourceLink:
			c.URI, c.Name, c.MIMEType = sanitize.Line(c.URI), sanitize.Line(c.Name), sanitize.Line(c.MIMEType)
			r.Content[i] = c
		}
	}
	r.StructuredContent = sanitizeValue(r.StructuredContent, &hid)
	return hid
}

// sanitizeValue sanitises every string in a decoded JSON value, keys too,
// noting in hid whether one hid text.
func sanitizeValue(v any, hid *bool) any {
	switch v := v.(type) {
	case string:
		*hid = *hid || sanitize.Hides(v)
		return sanitize.String(v)
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			*hid = *hid || sanitize.Hides(k)
			out[sanitize.Line(k)] = sanitizeValue(x, hid)
		}
		return out
	case []any:
		for i, x := range v {
			v[i] = sanitizeValue(x, hid)
		}
		return v
	}
	return v
}

func sanitizeEmbedded(e mcp.EmbeddedResource, hid *bool) mcp.EmbeddedResource {
	switch rc := e.Resource.(type) {
	case mcp.TextResourceContents:
		*hid = *hid || sanitize.Hides(rc.Text)
		rc.Text = sanitize.String(rc.Text)
		e.Resource = rc
	case *mcp.TextResourceContents:
		*hid = *hid || sanitize.Hides(rc.Text)
		rc.Text = sanitize.String(rc.Text)
	}
	return e
}

type hiddenNoteKey struct{}

// A HiddenNote learns that SanitizeResult removed hidden text from a
// call's result where the call was made: whoever hands the result on (the
// gateway, for the call's record) puts one in the call's context.
type HiddenNote interface{ NoteHidden() }

// WithHiddenNote returns ctx carrying note, which NoteHidden tells.
func WithHiddenNote(ctx context.Context, note HiddenNote) context.Context {
	return context.WithValue(ctx, hiddenNoteKey{}, note)
}

// HiddenNoteOf is the note ctx carries, or nil.
func HiddenNoteOf(ctx context.Context) HiddenNote {
	note, _ := ctx.Value(hiddenNoteKey{}).(HiddenNote)
	return note
}

// NoteHidden tells the note ctx carries, if any, that a result hid text.
func NoteHidden(ctx context.Context) {
	if note := HiddenNoteOf(ctx); note != nil {
		note.NoteHidden()
	}
}
