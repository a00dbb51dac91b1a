package cli

import "flag"

// parseAnywhere parses fs's flags wherever they stand among args
// (mcptray review github --json as well as mcptray review --json github),
// leaving the other arguments, in their order, as fs.Args(). Everything
// after "--" is an argument, as it is for the flag package.
func parseAnywhere(fs *flag.FlagSet, args []string) error {
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			return err
		}
		left := fs.Args()
		if len(left) == 0 {
			break
		}
		if n := len(args) - len(left); n > 0 && args[n-1] == "--" {
			rest = append(rest, left...) // flag.Parse stopped at "--"
			break
		}
		rest = append(rest, left[0])
		args = left[1:]
	}
	return fs.Parse(append([]string{"--"}, rest...))
}
