package sandbox

// seatbeltExec is macOS's sandbox-exec.
const seatbeltExec = "/usr/bin/sandbox-exec"

// Command returns what runs program (with argv and env) inside p: macOS's
// sandbox-exec with p as a Seatbelt profile. The launcher is not needed
// there.
func Command(_ string, p Policy, program string, argv, env []string) (string, []string, []string, error) {
	if p.None {
		return program, argv, env, nil
	}
	args := append([]string{seatbeltExec, "-p", Profile(p), program}, argv[1:]...)
	return seatbeltExec, args, p.Environ(env), nil
}
