package egress

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestAllowedHostPasses: a host on the server's list is reached through a
// CONNECT tunnel (a real HTTPS server under a test name the proxy
// resolves) and through plain HTTP forwarding, with nothing asked.
func TestAllowedHostPasses(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	plainSite := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "plain %s %s auth=%q", r.Host, r.URL.Path, r.Header.Get("Proxy-Authorization"))
	}))
	t.Cleanup(plainSite.Close)
	plainPort := plainSite.Listener.Addr().(*net.TCPAddr).Port
	a := newAsker()
	l := &lists{hosts: map[string][]string{"weather": {s.Dest("api.test.example"), "other.test.example:" + strconv.Itoa(plainPort)}}}
	p := startProxy(t, Options{Hosts: l.Hosts, Ask: a.Ask})
	env := p.Env("weather")
	body, err := get(client(env, s), s.URL("api.test.example"))
	if err != nil || body != "hello from "+s.Dest("api.test.example") {
		t.Fatalf("through the tunnel: %q, %v", body, err)
	}
	u, _ := url.Parse(env["HTTP_PROXY"])
	c := &http.Client{Timeout: deadline, Transport: &http.Transport{Proxy: http.ProxyURL(u)}}
	res, err := c.Get("http://other.test.example:" + strconv.Itoa(plainPort) + "/path")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if want := fmt.Sprintf(`plain other.test.example:%d /path auth=""`, plainPort); string(b) != want {
		t.Errorf("forwarded: %q, want %q (the credential must not go on)", b, want)
	}
	a.none(t)
	if r := p.Refusals("weather"); len(r) != 0 {
		t.Errorf("refusals: %+v", r)
	}

	// A plain request elsewhere is asked about, and refused in words.
	go func() { q := <-a.questions; q.answer <- Deny }()
	res, err = c.Get("http://third.test.example:" + strconv.Itoa(plainPort) + "/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden || !strings.Contains(string(b), "mcptray did not let weather reach third.test.example:") {
		t.Errorf("a plain request elsewhere: %s %q", res.Status, b)
	}
}

