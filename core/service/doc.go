// Package service decides for the running mcptray: it is the one type
// that meets the API the front ends speak (api.go), at the centre of
// everything a person sees. core/instance wires it: it makes the service,
// and beside what they serve the parts that meet what it makes (the
// network policy with the egress proxy, the apps' roster with the
// gateway), and owns every listener; the service makes its other parts.
//
// A Service owns the config loader and its watch, the connection manager
// and the built-in server. It tells the pins' holding policy (its trust
// part's) every list a server gives, and a Snapshot offers a server's
// changed tools only once the person accepted them (pins.go).
//
// Its parts are small types of their own, each told what it needs as the
// service is made (the config in use, a reload, notices, the record) and
// never importing the service (core/deps_test.go pins what each may
// import); the service delegates to them:
//
//   - netpolicy: the network policy, which decides the sandboxed servers'
//     connections through the egress proxy (core/instance makes the two
//     together), the flow guard's say while a call runs, and the sandbox's
//     and the guard's settings;
//   - apps: the roster of the AI apps, with the gateway's sessions (made
//     by core/instance beside the gateway, which tells it of changes);
//   - secretkeep: servers' secrets in the keychain the service is given,
//     and the index that forgets a deleted server's (made by the service
//     from its Store);
//   - signin: the one sign-in manager (core/oauth) with what sign-ins need
//     beside it: settings given for one sign-in, challenges of servers
//     reached by URL, whether the keychain can keep sign-ins, and the word
//     every mcptray hears when a sign-in changed (made by the service from
//     its Store);
//   - trust: the person's approvals of project servers, the pins' holding
//     policy and the decisions on what it holds, and a look at an
//     unapproved server's tools kept until its approval, each decision
//     recorded (made by the service on the approvals file its loader reads
//     and the record it was given).
//
// The tray runs it in its own process (mcptray), mcptray serve runs it with
// no face at all, and every command-line command runs it in-process when no
// mcptray is running, each made by core/instance. The window and the
// command line reach a running one through the control endpoint
// (core/control).
//
// Front ends read a Snapshot — every server with where it came from, its
// state, the reason in plain words and the action that fixes it — and take
// a new one whenever Subscribe says something changed. Actions (Approve,
// SignIn, PauseAll…) are methods; the rules they follow (who may approve
// what, when a removed server's sign-in is forgotten) live here so that the
// window, the tray and the command line share them.
//
// service never imports a front end and never puts a token, a header value
// or an environment value into a Snapshot or a log line.
package service
