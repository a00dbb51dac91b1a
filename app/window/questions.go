package window

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/control"
	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

// questionForm is a server's question (MCP elicitation) as a form built
// from the JSON schema of its answer.
type questionForm struct {
	q       control.Question
	d       *dialog.CustomDialog
	fields  []*formField
	problem *widget.Label
	accept  *widget.Button
	decline *widget.Button
	cancel  *widget.Button
	always  *widget.Button // a permission question's Allow always, an egress question's Always
}

// formField is one property of the answer's schema and the widget that
// asks for it.
type formField struct {
	key      string
	label    string
	kind     string // "string", "number", "integer", "boolean"
	required bool
	long     bool           // a text of several lines, such as an answer in the AI model's stead
	entry    *widget.Entry  // string, number, integer
	check    *widget.Check  // boolean
	choice   *widget.Select // a string with an enum
	values   []string       // the enum's values, in choice's order
	min, max *float64
}

// followQuestions shows each question the running mcptray hands over.
func (v *window) followQuestions(ctx context.Context, qs <-chan control.Question) {
	for q := range qs {
		if ctx.Err() != nil {
			return
		}
		v.do(func() {
			v.onQuestion(q)
			v.done("question")
		})
	}
}

// onQuestion queues a new question, or takes away one that waits no
// longer.
func (v *window) onQuestion(q control.Question) {
	if q.Gone {
		if v.question != nil && v.question.q.ID == q.ID {
			v.question.d.Hide()
			v.question = nil
			v.nextQuestion()
			return
		}
		for i, w := range v.questions {
			if w.ID == q.ID {
				v.questions = append(v.questions[:i], v.questions[i+1:]...)
				break
			}
		}
		return
	}
	v.questions = append(v.questions, q)
	v.win.Show()
	v.win.RequestFocus()
	if v.question == nil {
		v.nextQuestion()
	}
}

// nextQuestion shows the oldest question waiting, if any.
func (v *window) nextQuestion() {
	if len(v.questions) == 0 {
		return
	}
	q := v.questions[0]
	v.questions = v.questions[1:]
	if q.Server != "" {
		v.focus(q.Server)
	}
	v.question = v.newQuestionForm(q)
	v.question.d.Show()
}

// newQuestionForm builds the form for q.
func (v *window) newQuestionForm(q control.Question) *questionForm {
	switch q.Kind {
	case control.KindPermission:
		return v.newPermissionForm(q)
	case control.KindEgress:
		return v.newEgressForm(q)
	case control.KindGuard:
		return v.newGuardForm(q)
	}
	f := &questionForm{q: q, problem: wrapped("")}
	f.problem.Importance = widget.DangerImportance
	f.problem.Hide()
	server := sanitize.Line(q.Server)
	msg := wrapped(sanitize.String(q.Params.Message))
	intro := wrapped(fmt.Sprintf("%s asks you this. Your answer goes to %s only.", server, server))
	intro.Importance = widget.LowImportance
	body := container.NewVBox(msg)
	f.fields = fieldsOf(q.Params.RequestedSchema)
	if len(f.fields) > 0 {
		form := widget.NewForm()
		for _, fl := range f.fields {
			item := widget.NewFormItem(fl.label, fl.widget())
			if fl.required {
				item.Text += " *"
			}
			form.AppendItem(item)
		}
		body.Add(form)
		if slices.ContainsFunc(f.fields, func(fl *formField) bool { return fl.required }) {
			body.Add(caption("* needed"))
		}
	}
	body.Add(f.problem)
	body.Add(intro)
	// The form shows whole, up to a height where it scrolls: a scroll
	// with no minimum would shrink it to one line.
	scroll := container.NewVScroll(body)
	scroll.SetMinSize(fyne.NewSize(480, min(body.MinSize().Height, 380)))
	f.d = dialog.NewCustomWithoutButtons(server+" asks", scroll, v.win)
	// A question that asks the person to write something is answered by
	// sending it; any other is accepted.
	accept := "Accept"
	if slices.ContainsFunc(f.fields, func(fl *formField) bool { return fl.long }) {
		accept = "Send answer"
	}
	f.accept = widget.NewButton(accept, func() { v.answer(f, mcp.ElicitationResponseActionAccept) })
	f.accept.Importance = widget.HighImportance
	f.decline = widget.NewButton("Decline", func() { v.answer(f, mcp.ElicitationResponseActionDecline) })
	f.cancel = widget.NewButton("Cancel", func() { v.answer(f, mcp.ElicitationResponseActionCancel) })
	f.d.SetButtons([]fyne.CanvasObject{f.cancel, f.decline, f.accept})
	f.d.Resize(fyne.NewSize(520, 0))
	return f
}

// answer sends the person's answer: Accept with the form's values (once
// they are valid), Decline, or Cancel (the person dismissed the question).
func (v *window) answer(f *questionForm, action mcp.ElicitationResponseAction) {
	res := mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: action}}
	if action == mcp.ElicitationResponseActionAccept {
		content, err := f.values()
		if err != nil {
			f.problem.SetText(err.Error())
			f.problem.Show()
			return
		}
		res.Content = content
	}
	f.d.Hide()
	if v.question == f {
		v.question = nil
	}
	id := f.q.ID
	v.act("Could not answer "+sanitize.Line(f.q.Server), func(ctx context.Context) error { return v.b.Answer(ctx, id, res) })
	v.nextQuestion()
}