// TestAskOnceAlwaysDeny: a host not on the list waits while the person is
// asked; Allow once lets the server reach it until its session ends,
// Always is remembered, Deny refuses with 403, words and a record, and
// the server's next connections there are refused without asking again.
func TestAskOnceAlwaysDeny(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	a := newAsker()
	l := &lists{hosts: map[string][]string{}}
	p := startProxy(t, Options{Hosts: l.Hosts, Ask: a.Ask, Remember: l.Remember})
	env := p.Env("weather")
	c := client(env, s)
	fetch := func(name string) <-chan error {
		out := make(chan error, 1)
		go func() {
			body, err := get(c, s.URL(name))
			if err == nil && body != "hello from "+s.Dest(name) {
				err = fmt.Errorf("body %q", body)
			} else if err != nil {
				err = fmt.Errorf("%w: %s", err, body)
			}
			out <- err
		}()
		return out
	}

	// Allow once.
	done := fetch("api.test.example")
	q := a.next(t)
	if q.Server != "weather" || q.Host != "api.test.example" || q.Port != s.Port || q.Dest != s.Dest("api.test.example") || q.Local {
		t.Errorf("question = %+v", q.Question)
	}
	if want := "Allow weather to reach " + s.Dest("api.test.example") + "?"; q.Message() != want {
		t.Errorf("message = %q, want %q", q.Message(), want)
	}
	select {
	case err := <-done:
		t.Fatalf("the connection went ahead before the answer: %v", err)
	default:
	}
	q.answer <- AllowOnce
	if err := within(t, done, "the connection allowed once"); err != nil {
		t.Fatal(err)
	}
	if err := within(t, fetch("api.test.example"), "the second connection"); err != nil {
		t.Fatal(err)
	}
	a.none(t)
	if got := l.Hosts("weather"); len(got) != 0 {
		t.Errorf("Allow once was remembered: %v", got)
	}

	// A new session (the server restarted) asks again.
	c = client(p.Env("weather"), s)
	done = fetch("api.test.example")
	a.next(t).answer <- Deny
	if err := within(t, done, "the denied connection"); err == nil {
		t.Fatal("a denied connection went through")
	}

	// Always.
	done = fetch("other.test.example")
	a.next(t).answer <- AllowAlways
	if err := within(t, done, "the connection allowed always"); err != nil {
		t.Fatal(err)
	}
	if got := l.Hosts("weather"); len(got) != 1 || got[0] != s.Dest("other.test.example") {
		t.Errorf("after Always the list is %v", got)
	}
	c = client(p.Env("weather"), s) // a new session: the list, not the session, lets it through
	if err := within(t, fetch("other.test.example"), "the connection after Always"); err != nil {
		t.Fatal(err)
	}
	a.none(t)

	// Deny: 403 in words, a record, and no second question.
	proxyURL := p.Env("weather")["HTTPS_PROXY"]
	replied := connect(proxyURL, s.Dest("third.test.example"))
	a.next(t).answer <- Deny
	r := within(t, replied, "the refused CONNECT")
	allow := "mcptray sandbox allow weather --host " + s.Dest("third.test.example")
	if r.err != nil || r.status != http.StatusForbidden || !strings.Contains(r.body, "you denied it") || !strings.Contains(r.body, allow) {
		t.Errorf("denied: %+v", r)
	}
	r = within(t, connect(proxyURL, s.Dest("third.test.example")), "the second refused CONNECT")
	if r.status != http.StatusForbidden {
		t.Errorf("the second connection after Deny: %+v", r)
	}
	a.none(t)
	refused := p.Refusals("weather")
	last := refused[len(refused)-1]
	if last.Server != "weather" || last.Host != "third.test.example" || last.Port != s.Port || last.Dest != s.Dest("third.test.example") ||
		last.Reason != "you denied it" || last.Count != 2 || last.Command() != allow || time.Since(last.Time) > time.Minute {
		t.Errorf("the refusal: %+v", last)
	}
	if len(refused) != 2 || refused[0].Dest != s.Dest("api.test.example") {
		t.Errorf("refusals: %+v", refused)
	}
}

// TestSharedQuestion: connections to the same unknown host while the
// question is open wait on that one question, and all go on its answer.
func TestSharedQuestion(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	a := newAsker()
	l := &lists{hosts: map[string][]string{}, calls: make(chan string, 16)}
	p := startProxy(t, Options{Hosts: l.Hosts, Ask: a.Ask})
	proxyURL := p.Env("weather")["HTTPS_PROXY"]
	var replies []<-chan reply
	for range 3 {
		replies = append(replies, connect(proxyURL, s.Dest("api.test.example")))
	}
	for range 3 {
		within(t, l.calls, "a connection reading the list")
	}
	q := a.next(t)
	a.none(t)
	q.answer <- AllowOnce
	for _, ch := range replies {
		if r := within(t, ch, "a connection"); r.err != nil || r.status != http.StatusOK {
			t.Errorf("a connection sharing the question: %+v", r)
		}
	}
	a.none(t)
}

// TestOpenQuestionsBounded: a server gets at most three questions open at
// once; a connection to a fourth host is refused at once, and asked about
// once one is answered.
func TestOpenQuestionsBounded(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	a := newAsker()
	p := startProxy(t, Options{Ask: a.Ask})
	proxyURL := p.Env("weather")["HTTPS_PROXY"]
	var open []asked
	var replies []<-chan reply
	for _, name := range testNames[:3] {
		replies = append(replies, connect(proxyURL, s.Dest(name)))
		open = append(open, a.next(t))
	}
	r := within(t, connect(proxyURL, s.Dest(testNames[3])), "the fourth host's CONNECT")
	if r.status != http.StatusForbidden || !strings.Contains(r.body, "already asking you about 3 other hosts") {
		t.Errorf("a fourth host: %+v", r)
	}
	a.none(t)
	open[0].answer <- Deny
	within(t, replies[0], "the first CONNECT")
	replied := connect(proxyURL, s.Dest(testNames[3]))
	a.next(t).answer <- AllowOnce
	if r := within(t, replied, "the fourth host's CONNECT again"); r.status != http.StatusOK {
		t.Errorf("the fourth host once a question is answered: %+v", r)
	}
	for i, q := range open[1:] {
		q.answer <- Deny
		within(t, replies[i+1], "a CONNECT")
	}
}

