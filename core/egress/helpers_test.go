package egress

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

// deadline bounds every wait in these tests.
const deadline = 20 * time.Second

// site is a real HTTPS server on 127.0.0.1 with a certificate for the test
// names it answers to, signed by a test authority (CAFile, Pool).
type site struct {
	srv    *httptest.Server
	Port   int
	Pool   *x509.CertPool
	CAFile string
}

// testNames are the names the proxy under test resolves to 127.0.0.1.
var testNames = []string{"api.test.example", "other.test.example", "third.test.example", "fourth.test.example"}

// newSite starts an HTTPS server answering "hello from HOST" for each of
// testNames.
func newSite(t testing.TB) *site {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "mcptray egress test authority"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	leafTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: testNames[0]},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		DNSNames: append([]string{"localhost"}, testNames...), IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leafTmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello from %s", r.Host)
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the tests' own CONNECTs end without TLS
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{leafDER}, PrivateKey: key}}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	s := &site{srv: srv, Pool: x509.NewCertPool()}
	s.Pool.AddCert(ca)
	s.Port = srv.Listener.Addr().(*net.TCPAddr).Port
	s.CAFile = filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(s.CAFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	return s
}

// URL is the site's address under a test name.
func (s *site) URL(name string) string {
	return "https://" + net.JoinHostPort(name, strconv.Itoa(s.Port)) + "/"
}

// Dest is a test name's destination as lists and questions write it.
func (s *site) Dest(name string) string { return net.JoinHostPort(name, strconv.Itoa(s.Port)) }

// testResolve resolves testNames to 127.0.0.1, and nothing else.
func testResolve(_ context.Context, host string) ([]netip.Addr, error) {
	for _, n := range testNames {
		if host == n {
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		}
	}
	return nil, fmt.Errorf("no such test name %q", host)
}

// asker is an Ask that hands each question to the test, which answers it.
type asker struct {
	questions chan asked
}

type asked struct {
	Question
	answer chan<- Answer
	ctx    context.Context
}

func newAsker() *asker { return &asker{questions: make(chan asked, 16)} }

func (a *asker) Ask(ctx context.Context, q Question) (Reply, error) {
	answer := make(chan Answer, 1)
	a.questions <- asked{Question: q, answer: answer, ctx: ctx}
	select {
	case ans := <-answer:
		return Reply{Answer: ans}, nil
	case <-ctx.Done():
		return Reply{Answer: Deny}, ctx.Err()
	}
}

// next waits for the next question.
func (a *asker) next(t *testing.T) asked {
	t.Helper()
	return within(t, a.questions, "a question")
}

// none checks that nothing was asked.
func (a *asker) none(t *testing.T) {
	t.Helper()
	select {
	case q := <-a.questions:
		t.Errorf("asked %q, want no question", q.Message())
	default:
	}
}

// within waits for a value from ch, failing the test after deadline.
func within[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(deadline):
		t.Fatalf("no %s within %s", what, deadline)
		panic("unreachable")
	}
}

// startProxy starts a proxy that resolves testNames, closed at the test's
// end.
func startProxy(t testing.TB, opts Options) *Proxy {
	t.Helper()
	if opts.Resolve == nil {
		opts.Resolve = testResolve
	}
	p := New(opts)
	if err := p.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// client is a Go HTTPS client that goes through the proxy URL in env,
// trusting the site's authority, a new connection for each request.
func client(env map[string]string, s *site) *http.Client {
	u, _ := url.Parse(env["HTTPS_PROXY"])
	return &http.Client{Timeout: deadline, Transport: &http.Transport{
		Proxy:             http.ProxyURL(u),
		TLSClientConfig:   &tls.Config{RootCAs: s.Pool},
		DisableKeepAlives: true,
	}}
}

// get fetches url through c and returns the body, or the error.
func get(c *http.Client, url string) (string, error) {
	res, err := c.Get(url)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		return string(b), fmt.Errorf("status %s", res.Status)
	}
	return string(b), err
}

// reply is a proxy's answer to CONNECT.
type reply struct {
	status int
	header http.Header
	body   string
	err    error
}

// connect sends CONNECT for target with the credential in proxyURL (none
// when it has none) and returns the proxy's answer, body read, on the
// channel.
func connect(proxyURL, target string) <-chan reply {
	out := make(chan reply, 1)
	go func() { out <- connectNow(proxyURL, target) }()
	return out
}

func connectNow(proxyURL, target string) reply {
	u, err := url.Parse(proxyURL)
	if err != nil {
		return reply{err: err}
	}
	c, err := net.DialTimeout("tcp", u.Host, deadline)
	if err != nil {
		return reply{err: err}
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(deadline))
	req := "CONNECT " + target + " HTTP/1.1\r\nHost: " + target + "\r\n"
	if u.User != nil {
		pw, _ := u.User.Password()
		req += "Proxy-Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte(u.User.Username()+":"+pw)) + "\r\n"
	}
	if _, err := io.WriteString(c, req+"\r\n"); err != nil {
		return reply{err: err}
	}
	res, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: http.MethodConnect})
	if err != nil {
		return reply{err: err}
	}
	r := reply{status: res.StatusCode, header: res.Header}
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(res.Body)
		r.body = string(b)
	}
	return r
}

// lists is a Hosts function over a map the test changes.
type lists struct {
	mu    sync.Mutex
	hosts map[string][]string
	calls chan string
}

func (l *lists) Hosts(server string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.calls != nil {
		l.calls <- server
	}
	return append([]string(nil), l.hosts[server]...)
}

func (l *lists) Remember(server, dest, _ string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.hosts[server] = append(l.hosts[server], dest)
	return nil
}
