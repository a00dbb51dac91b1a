package registry

// Summary is what a catalogue shows of one server before it is chosen.
type Summary struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Version     string `json:"version,omitempty"`
	// Local says it can run on this computer (a package mcptray can run);
	// Remote that it can be reached over the network.
	Local  bool `json:"local"`
	Remote bool `json:"remote"`
	// Runtime is the program a local one runs with (npx, uvx, docker,
	// dnx).
	Runtime string `json:"runtime,omitempty"`
	// NeedsKeys says the way it would be installed asks for a secret.
	NeedsKeys bool `json:"needsKeys,omitempty"`
	// Unusable says why mcptray cannot install it, or "".
	Unusable string `json:"unusable,omitempty"`
}

// Summarize sums d up for a catalogue.
func Summarize(d *ServerDetail) Summary {
	s := Summary{Name: d.Name, Title: d.Title, Description: d.Description, Version: d.Version, Remote: len(d.Remotes) > 0}
	if p, _ := choosePackage(d.Packages); p != nil {
		s.Local, s.Runtime = true, runtimes[p.RegistryType]
	}
	fields, err := Fields(d, PreferAny)
	if err != nil {
		s.Unusable = err.Error()
	}
	if _, berr := BundlePackage(d); berr == nil {
		// Its bundle runs here, as its manifest says once downloaded.
		s.Local = true
		if err != nil {
			s.Unusable = ""
		}
	}
	for _, f := range fields {
		if f.Secret {
			s.NeedsKeys = true
		}
	}
	return s
}