// TestNoAnswer: nobody answering within the timeout is a no; so is no
// window to ask in, at once.
func TestNoAnswer(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	a := newAsker()
	p := startProxy(t, Options{Ask: a.Ask, AskTimeout: 200 * time.Millisecond})
	replied := connect(p.Env("weather")["HTTPS_PROXY"], s.Dest("api.test.example"))
	q := a.next(t)
	within(t, q.ctx.Done(), "the question's end")
	r := within(t, replied, "the unanswered CONNECT")
	if r.status != http.StatusForbidden || !strings.Contains(r.body, "nobody answered mcptray's question within 200ms") {
		t.Errorf("unanswered: %+v", r)
	}

	for name, ask := range map[string]AskFunc{
		"no Ask": nil,
		"ErrNoWindow": func(context.Context, Question) (Reply, error) {
			return Reply{Answer: Deny}, fmt.Errorf("opening the window: %w", ErrNoWindow)
		},
	} {
		p := startProxy(t, Options{Ask: ask})
		r := within(t, connect(p.Env("weather")["HTTPS_PROXY"], s.Dest("api.test.example")), name)
		if r.status != http.StatusForbidden || !strings.Contains(r.body, "there is no mcptray window to ask you in") {
			t.Errorf("%s: %+v", name, r)
		}
	}
}

// TestCredentials: a request without the server's credential, with a
// wrong one, or with one of an ended session gets 407.
func TestCredentials(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	l := &lists{hosts: map[string][]string{"weather": {s.Dest("api.test.example")}, "my server": {s.Dest("api.test.example")}}}
	p := startProxy(t, Options{Hosts: l.Hosts})
	good := p.Env("weather")["HTTPS_PROXY"]
	if r := within(t, connect(good, s.Dest("api.test.example")), "CONNECT"); r.status != http.StatusOK {
		t.Fatalf("with the credential: %+v", r)
	}
	u, _ := url.Parse(good)
	noAuth := "http://" + u.Host
	wrong := "http://" + url.UserPassword("weather", "not-the-token").String() + "@" + u.Host
	spaced := p.Env("my server")["HTTPS_PROXY"]
	if !strings.Contains(spaced, "my%20server:") {
		t.Errorf("a name with a space is not escaped in the URL: %s", spaced)
	}
	if r := within(t, connect(spaced, s.Dest("api.test.example")), "CONNECT"); r.status != http.StatusOK {
		t.Errorf("a server whose name has a space: %+v", r)
	}
	old := good
	p.Env("weather") // a new session
	for name, proxyURL := range map[string]string{"none": noAuth, "wrong": wrong, "an ended session's": old} {
		r := within(t, connect(proxyURL, s.Dest("api.test.example")), name)
		if r.status != http.StatusProxyAuthRequired || !strings.HasPrefix(r.header.Get("Proxy-Authenticate"), "Basic") {
			t.Errorf("%s credential: %+v", name, r)
		}
	}
	p.Forget("my server")
	if r := within(t, connect(spaced, s.Dest("api.test.example")), "CONNECT"); r.status != http.StatusProxyAuthRequired {
		t.Errorf("after Forget: %+v", r)
	}
}

