package window

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/core/activity"
	"github.com/mcptray/mcptray/core/sanitize"
	"github.com/mcptray/mcptray/core/service"
)

// The Activity view shows the activity record (core/activity): what the
// apps did through mcptray's gateway and the person's trust decisions,
// newest first, filtered by app, server, tool, outcome and time, under a
// line that sums up today. The running mcptray reads its record for it
// (service.API's Activity, ActivityNames, VerifyActivity): the window
// never opens the record's file.

// activityRefresh is how often the open Activity view reads the record
// again.
const activityRefresh = 2 * time.Second

// activityLimit is how many rows the view shows at most.
const activityLimit = 500

// The filters' first choices, which pick everything.
const (
	allApps     = "All apps"
	allServers  = "All servers"
	allTools    = "All tools"
	anyOutcome  = "Any outcome"
	spanToday   = "Today"
	spanHour    = "Last hour"
	spanWeek    = "Last 7 days"
	spanAll     = "Everything kept"
	noActivity  = "No activity matches."
	noRecordYet = "There is no activity yet: mcptray records each call an app makes through it."
)

// activityView is the Activity dialog.
type activityView struct {
	d       *dialog.CustomDialog
	summary *widget.Label
	app     *widget.Select
	server  *widget.Select
	tool    *widget.Select
	outcome *widget.Select
	span    *widget.Select
	list    *widget.List
	status  *widget.Label
	stop    chan struct{}
	rows    []activity.Entry
	// details is the last row's details shown, for tests.
	details *dialog.CustomDialog
	detail  *widget.Label
	// readMu is held while the running mcptray is asked, so that one
	// reading at a time keeps names and verified.
	readMu sync.Mutex
	// names are the filters' names as last read, namesAt and namesSince
	// when and for which span: over a long span that reads many rows, so
	// it is done again only every activityNames or when the span changes.
	names      activity.Names
	namesAt    time.Time
	namesSince time.Time
	// gen counts the readings started, on the UI goroutine: only the
	// newest one's answer is shown.
	gen int
	// verified is what the record's verification last said, verifiedAt
	// when: it reads every row, so it is done again only every
	// activityNames.
	verified   string
	verifiedAt time.Time
}

// activityNames is how often the filters' names are read again.
const activityNames = 30 * time.Second

// showActivity opens the Activity view.
func (v *window) showActivity() {
	a := &activityView{stop: make(chan struct{}), summary: wrapped("Reading the record…"), status: caption("")}
	reload := func(string) { v.reloadActivity() }
	a.app = widget.NewSelect([]string{allApps}, reload)
	a.server = widget.NewSelect([]string{allServers}, reload)
	a.tool = widget.NewSelect([]string{allTools}, reload)
	outcomes := []string{anyOutcome}
	for _, o := range activity.Outcomes {
		outcomes = append(outcomes, o.Words())
	}
	a.outcome = widget.NewSelect(outcomes, reload)
	a.span = widget.NewSelect([]string{spanToday, spanHour, spanWeek, spanAll}, reload)
	for _, s := range []*widget.Select{a.app, a.server, a.tool, a.outcome} {
		s.SetSelectedIndex(0)
	}
	a.span.SetSelected(spanToday)
	a.list = widget.NewList(
		func() int { return len(a.rows) },
		func() fyne.CanvasObject {
			l := widget.NewLabel("")
			l.Truncation = fyne.TextTruncateEllipsis
			return l
		},
		func(id widget.ListItemID, o fyne.CanvasObject) {
			if id < len(a.rows) {
				o.(*widget.Label).SetText(activityRow(a.rows[id]))
			}
		},
	)
	a.list.OnSelected = func(id widget.ListItemID) {
		if id < len(a.rows) {
			v.showActivityDetails(a, a.rows[id])
		}
		a.list.UnselectAll()
	}
	filters := container.NewGridWithColumns(5, a.span, a.app, a.server, a.tool, a.outcome)
	top := container.NewVBox(a.summary, filters, a.status)
	a.d = dialog.NewCustom("Activity", "Close", container.NewBorder(top, nil, nil, nil, a.list), v.win)
	a.d.SetOnClosed(func() {
		close(a.stop)
		if v.activity == a {
			v.activity = nil
		}
	})
	a.d.Resize(fyne.NewSize(860, 560))
	v.activity = a
	a.d.Show()
	v.reloadActivity()
	v.appsWork.Add(1) // the background work the window waits for as it closes
	go func() {
		defer v.appsWork.Done()
		t := time.NewTicker(activityRefresh)
		defer t.Stop()
		for {
			select {
			case <-a.stop:
				return
			case <-v.ctx.Done():
				return
			case <-t.C:
				v.do(v.reloadActivity)
			}
		}
	}()
}

