// Package service decides for the running mcptray: it is the one type
// that meets the API the front ends speak (api.go), at the centre of
// everything a person sees. core/instance wires it, and is the one place
// that wires the running mcptray: it makes the service and, beside what
// they serve, every part of it (the network policy with the egress proxy,
// the apps' roster with the gateway, the keeper of secrets and the
// sign-in desk on the keychain, the trust keeper on the approvals file,
// the data folders), gives each in Options, and owns every listener. A
// part not given (tests that make a service directly) the service makes
// as core/instance would (parts.go).
//
// A Service owns the config loader and its watch, the connection manager
// and the built-in server. It tells the pins' holding policy (its trust
// part's) every list a server gives, and a Snapshot offers a server's
// changed tools only once the person accepted them (pins.go).
//
// Its parts are small types of their own, each told what it needs as the
// service is made (the config in use, a reload, notices, the record) and
// never importing the service (core/deps_test.go pins what each may
// import); the service attaches itself to each as it is made (a part
// serves one service: New refuses one that serves another), and
// delegates to them:
//
//   - netpolicy: the network policy, which decides the sandboxed servers'
//     connections through the egress proxy (core/instance makes the two
//     together), the flow guard's say while a call runs, and the sandbox's
//     and the guard's settings;
//   - apps: the roster of the AI apps, with the gateway's sessions (made
//     by core/instance beside the gateway, which tells it of changes);
//   - secretkeep: servers' secrets in the keychain the service is given,
//     and the index that forgets a deleted server's (made by core/instance
//     on the keychain);
//   - signin: the one sign-in manager (core/oauth) with what sign-ins need
//     beside it: settings given for one sign-in, challenges of servers
//     reached by URL, whether the keychain can keep sign-ins, and the word
//     every mcptray hears when a sign-in changed (made by core/instance on
//     the keychain, told the service's notices);
//   - trust: the person's approvals of project servers, the pins' holding
//     policy and the decisions on what it holds, and a look at an
//     unapproved server's tools kept until its approval, each decision
//     recorded (made by core/instance on the approvals file, which the
//     service's config loader then reads; told the service's record);
//   - datafolders: each sandboxed server's data folder, removed once a
//     removed server stopped and moved with a renamed one, never when it
//     is another configured server's too, and never handed to a server
//     other than the one it was made for (made by core/instance, told by
//     the service where they are and where it keeps their owners, when a
//     server stopped and the config in use).
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