// TestLocalIsAsked: this computer is never reached through a bare name
// or a wildcard: 127.0.0.1 and localhost are asked about with their port,
// an exact host:port entry lets them through, and the proxy's own port is
// refused without asking.
func TestLocalIsAsked(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	a := newAsker()
	port := strconv.Itoa(s.Port)
	l := &lists{hosts: map[string][]string{"weather": {"127.0.0.1", "localhost", "*.localhost", "*.test.example"}}}
	p := startProxy(t, Options{Hosts: l.Hosts, Ask: a.Ask})
	proxyURL := p.Env("weather")["HTTPS_PROXY"]
	for _, target := range []string{"127.0.0.1:" + port, "localhost:" + port, "[::1]:" + port} {
		replied := connect(proxyURL, target)
		q := a.next(t)
		if !q.Local || q.Port != s.Port || !strings.HasSuffix(q.Dest, ":"+port) {
			t.Errorf("%s: question %+v", target, q.Question)
		}
		q.answer <- Deny
		if r := within(t, replied, target); r.status != http.StatusForbidden {
			t.Errorf("%s: %+v", target, r)
		}
	}
	// The same destination written otherwise: the session's Deny holds.
	if r := within(t, connect(proxyURL, "LocalHost.:"+port), "CONNECT"); r.status != http.StatusForbidden {
		t.Errorf("localhost written otherwise: %+v", r)
	}
	a.none(t)
	l.Remember("weather", "127.0.0.1:"+port, "")
	if r := within(t, connect(proxyURL, "127.0.0.1:"+port), "CONNECT"); r.status != http.StatusOK {
		t.Errorf("with an exact entry: %+v", r)
	}
	own := "127.0.0.1:" + strconv.Itoa(p.Port())
	l.Remember("weather", own, "")
	if r := within(t, connect(proxyURL, own), "CONNECT to the proxy"); r.status != http.StatusForbidden || !strings.Contains(r.body, "mcptray's own proxy") {
		t.Errorf("the proxy's own port: %+v", r)
	}
	// Not on the list, it is refused all the same, and nobody is asked.
	if r := within(t, connect(proxyURL, "localhost:"+strconv.Itoa(p.Port())), "CONNECT to the proxy"); r.status != http.StatusForbidden || !strings.Contains(r.body, "mcptray's own proxy") {
		t.Errorf("the proxy's own port, not on the list: %+v", r)
	}
	a.none(t)
}