// activityFilter is the filter the view's choices make.
func (a *activityView) filter(now time.Time) service.ActivityFilter {
	f := service.ActivityFilter{Limit: activityLimit}
	if s := a.app.Selected; s != allApps && s != "" {
		f.App = s
	}
	if s := a.server.Selected; s != allServers && s != "" {
		f.Server = s
	}
	if s := a.tool.Selected; s != allTools && s != "" {
		f.Tool = s
	}
	for _, o := range activity.Outcomes {
		if a.outcome.Selected == o.Words() {
			f.Outcome = o
		}
	}
	switch a.span.Selected {
	case spanToday:
		f.Since = activity.StartOfDay(now)
	case spanHour:
		f.Since = now.Add(-time.Hour)
	case spanWeek:
		f.Since = now.AddDate(0, 0, -7)
	}
	return f
}

// activityData is what one reading of the record gives the view.
type activityData struct {
	rows    []service.ActivityEntry
	today   service.ActivitySummary
	names   service.ActivityNames
	noneYet bool
	// verified is the record's verification in a line.
	verified string
}

// reloadActivity reads the record again, in the background, and shows it
// in the open view.
func (v *window) reloadActivity() {
	a := v.activity
	if a == nil {
		return
	}
	now := time.Now()
	f := a.filter(now)
	a.gen++
	gen := a.gen
	go func() {
		d, err := v.readActivity(a, f, now)
		if v.ctx.Err() != nil {
			return
		}
		v.do(func() {
			if v.activity == a && a.gen == gen { // an older reading gives way to a newer one
				a.show(d, err)
			}
			v.done("activity")
		})
	}()
}

// readActivity asks the running mcptray for what the view shows: the
// record is its to open. It runs off the UI goroutine.
func (v *window) readActivity(a *activityView, f service.ActivityFilter, now time.Time) (activityData, error) {
	var d activityData
	a.readMu.Lock()
	defer a.readMu.Unlock()
	select {
	case <-a.stop: // closed: nothing more is asked
		return d, nil
	default:
	}
	ctx := v.ctx
	var err error
	if d.rows, err = v.b.Activity(ctx, f); err != nil {
		return d, err
	}
	if d.today, err = v.b.ActivityToday(ctx); err != nil {
		return d, err
	}
	if !a.namesSince.Equal(f.Since) || now.Sub(a.namesAt) >= activityNames {
		if a.names, err = v.b.ActivityNames(ctx, f.Since); err != nil {
			return d, err
		}
		a.namesAt, a.namesSince = now, f.Since
	}
	d.names = a.names
	if now.Sub(a.verifiedAt) >= activityNames {
		res, err := v.b.VerifyActivity(ctx)
		a.verified, a.verifiedAt = verifiedLine(res, err), now
	}
	d.verified = a.verified
	if len(d.rows) == 0 {
		// Nothing matches: perhaps because nothing was recorded yet.
		some, err := v.b.Activity(ctx, service.ActivityFilter{Limit: 1})
		if err != nil {
			return d, err
		}
		d.noneYet = len(some) == 0
	}
	return d, nil
}

