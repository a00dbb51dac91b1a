package service

import (
	"context"
	"time"

	"github.com/mcptray/mcptray/core/activity"
)

// The record's rows, the names in them and its verification reach the
// window through these, as everything else does: only the running
// mcptray opens the record's file.

// ActivityFilter picks rows of the activity record: by time, app, server,
// tool, outcome or kind, newest first unless it says otherwise.
type ActivityFilter = activity.Filter

// ActivityEntry is one row of the activity record: an app's call or a
// trust decision.
type ActivityEntry = activity.Entry

// ActivityNames are the apps, servers and tools the record holds calls
// of, for a front end's filters.
type ActivityNames = activity.Names

// ActivityVerification is what checking the record's chain and seals
// found (its Lines say it in words).
type ActivityVerification = activity.VerifyResult

// maxActivityRows bounds the rows one Activity answer holds, whatever the
// filter asks for.
const maxActivityRows = 1000

// recordOrError is the record, or the error that says this mcptray keeps
// none.
func (s *Service) recordOrError() (*activity.Log, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	l := s.activity.Load()
	if l == nil {
		return nil, newError(Other, "this mcptray keeps no activity record: it could not open it (mcptray logs says why)")
	}
	return l, nil
}

// Activity returns the activity record's rows f picks, at most
// maxActivityRows.
func (s *Service) Activity(ctx context.Context, f ActivityFilter) ([]ActivityEntry, error) {
	l, err := s.recordOrError()
	if err != nil {
		return nil, err
	}
	if f.Limit <= 0 || f.Limit > maxActivityRows {
		f.Limit = maxActivityRows
	}
	rows, err := l.Query(ctx, f)
	if err != nil {
		return nil, wrapError(err)
	}
	return rows, nil
}

// ActivityNames returns the apps, servers and tools of the calls the
// record holds since then.
func (s *Service) ActivityNames(ctx context.Context, since time.Time) (ActivityNames, error) {
	l, err := s.recordOrError()
	if err != nil {
		return ActivityNames{}, err
	}
	n, err := l.Names(ctx, since)
	if err != nil {
		return ActivityNames{}, wrapError(err)
	}
	return n, nil
}

// VerifyActivity checks the record's chain and seals with the keys the
// running mcptray keeps, and says what is proven or what was done to it.
// It reads every row.
func (s *Service) VerifyActivity(ctx context.Context) (ActivityVerification, error) {
	l, err := s.recordOrError()
	if err != nil {
		return ActivityVerification{}, err
	}
	res, err := l.Verify(ctx)
	if err != nil {
		return ActivityVerification{}, wrapError(err)
	}
	return res, nil
}