// fieldsOf reads the properties of an elicitation's schema: those needed
// first, then the others, each group by name (a decoded schema keeps no
// order).
func fieldsOf(schema any) []*formField {
	s, _ := schema.(map[string]any)
	props, _ := s["properties"].(map[string]any)
	required := map[string]bool{}
	if list, ok := s["required"].([]any); ok {
		for _, r := range list {
			if name, ok := r.(string); ok {
				required[name] = true
			}
		}
	}
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if required[keys[i]] != required[keys[j]] {
			return required[keys[i]]
		}
		return keys[i] < keys[j]
	})
	var out []*formField
	for _, k := range keys {
		p, _ := props[k].(map[string]any)
		out = append(out, newField(k, p, required[k]))
	}
	return out
}

// newField makes the widget for one property, its default filled in.
func newField(key string, p map[string]any, required bool) *formField {
	fl := &formField{key: key, required: required, label: sanitize.Line(key)}
	if t, ok := p["title"].(string); ok && sanitize.Line(t) != "" {
		fl.label = sanitize.Line(t)
	}
	fl.kind, _ = p["type"].(string)
	fl.min, fl.max = number(p["minimum"]), number(p["maximum"])
	def, hasDef := p["default"]
	var labels []string
	if enum, ok := p["enum"].([]any); ok {
		names, _ := p["enumNames"].([]any)
		for i, e := range enum {
			fl.values = append(fl.values, fmt.Sprint(e))
			label := fmt.Sprint(e)
			if i < len(names) {
				label = fmt.Sprint(names[i])
			}
			labels = append(labels, sanitize.Line(label))
		}
	} else if one, ok := p["oneOf"].([]any); ok {
		for _, o := range one {
			m, _ := o.(map[string]any)
			c, ok := m["const"]
			if !ok {
				continue
			}
			fl.values = append(fl.values, fmt.Sprint(c))
			label := fmt.Sprint(c)
			if t, ok := m["title"].(string); ok {
				label = t
			}
			labels = append(labels, sanitize.Line(label))
		}
	}
	switch {
	case len(fl.values) > 0:
		fl.choice = widget.NewSelect(labels, nil)
		if hasDef {
			for i, val := range fl.values {
				if val == fmt.Sprint(def) {
					fl.choice.SetSelectedIndex(i)
				}
			}
		}
	case fl.kind == "boolean":
		fl.check = widget.NewCheck("", nil)
		if b, ok := def.(bool); ok {
			fl.check.SetChecked(b)
		}
	case p[service.LongTextKey] == true:
		fl.long = true
		fl.entry = widget.NewMultiLineEntry()
		fl.entry.Wrapping = fyne.TextWrapWord
		fl.entry.SetMinRowsVisible(5)
	default:
		fl.entry = widget.NewEntry()
		if hasDef && def != nil {
			switch d := def.(type) {
			case float64:
				fl.entry.SetText(strconv.FormatFloat(d, 'f', -1, 64))
			default:
				fl.entry.SetText(sanitize.Line(fmt.Sprint(d)))
			}
		}
	}
	if d, ok := p["description"].(string); ok && fl.entry != nil {
		fl.entry.SetPlaceHolder(sanitize.Line(d))
	}
	return fl
}

func number(v any) *float64 {
	if f, ok := v.(float64); ok {
		return &f
	}
	return nil
}

// widget is what the form shows for fl.
func (fl *formField) widget() fyne.CanvasObject {
	switch {
	case fl.choice != nil:
		return fl.choice
	case fl.check != nil:
		return fl.check
	}
	return fl.entry
}

// values reads the form into the answer's content, or says in plain words
// what is missing or wrong.
func (f *questionForm) values() (map[string]any, error) {
	out := map[string]any{}
	var problems []string
	for _, fl := range f.fields {
		switch {
		case fl.choice != nil:
			i := fl.choice.SelectedIndex()
			if i < 0 {
				if fl.required {
					problems = append(problems, "Choose "+fl.label+".")
				}
				continue
			}
			out[fl.key] = fl.values[i]
		case fl.check != nil:
			out[fl.key] = fl.check.Checked
		default:
			text := strings.TrimSpace(fl.entry.Text)
			if text == "" {
				if fl.required {
					problems = append(problems, "Fill in "+fl.label+".")
				}
				continue
			}
			val, err := fl.parse(text)
			if err != nil {
				problems = append(problems, err.Error())
				continue
			}
			out[fl.key] = val
		}
	}
	if len(problems) > 0 {
		return nil, errors.New(strings.Join(problems, "\n"))
	}
	return out, nil
}

// parse reads a number or an integer, within the schema's bounds.
func (fl *formField) parse(text string) (any, error) {
	switch fl.kind {
	case "integer":
		i, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s must be a whole number, like 42.", fl.label)
		}
		if err := fl.inBounds(float64(i)); err != nil {
			return nil, err
		}
		return i, nil
	case "number":
		f, err := strconv.ParseFloat(text, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("%s must be a number, like 3.5.", fl.label)
		}
		if err := fl.inBounds(f); err != nil {
			return nil, err
		}
		return f, nil
	}
	return text, nil
}

func (fl *formField) inBounds(n float64) error {
	switch {
	case fl.min != nil && n < *fl.min:
		return fmt.Errorf("%s must be at least %v.", fl.label, *fl.min)
	case fl.max != nil && n > *fl.max:
		return fmt.Errorf("%s must be at most %v.", fl.label, *fl.max)
	}
	return nil
}

// caption is a small, quiet label.
func caption(text string) *widget.Label {
	l := widget.NewLabel(text)
	l.Importance = widget.LowImportance
	return l
}
