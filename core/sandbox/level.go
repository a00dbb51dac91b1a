package sandbox

// Level is how well a server is protected, in a form front ends show.
type Level struct {
	// Files and Network say what is restricted: files (read, write, run)
	// and TCP connections.
	Files   bool `json:"files"`
	Network bool `json:"network"`
	// ABI is the Linux kernel's Landlock version; 0 elsewhere or without it.
	ABI int `json:"abi,omitempty"`
	// Words says it to a person: "files protected, network not: this
	// system's kernel is older than 6.7".
	Words string `json:"words"`
}

// Why a server runs without a sandbox, when it is none of the kernel's
// doing.
const (
	wordsOff       = "not protected: you turned its sandbox off"
	wordsNoLaunch  = "not protected: this mcptray runs servers without its sandbox launcher"
	wordsPodman    = "not protected by mcptray: podman's own container isolation applies (its helpers cannot run in mcptray's sandbox)"
	wordsWindows   = "not protected: on Windows servers run without a sandbox"
	wordsNoKernel  = "not protected: this system's kernel has no Landlock (it needs Linux 5.13 or later, with Landlock turned on)"
	wordsOldKernel = "files protected, network not: this system's kernel is older than 6.7"
	wordsNoProxy   = "files protected; network open: mcptray's egress proxy is not running"
	wordsBoth      = "files and network protected"
	wordsMac       = "files protected by macOS's sandbox (untried: mcptray's Seatbelt profile has not been run on a Mac yet); network open"
)

// Off is the level of a server that runs without a sandbox because the
// person turned it off (off) or because this mcptray has no launcher.
func Off(turnedOff bool) Level {
	if turnedOff {
		return Level{Words: wordsOff}
	}
	return Level{Words: wordsNoLaunch}
}

// levelFor is the level p gets on Linux with Landlock ABI abi.
func levelFor(p Policy, abi int) Level {
	switch {
	case p.None:
		return Level{Words: wordsPodman}
	case abi <= 0:
		return Level{Words: wordsNoKernel}
	case !p.RestrictTCP:
		return Level{Files: true, ABI: abi, Words: wordsNoProxy}
	case abi < 4:
		return Level{Files: true, ABI: abi, Words: wordsOldKernel}
	}
	return Level{Files: true, Network: true, ABI: abi, Words: wordsBoth}
}
