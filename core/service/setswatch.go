package service

// watchSets reads sets.json again when the person edits it by hand
// (sets.Keeper.Watch): the gateway follows the sets and tells the apps
// whose set changed; the front ends hear of it, and of a file refused.
func (s *Service) watchSets() {
	if s.opts.Sets == nil {
		return
	}
	run, err := s.opts.Sets.Watch(s.ctx, s.log, s.opts.Debounce, func() { s.notices.Publish(struct{}{}) })
	if err != nil {
		s.log.Warn("the sets' file, edited by hand, is read after a restart", "err", err)
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		run()
	}()
}
