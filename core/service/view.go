package service

import (
	"context"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/conn"
)

// Snapshot returns everything a front end shows, now.
func (s *Service) Snapshot(ctx context.Context) (Snapshot, error) {
	s.mu.Lock()
	set, paused := s.set, s.paused
	s.mu.Unlock()
	live := s.conns.Report()

	snap := Snapshot{
		Servers:  make([]Server, 0, len(set.Servers)+len(set.Suppressed)+1),
		Problems: append([]config.Problem{}, set.Problems...),
		Folders:  append([]string{}, set.Folders...),
		Keychain: Keychain(s.signins.Keychain()),
		Paused:   paused,
		Version:  Version,
		Gateway:  set.Gateway,
	}
	for i := range set.Servers {
		e := &set.Servers[i]
		sv := fromEntry(e)
		info, ok, offered, review := s.toldInfo(live, e.Name)
		switch {
		case ok:
			sv.State, sv.Since = info.Status.State, info.Status.Since
			sv.Tools, sv.Review, sv.Stderr, sv.Failures = offered, review, info.Stderr, info.Failures
			sv.PromptsChanged = info.PromptsChanged
			sv.Reason, sv.Fix = explain(e, info.Status, info.Stderr)
		case paused && e.Runnable():
			sv.State = conn.Disabled
			sv.Reason = "paused"
			sv.Fix = Fix{Label: "Resume all"}
		default:
			// Not applied yet (a reload under way): say what it will be.
			st := conn.Status{State: expectedState(e)}
			sv.State = st.State
			sv.Reason, sv.Fix = explain(e, st, "")
		}
		sv.Sandbox = s.sandboxView(e, sv.Stderr+"\n"+info.Status.Err, false)
		snap.Servers = append(snap.Servers, sv)
	}
	// The built-in server is in the manager only.
	for _, info := range live.Servers {
		if info.Transport == config.InProcess {
			snap.Servers = append(snap.Servers, Server{
				Name: info.Name, ConfigName: info.Name, Scope: info.Scope, Origin: info.Origin,
				Transport: info.Transport, Approval: config.NotNeeded, Runnable: true,
				State: info.Status.State, Since: info.Status.Since, Reason: info.Status.Err, Tools: info.Tools,
			})
		}
	}
	for i := range set.Suppressed {
		e := &set.Suppressed[i]
		sv := fromEntry(e)
		sv.State = conn.Disabled
		sv.Reason = e.Suppressed
		snap.Servers = append(snap.Servers, sv)
	}
	s.packageReasons(&snap)
	s.readPins(&snap)
	return snap, nil
}

// expectedState is the state a server will take once applied.
func expectedState(e *config.Entry) conn.State {
	switch {
	case e.Approval == config.Undecided:
		return conn.AwaitingApproval
	case e.Approval == config.Denied, e.Disabled:
		return conn.Disabled
	}
	return conn.Pending
}

// fromEntry is what the config says of a server, before its state.
func fromEntry(e *config.Entry) Server {
	return Server{
		Name: e.Name, NameHidden: e.NameHidden, ConfigName: e.ConfigName, Scope: e.Scope, Origin: e.Origin,
		Transport: e.Transport, Signature: e.Signature,
		Command: e.Command, Args: e.Args, Cwd: e.Cwd, EnvNames: e.EnvNames(), EnvFile: e.EnvFile,
		URL: e.URL, HeaderNames: e.HeaderNames(), SecretNames: e.SecretNames(), PlainKeys: e.PlainKeys,
		Approval: e.Approval, Disabled: e.Disabled, Runnable: e.Runnable(),
		Suppressed: e.Suppressed, SuppressedBy: e.SuppressedBy, Bundle: e.Bundle,
	}
}
