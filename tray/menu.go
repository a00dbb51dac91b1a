package tray

import (
	"fmt"
	"strings"

	"github.com/mcptray/mcptray/assets"
	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

// Menu is what the tray shows for one snapshot: a plain value, so that what
// a person sees is tested without a desktop.
type Menu struct {
	// Icon is the icon's state, one of assets.States (see IconState).
	Icon string
	// Tooltip is shown when the pointer rests on the icon.
	Tooltip string
	// Items are the menu's lines, top to bottom.
	Items []Item
}

// Item is one line of the tray menu.
type Item struct {
	// Label is the line's text, already sanitised and shortened.
	Label string
	// Action is what clicking it does.
	Action Action
	// Server is the server the action is for, by its name in mcptray (not
	// sanitised: it is passed back to the service, never shown), or "".
	Server string
	// Question is the id of the question an answer's item answers, or "".
	Question string
	// Set is the set SetTrayAction makes the tray's ("all": every
	// server), by its name in mcptray, or "".
	Set string
	// Disabled items are greyed out and do nothing.
	Disabled bool
	// Separator items are a line between groups; they have no label.
	Separator bool
}

// Action is what clicking a menu item does.
type Action int

// The actions of menu items.
const (
	// NoAction is for text that is only read, like the summary.
	NoAction Action = iota
	// OpenAction opens mcptray's window, at Item.Server when it is set.
	OpenAction
	// SignInAction starts signing in to Item.Server.
	SignInAction
	// RetryAction tries Item.Server again now.
	RetryAction
	// PauseAction stops every server until ResumeAction.
	PauseAction
	// ResumeAction starts the servers again after PauseAction.
	ResumeAction
	// QuitAction ends mcptray.
	QuitAction
	// AllowOnceAction, AllowAlwaysAction and DenyAction answer the
	// network proxy's question Item.Question (questions.go).
	AllowOnceAction
	AllowAlwaysAction
	DenyAction
	// SetTrayAction makes Item.Set the tray's set (sets.go).
	SetTrayAction
)

// The longest texts the menu shows, in characters: a tray menu is narrow.
const (
	maxNameLen   = 32
	maxReasonLen = 48
	// maxServerItems is how many servers the menu lists before "N more…".
	maxServerItems = 12
	// maxFixItems is how many "Sign in to…" or "Retry…" lines the menu
	// shows before it folds them into one that opens the window.
	maxFixItems = 5
)

// IconState returns the state of the tray icon for s, one of assets.States:
// the worst of its servers' states, in the order assets.States gives from
// best to worst:
//
//  1. assets.StatePaused when the person paused everything, whatever the
//     servers say: nothing runs, and that is the one thing to know.
//  2. assets.StateFailing when any server failed. A failure beats a server
//     waiting for the person: both need them (the menu offers Retry and
//     Sign in side by side), but a failure is something that used to work
//     and broke, which is what the icon must not hide.
//  3. assets.StateAttention when any server waits for approval or a sign-in,
//     or failed only because it needs a secret the person has not entered
//     (like a sign-in, it waits for them; nothing broke).
//  4. assets.StateOK otherwise, including when there are no servers.
//
// Suppressed servers do not count: they never run.
func IconState(s service.Snapshot) string {
	if s.Paused {
		return assets.StatePaused
	}
	n := s.Counts()
	needSecret := 0
	for _, sv := range s.Servers {
		if sv.Suppressed == "" && sv.State == service.Failed && sv.Fix.Action == service.SetSecretAction {
			needSecret++
		}
	}
	switch {
	case n[service.Failed] > needSecret:
		return assets.StateFailing
	case n[service.AwaitingApproval] > 0 || n[service.NeedsAuth] > 0 || needSecret > 0 || anyHeld(s):
		return assets.StateAttention
	}
	return assets.StateOK
}

// Build returns the tray's icon state, tooltip and menu for s. In order, the
// menu has a summary line, the servers with their states, what a person can
// do about them (review approvals, sign in, retry), a line when sign-ins
// cannot be kept, and Open mcptray, Pause all or Resume all, and Quit.
// Suppressed servers are neither listed nor counted, and neither is
// mcptray's own built-in server: it is always there and tells a person
// nothing.
func Build(s service.Snapshot) Menu {
	var running []service.Server
	for _, sv := range s.Servers {
		if sv.Suppressed == "" && !sv.BuiltIn() {
			running = append(running, sv)
		}
	}
	summary := s.Summary()
	m := Menu{
		Icon:    IconState(s),
		Tooltip: "mcptray: " + summary,
	}
	add := func(it Item) { m.Items = append(m.Items, it) }
	sep := func() { add(Item{Separator: true}) }

	add(Item{Label: summary, Disabled: true})
	if len(running) > 0 {
		sep()
		for i, sv := range running {
			if i == maxServerItems {
				add(Item{Label: fmt.Sprintf("%d more…", len(running)-i), Action: OpenAction})
				break
			}
			add(Item{Label: serverLine(sv), Action: OpenAction, Server: sv.Name})
		}
	}
	sep()

	var waiting, signIn, secrets, failed []service.Server
	for _, sv := range running {
		switch {
		case sv.State == service.AwaitingApproval:
			waiting = append(waiting, sv)
		case sv.State == service.NeedsAuth:
			signIn = append(signIn, sv)
		case sv.State == service.Failed && sv.Fix.Action == service.SetSecretAction:
			// Retrying would fail the same way: the window asks for it.
			secrets = append(secrets, sv)
		case sv.State == service.Failed:
			failed = append(failed, sv)
		}
	}
	if len(waiting) > 0 {
		add(Item{
			Label:  fmt.Sprintf("Review %s waiting for approval…", servers(len(waiting))),
			Action: OpenAction, Server: waiting[0].Name,
		})
	}
	m.Items = append(m.Items, heldItems(running)...)
	if s.Updates > 0 {
		what := "1 update"
		if s.Updates > 1 {
			what = fmt.Sprintf("%d updates", s.Updates)
		}
		// What each would change is read before it runs: mcptray updates.
		add(Item{Label: "Review " + what + " of servers' packages…", Action: OpenAction})
	}
	if len(signIn) > maxFixItems {
		add(Item{
			Label:  fmt.Sprintf("Sign in to %s…", servers(len(signIn))),
			Action: OpenAction, Server: signIn[0].Name,
		})
	} else {
		for _, sv := range signIn {
			add(Item{Label: "Sign in to " + name(sv) + "…", Action: SignInAction, Server: sv.Name})
		}
	}
	for _, sv := range secrets {
		what := "a secret"
		if sv.Fix.Secret != "" {
			what = sanitize.Line(sv.Fix.Secret)
		}
		add(Item{Label: "Enter " + what + " for " + name(sv) + "…", Action: OpenAction, Server: sv.Name})
	}
	if len(failed) > maxFixItems {
		add(Item{
			Label:  fmt.Sprintf("Review %s that failed…", servers(len(failed))),
			Action: OpenAction, Server: failed[0].Name,
		})
	} else {
		for _, sv := range failed {
			add(Item{Label: "Retry " + name(sv), Action: RetryAction, Server: sv.Name})
		}
	}
	if !s.Keychain.Available {
		add(Item{Label: "Keychain unavailable — sign-ins can't be kept", Action: OpenAction})
	}
	add(Item{Label: "Open mcptray", Action: OpenAction})
	if s.Paused {
		add(Item{Label: "Resume all", Action: ResumeAction})
	} else {
		add(Item{Label: "Pause all", Action: PauseAction})
	}
	add(Item{Label: "Quit", Action: QuitAction})
	return m
}

// serverLine returns a server's menu line: its name and its state in words,
// with the reason when it failed.
func serverLine(sv service.Server) string {
	var state string
	switch sv.State {
	case service.Connected:
		state = "connected"
	case service.Pending:
		state = "starting…"
	case service.AwaitingApproval:
		state = "waiting for approval"
	case service.NeedsAuth:
		state = "needs sign-in"
	case service.Disabled:
		state = "off"
	case service.Failed:
		state = "failed"
		if r := shorten(sanitize.Line(sv.Reason), maxReasonLen); r != "" {
			state += ": " + r
		}
	default:
		state = sanitize.Line(sv.State.String())
	}
	return name(sv) + " — " + state
}

// name returns a server's name fit for the menu.
func name(sv service.Server) string {
	return shorten(sanitize.Line(sv.Name), maxNameLen)
}

// servers returns "1 server" or "N servers".
func servers(n int) string {
	if n == 1 {
		return "1 server"
	}
	return fmt.Sprintf("%d servers", n)
}

// shorten cuts s to at most max characters, ending with "…" when cut.
func shorten(s string, max int) string {
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	return strings.TrimRight(string(r[:max-1]), " ") + "…"
}
