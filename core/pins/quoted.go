package pins

// Quoted is one quoted line of a tool's text with everything the scanner
// found in it: a line that breaks three rules is shown once, with three
// reasons.
type Quoted struct {
	// Whats are the flags' words, in the order found.
	Whats []string
	// Where and Quote are the flags' own.
	Where, Quote string
}

// ByQuote groups flags by the line they quote, in the order each line
// was first found.
func ByQuote(flags []Flag) []Quoted {
	var out []Quoted
	at := map[[2]string]int{}
	for _, f := range flags {
		k := [2]string{f.Where, f.Quote}
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, Quoted{Where: f.Where, Quote: f.Quote})
		}
		out[i].Whats = append(out[i].Whats, f.What)
	}
	return out
}
