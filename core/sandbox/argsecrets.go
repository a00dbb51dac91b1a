package sandbox

import "strings"

// DescribeArgSecrets says who can read the secrets named (by their
// keychain names) that a server's config puts on its command line
// (${secret:NAME} in its arguments), for the approval dialog, the detail
// and mcptray sandbox SERVER; "" when there are none. p is its policy, or
// nil when it runs without a sandbox. A secret given as a file
// (${secret-file:NAME}) or in its environment is on no command line.
func DescribeArgSecrets(names []string, p *Policy) string {
	if len(names) == 0 {
		return ""
	}
	what := "the secret " + names[0]
	if len(names) > 1 {
		what = "the secrets " + strings.Join(names, ", ")
	}
	how := " Where the server can take it so, give it in its environment, or as a file only it may read (${secret-file:" + names[0] + "}, which becomes the file's path)."
	switch {
	case p == nil || p.None:
		return "Its command line holds " + what + ": every program of yours can read it there." + how
	case p.Namespaces:
		return "Its command line holds " + what + ": only its own processes can read it there (its sandbox gives it processes of its own); mcptray's launcher holds it in its environment, not on its command line."
	}
	return "Its command line holds " + what + ": this computer gives it no processes of its own, so every program of yours and every other server can read it there." + how
}
