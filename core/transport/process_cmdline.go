package transport

import (
	"regexp"
	"strings"
)

// cmdShimLine is the command line, for cmd.exe /d /s /c "…", that runs the
// .cmd or .bat file at path with args, each reaching the program exactly as
// given. It follows cross-spawn, which npm relies on for the same job: each
// argument is quoted for CommandLineToArgvW, then every character cmd.exe
// would act on (quotes included, so cmd.exe never sees a quoted region) is
// escaped with ^. npm's node_modules\.bin shims hand their arguments through
// cmd.exe a second time (%*), so for them the escaping is doubled. The path
// itself is only quoted: inside quotes cmd.exe acts on none of a path's
// characters but %, which Windows paths in practice do not hold.
func cmdShimLine(path string, args []string) string {
	double := cmdShimRE.MatchString(path)
	var b strings.Builder
	b.WriteString(`"` + path + `"`)
	for _, a := range args {
		a = cmdEscape(argvQuote(a))
		if double {
			a = cmdEscape(a)
		}
		b.WriteString(" " + a)
	}
	return b.String()
}

// cmdShimRE matches the shims npm writes into node_modules\.bin.
var cmdShimRE = regexp.MustCompile(`(?i)node_modules[\\/]\.bin[\\/][^\\/]+\.cmd$`)

// cmdMeta are the characters cmd.exe gives a meaning to.
const cmdMeta = "()[]%!^\"`<>&|;, *?"

func cmdEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(cmdMeta, s[i]) >= 0 {
			b.WriteByte('^')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// argvQuote quotes s so that CommandLineToArgvW (how nearly every Windows
// program splits its command line) reads it back as one argument: a run of
// backslashes is doubled before a quote (which is itself escaped) and at the
// end, and left alone elsewhere.
func argvQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	slashes := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			slashes++
			continue
		case '"':
			b.WriteString(strings.Repeat(`\`, 2*slashes+1))
		default:
			b.WriteString(strings.Repeat(`\`, slashes))
		}
		slashes = 0
		b.WriteByte(s[i])
	}
	b.WriteString(strings.Repeat(`\`, 2*slashes))
	b.WriteByte('"')
	return b.String()
}