// verifiedLine is what the record's verification says, in one line: what
// is proven, that it is chained but not sealed, or what was done to it.
func verifiedLine(res activity.VerifyResult, err error) string {
	if err != nil {
		return "The record could not be verified: " + sanitize.Line(err.Error())
	}
	lines := res.Lines()
	if res.Problem != nil {
		return "The record was altered: " + sanitize.Line(res.Problem.Words) + " (mcptray activity verify says all)."
	}
	if len(lines) == 0 {
		return ""
	}
	return sanitize.Line(lines[0])
}

// show puts what was read into the view.
func (a *activityView) show(d activityData, err error) {
	switch {
	case err != nil:
		a.status.SetText("Cannot read the activity record: " + sanitize.Line(err.Error()))
		return
	case d.noneYet:
		a.summary.SetText(noRecordYet)
		a.status.SetText("")
		return
	}
	a.summary.SetText(sanitize.Line(d.today.Sentence("Today")))
	setOptions(a.app, allApps, d.names.Apps)
	setOptions(a.server, allServers, d.names.Servers)
	setOptions(a.tool, allTools, d.names.Tools)
	a.rows = d.rows
	a.list.Refresh()
	var status string
	switch {
	case len(d.rows) == 0:
		status = noActivity
	case len(d.rows) == activityLimit:
		status = fmt.Sprintf("The newest %d rows; narrow the filters to see others.", activityLimit)
	}
	a.status.SetText(strings.TrimSpace(status + "\n" + d.verified))
}

// setOptions gives s the choice all and names, keeping what was chosen.
func setOptions(s *widget.Select, all string, names []string) {
	opts := []string{all}
	for _, n := range names {
		opts = append(opts, sanitize.Line(n))
	}
	if strings.Join(opts, "\x00") == strings.Join(s.Options, "\x00") {
		return
	}
	s.Options = opts
	s.Refresh()
}

// activityRow is one row of the timeline.
func activityRow(e activity.Entry) string {
	when := e.Time.Local().Format("Jan 2 15:04:05")
	if e.Kind == activity.KindTrust {
		return when + "   " + sanitize.Line(e.TrustWords())
	}
	app := e.App
	if app == "" {
		app = "An unnamed app"
	}
	return fmt.Sprintf("%s   %s   %s › %s   %s", when, sanitize.Line(app), sanitize.Line(e.Server), sanitize.Line(e.Tool), e.Outcome.Words())
}

// activityDetails is everything the record holds of one row, in words.
func activityDetails(e activity.Entry) string {
	var b strings.Builder
	line := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "%s: %s\n", k, v)
		}
	}
	line("When", e.Time.Local().Format("Monday 2 January 2006, 15:04:05.000"))
	if e.Kind == activity.KindTrust {
		line("What", sanitize.Line(e.TrustWords()))
	} else {
		face := map[string]string{"http": "over HTTP", "stdio": "through mcptray stdio"}[e.Face]
		line("App", strings.TrimSpace(sanitize.Line(e.App)+" "+face))
		line("Server", sanitize.Line(e.Server))
		line("Tool", sanitize.Line(e.Tool))
		line("Permission", e.Decision.Words())
		line("Outcome", e.Outcome.Words())
		line("Why", sanitize.Line(e.Reason))
		line("Took", activity.DurationWords(e.Duration))
		line("Result", activity.SizeWords(e.ResultSize))
		what := "Arguments (their shape only)"
		if e.ArgumentsKept {
			what = "Arguments (secrets masked)"
		}
		line(what, sanitize.Line(e.Arguments))
	}
	line("Row", fmt.Sprint(e.ID))
	return strings.TrimSuffix(b.String(), "\n")
}

// showActivityDetails opens one row's details.
func (v *window) showActivityDetails(a *activityView, e activity.Entry) {
	a.detail = wrapped(activityDetails(e))
	a.details = dialog.NewCustom("Activity", "Close", container.NewVScroll(a.detail), v.win)
	a.details.Resize(fyne.NewSize(600, 420))
	a.details.Show()
}