// TestOwnPortElsewhere: another program listening at the proxy's port
// on another address of this computer is that program, not the proxy: a
// server allowed to reach it reaches it. (Ports are per address: a test
// server on 192.0.2.2 was once given the proxy's port and refused as
// "mcptray's own proxy".)
func TestOwnPortElsewhere(t *testing.T) {
	t.Parallel()
	l := &lists{hosts: map[string][]string{}}
	p := startProxy(t, Options{Hosts: l.Hosts, Ask: newAsker().Ask})
	other := net.JoinHostPort("127.0.0.2", strconv.Itoa(p.Port()))
	l.Remember("weather", other, "") // a local destination is let through by its exact entry
	ln, err := net.Listen("tcp", other)
	if err != nil {
		t.Skipf("no listener at %s: %v", other, err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	if r := within(t, connect(p.Env("weather")["HTTPS_PROXY"], other), "CONNECT"); r.status != http.StatusOK {
		t.Errorf("%s, allowed, with the proxy's port: %+v", other, r)
	}
}

// TestOwnPortInAnySpelling: a server that tries to reach the proxy
// through itself, in any spelling of its address that the system connects
// to it (the mapped IPv6 form, the unspecified addresses, localhost in
// another case, a name that resolves to it), is refused as the proxy, even
// with each spelling on its list, and nobody is asked. (Only another
// address of this computer at the proxy's port is another program.)
func TestOwnPortInAnySpelling(t *testing.T) {
	t.Parallel()
	a := newAsker()
	l := &lists{hosts: map[string][]string{}}
	p := startProxy(t, Options{Hosts: l.Hosts, Ask: a.Ask})
	port := strconv.Itoa(p.Port())
	for _, target := range []string{"127.0.0.1:" + port, "[::ffff:127.0.0.1]:" + port, "0.0.0.0:" + port, "[::]:" + port,
		"LocalHost.:" + port, "api.test.example:" + port} {
		l.Remember("weather", target, "")
		r := within(t, connect(p.Env("weather")["HTTPS_PROXY"], target), target)
		if r.status != http.StatusForbidden || !strings.Contains(r.body, "mcptray's own proxy") {
			t.Errorf("%s: %+v", target, r)
		}
	}
	a.none(t)
}

// TestNamePointingHere: a name the system's resolver answers with this
// computer's address is asked about again as local, though the name was
// allowed; an exact host:port entry lets it through.
func TestNamePointingHere(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	a := newAsker()
	l := &lists{hosts: map[string][]string{"weather": {"*.test.example", "other.test.example"}}}
	p := New(Options{Hosts: l.Hosts, Ask: a.Ask})
	p.lookup = func(ctx context.Context, _, host string) ([]netip.Addr, error) { return testResolve(ctx, host) }
	if err := p.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	proxyURL := p.Env("weather")["HTTPS_PROXY"]
	replied := connect(proxyURL, s.Dest("api.test.example"))
	q := a.next(t)
	if q.Local || q.Dest != s.Dest("api.test.example") {
		t.Errorf("the first question = %+v", q.Question)
	}
	q.answer <- AllowOnce
	q = a.next(t)
	if !q.Local || q.Dest != s.Dest("api.test.example") {
		t.Errorf("the question once the name points here = %+v", q.Question)
	}
	q.answer <- Deny
	if r := within(t, replied, "the CONNECT asked about"); r.status != http.StatusForbidden || !strings.Contains(r.body, "you denied it") {
		t.Errorf("denied: %+v", r)
	}
	l.Remember("weather", s.Dest("other.test.example"), "")
	if r := within(t, connect(proxyURL, s.Dest("other.test.example")), "CONNECT"); r.status != http.StatusOK {
		t.Errorf("with an exact entry: %+v", r)
	}
	a.none(t)
}

// TestSystemResolverPointingHere: the system's resolver's answer for
// localhost, taken as any name's, points here.
func TestSystemResolverPointingHere(t *testing.T) {
	t.Parallel()
	p := New(Options{})
	p.machine = thisMachine()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	// "localhost" as if it were any name: the resolver says 127.0.0.1.
	_, here, err := p.resolve(ctx, dest{host: "localhost", port: 443})
	if err != nil {
		t.Skipf("the system resolver does not know localhost: %v", err)
	}
	if !here {
		t.Error("a name the resolver answers with 127.0.0.1 does not point here")
	}
	if _, here, _ := p.resolve(ctx, dest{host: "127.0.0.1", port: 443}); here {
		t.Error("an address is not a name that points here")
	}
}

// TestClose: Close ends an open question (the connection is refused) and
// a tunnel.
func TestClose(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	a := newAsker()
	l := &lists{hosts: map[string][]string{"weather": {s.Dest("api.test.example")}}}
	p := startProxy(t, Options{Hosts: l.Hosts, Ask: a.Ask})
	proxyURL := p.Env("weather")["HTTPS_PROXY"]
	u, _ := url.Parse(proxyURL)
	c, err := net.DialTimeout("tcp", u.Host, deadline)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	pw, _ := u.User.Password()
	req, _ := http.NewRequest(http.MethodConnect, "", nil)
	req.Host = s.Dest("api.test.example")
	req.SetBasicAuth("weather", pw)
	req.Header["Proxy-Authorization"] = req.Header["Authorization"]
	delete(req.Header, "Authorization")
	if err := req.Write(c); err != nil {
		t.Fatal(err)
	}
	replied := connect(proxyURL, s.Dest("other.test.example"))
	q := a.next(t)
	p.Close()
	within(t, q.ctx.Done(), "the question's end")
	if r := within(t, replied, "the CONNECT asked about"); r.status == http.StatusOK {
		t.Errorf("a question open at Close: %+v", r)
	}
	c.SetReadDeadline(time.Now().Add(deadline))
	all, err := io.ReadAll(c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the tunnel is still open after Close: %q", all)
	}
}
