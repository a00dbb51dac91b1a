// Package sandbox says what a local (stdio) server may do and makes it so:
// which folders it may read, which it may write, what on the network it
// may reach, that it may use no other program's socket, and that nothing
// it starts outlives it. A Policy is computed for each server (Default)
// and applied by a launcher that mcptray runs in the server's place
// (mcptray sandbox-exec, Launch): on Linux it stays as the server's init,
// in namespaces of its own where the computer allows (Start, Isolation),
// and the server it forks restricts itself with Landlock and a seccomp
// filter before it executes, so the rules hold for the server and for
// everything it starts. What it runs, the program and its arguments,
// reaches the launcher in the policy's environment variable, not on its
// command line (Command).
// On macOS the same Policy becomes a Seatbelt profile (Profile) run with
// sandbox-exec; on Windows servers run without a sandbox yet (see Windows
// below for what holds there and the sandbox designed for it).
//
// # The default lists, and why
//
// A server may run its program, and nothing more of the person's home.
//
// Read (and run programs from):
//   - the system: /usr, /bin, /sbin, /lib, /lib32, /lib64, /libx32, /etc,
//     /opt, /nix/store and /snap (where distributions and installers put
//     programs, libraries, certificates and resolv.conf),
//     /run/systemd/resolve (where /etc/resolv.conf points on systemd
//     systems) and /var/lib/snapd (snap's programs look there);
//   - /proc: runtimes read /proc/self (node's and python's paths, the
//     process's limits), and a server's children have other pids, so
//     /proc is given whole. In namespaces of its own it is the /proc of
//     its own PID namespace (mounts_linux.go): its own processes and no
//     other's. Without namespaces it is the computer's: every process's
//     command line can be read there, a secret in another server's
//     arguments included (its launcher's holds none: Command), and the
//     words say so; another server's environment, memory and files stay
//     out of reach (Landlock forbids tracing a process outside its
//     sandbox);
//   - of /sys only /sys/devices/system/cpu and /sys/fs/cgroup, where node
//     and python learn how many CPUs and how much memory they may use;
//   - /dev/urandom and /dev/random (every runtime seeds from them);
//   - the folders on the server's PATH that lie in the home (~/bin, say),
//     and the version managers' and runtimes' folders: ~/.nvm, ~/.fnm,
//     ~/.local/share/fnm, ~/.volta, ~/.pyenv, ~/.asdf, ~/.local/share/mise,
//     ~/.local/bin, ~/.local/lib (pip --user), ~/.cargo/bin, ~/.rustup,
//     ~/go/bin, ~/sdk (Go's downloaded toolchains), ~/.dotnet/tools;
//   - the Pythons uv installed, ~/.local/share/uv/python (and under
//     XDG_DATA_HOME): the Pythons uv links into ~/.local/bin and the
//     environments of tools installed with uv tool install run them. Read
//     only: a server's own uv installs Pythons into its own folder, and
//     finds the person's on PATH;
//   - the program's own install folder when it lies outside these (a
//     program at ~/tools/srv/bin/srv gets ~/tools/srv); when that folder
//     is one of many apps' files (~/.local, ~/.config), only the program's
//     own folder, and never the home or a folder above it;
//   - for a script or program named on the command line (node
//     /x/server/dist/index.js): its project, the nearest folder above it
//     with a package.json, pyproject.toml, go.mod or .git; inside a
//     node_modules folder, the whole node_modules, where npm puts its
//     dependencies beside it;
//   - a working folder configured for it, other than the home.
//
// Read and write:
//   - its own data folder, created for it under mcptray's folder (servers/
//     NAME, FolderName), and in it a private tmp folder that TMPDIR (and
//     TMP, TEMP) point at; no other server has it (below). The folder goes
//     when the server is removed, once its process has stopped; a server
//     renamed in its file with the same command keeps it, and no server of
//     another file or scope is ever given it (core/service/datafolders);
//   - in that data folder, cache/: its package managers install there,
//     each pointed at a folder of its own by the variable it reads:
//     npm_config_cache (npm, and npx's packages), COREPACK_HOME,
//     YARN_CACHE_FOLDER and YARN_GLOBAL_FOLDER, pnpm's store
//     (npm_config_store_dir, for pnpm alone: npm warns about settings it
//     does not know), BUN_INSTALL_CACHE_DIR, DENO_DIR,
//     PLAYWRIGHT_BROWSERS_PATH, UV_CACHE_DIR, UV_TOOL_DIR and
//     UV_PYTHON_INSTALL_DIR, PIP_CACHE_DIR, PIPX_HOME, POETRY_CACHE_DIR,
//     GOMODCACHE and GOCACHE (with -modcacherw added to GOFLAGS, so that
//     the folder can be removed with the server), NUGET_PACKAGES, and
//     XDG_CACHE_HOME for the rest (node-gyp's headers, pnpm's cache).
//     The person's shared caches are not given: ~/.npm, ~/.cache/uv,
//     ~/.local/share/uv/tools, ~/.cache/pip, ~/.cache/pypoetry,
//     ~/.cache/yarn, ~/.local/share/pnpm's store, ~/.bun's cache, ~/.deno,
//     ~/.cache/deno, ~/.cache/go-build, ~/go/pkg/mod, ~/.nuget/packages,
//     ~/.cache/node and ~/.cache/ms-playwright (a program installed in one,
//     bun in ~/.bun say, is read as any program's folder). The person's
//     own npx, uvx, go or Playwright runs code from them later, outside
//     any sandbox: a server that could write there could plant code that
//     runs unsandboxed. The price is a first start that installs the
//     server's packages anew (bench/README.md has the figures);
//   - /dev/null, /dev/zero and /dev/full;
//   - in namespaces of its own, its own /tmp and /dev/shm: empty tmpfs
//     mounts of at most 512 MiB each, in a mount namespace of its own
//     (mounts_linux.go), that no other server and no other program sees; a
//     program that writes to /tmp by name, python's multiprocessing and a
//     browser's shared memory work there. What its policy names in the
//     computer's /tmp (a project there, a program, a grant) is carried into
//     its own, as its policy gives it; its /tmp is then only that, and it
//     may not write the rest (a rule on /tmp would hold for what is
//     carried too). Without namespaces it gets neither: /tmp and /dev/shm
//     are the computer's, shared by every program of every user, with
//     other apps' temporary files, shared memory and the sockets of X11
//     and ssh-agent; a program that writes to /tmp by name, not through
//     TMPDIR, or that needs shared memory (python's multiprocessing), is
//     refused and says so, and the words say it;
//   - for a project's server: its project folder;
//   - the existing folders named on its command line (server-filesystem's
//     allowed folders, a --directory): the person configured them, so the
//     server may use them; but one that the person's settings give it to
//     read and not to write (an MCP Bundle's folder setting the person did
//     not let it change) it may only read. A command the person did not
//     write grants nothing this way (Input.ArgsGrantNothing): an MCP
//     Bundle's, and one installed from the MCP Registry, whose settings
//     say so (Settings.ArgsGrantNothing) and give, as the person's
//     grants, what this rule gives for the values they typed
//     (ArgGrants);
//   - what the person allowed it (mcptray sandbox allow; a folder in the
//     home that is not there yet is made, as the server would have made
//     it), and what its project's .mcp.json asks for once the person
//     approved that.
//
// Nothing else: not ~/.ssh, ~/.aws, ~/.gnupg, browser profiles, keyrings
// (~/.local/share/keyrings), other apps' configs, nor mcptray's own
// config, data and logs (only the server's own folder in them). Not
// /dev/tty either: a server speaks over pipes, and the terminal is the
// person's. SSH_AUTH_SOCK is taken out of its environment.
//
// # Environment
//
// Of the person's login environment a server gets what runs programs (env.go
// lists it, with why: the path, the locale, the home, the runtimes' and
// version managers' settings, a company's certificates and proxy), and
// anything else only when its config names it: a token ~/.profile exports
// is kept from it as ~/.aws is. The same rule holds for a server run
// without a sandbox. In a sandbox that refuses other programs' sockets, the
// desktop's addresses (DISPLAY, WAYLAND_DISPLAY, DBUS_SESSION_BUS_ADDRESS,
// XDG_RUNTIME_DIR) are taken out too: they name what it cannot reach. The
// approval dialog, the detail and mcptray sandbox SERVER name what it gets
// and count what it does not (DescribeEnv), never saying a value.
//
// # Network
//
// When mcptray's egress proxy runs, a server's environment gets the
// proxy's variables, and:
//
//   - where the computer lets a program make user namespaces (and mount a
//     /proc, /tmp and /dev/shm of its own in them: the probe tries both,
//     Isolation), the server runs in a network namespace of its own
//     (namespaces_linux.go), whose
//     loopback has one listener, at the proxy's port on 127.0.0.1, served
//     by mcptray's proxy: there is nothing else to reach, by TCP or UDP,
//     at any address;
//   - elsewhere, Landlock limits TCP connections to the proxy's port and
//     the ports the person allowed, and the launcher's seccomp filter
//     (seccomp.go) refuses UDP and raw sockets. Landlock's rule is a
//     port, not an address: a program listening at the proxy's port
//     number on another address of this computer could be reached, and
//     the words say so.
//
// Binding and listening are left free: listening gives nothing away, and
// sign-in helpers such as mcp-remote listen for their browser's callback.
// With no proxy, TCP and UDP are left unrestricted, and the words say so.
//
// # Sockets, signals, processes
//
// The seccomp filter refuses socket(AF_UNIX), datagram socketpairs and
// io_uring: no named socket of the person's session is in reach (the
// session bus and the Secret Service behind it, ssh-agent, X11, journald's
// and systemd's, mcptray's own control socket), whatever Landlock's ABI.
// A socketpair of stream or seqpacket sockets stays (node and python make
// their children's pipes with stream pairs, Chromium talks to its own
// processes over seqpacket ones): its two ends are connected to each other
// for good, where a datagram socket could send to any named socket given
// as the address of sendto or sendmsg, or be connected again to one. The
// server starts holding its three pipes and nothing else: the launcher
// marks every other file descriptor close-on-exec, so no socket mcptray
// held (nor whatever its other end would hand over in SCM_RIGHTS) reaches
// it. From ABI 9 Landlock handles named sockets too
// (RESOLVE_UNIX): a server that may use sockets because its command is
// docker's client reaches only those beneath what it may write (docker's
// own socket), and only the person's grant (Settings.Sockets) opens them
// all; this machine's kernel, ABI 7, has not run that rule. From
// Landlock ABI 6, a server can neither signal processes outside its
// sandbox nor connect to abstract Unix sockets made outside it; in a
// network namespace of its own abstract sockets are its own anyway, and in
// a PID namespace of its own, with its own /proc, other processes have no
// number it can name and no command line it can read.
//
// A config may put a secret in a server's arguments (${secret:NAME}): the
// launcher is told them in its environment, which only what may trace it
// can read (not another server, nor, once the launcher made itself
// undumpable, any program of the person's without privileges), and strips
// that variable before the server runs. The
// server's own command line holds them, as it must: in namespaces of its
// own only its own processes see it; without, every program of the person
// and every other server can read it in /proc, and the words say so
// (DescribeArgSecrets, in the approval dialog, the detail, mcptray
// sandbox SERVER and mcptray add). mcptray's own ways to give a secret
// use the environment (add --secret-env); a program that takes a file
// gets ${secret-file:NAME}: the path of a file holding the value, mode
// 0600, in a folder of its own start in its data folder, which no other
// server's sandbox may read, written beneath that folder through no link
// and removed when it stops (core/conn's secretFiles).
// TestSecretFileOnlyItsServerReads (core/conn).
//
// The launcher stays as the server's init (init_linux.go): it forks the
// server, passes on mcptray's signals, and when the server ends (or is
// stopped) it ends every process the server left, a double-forked setsid
// grandchild included, before it exits. Where it has namespaces, the
// launcher mcptray started makes them itself and forks their init, pid 1
// of the server's PID namespace, which does this (namespaces_linux.go):
// the launcher passes signals on to it and ends as it does, and when the
// launcher is killed the init is killed with it, and the kernel ends the
// rest of the namespace. Without one, the launcher is the init and their
// child subreaper.
//
// # The check: a sandbox that proves itself on this computer
//
// Check (mcptray sandbox check) runs mcptray's hostile probe (mcptray
// sandbox-probe, Probe) in a real sandbox made as each kind of local
// server gets it (Kinds: a local server through the egress proxy, a
// project's server, a local server while the proxy is off), through the
// launcher servers start through, in namespaces where this computer
// allows them (MCPTRAY_SANDBOX_NO_NAMESPACES=1 checks the fallback), and
// through mcptray's own egress proxy where the running mcptray has one
// (CheckOptions.Proxy, Report.OwnProxy; a stand-in that answers by
// closing otherwise, as in make test). The
// probe lives in a scene of its own: a home with an SSH key, mcptray's
// config, another server's data, the control key, shared caches, a named
// and an abstract socket, listeners at other ports and at the proxy's port
// on another address, and a pseudo-terminal that is the probe's controlling
// terminal (as a server started from a terminal has one: without it
// /dev/tty would be refused whatever the sandbox). It tries every door of
// Doors (doors.go), one case a
// door: what it tries (a verb of the probe, probeTry), what "held" means,
// and in plain words what a server could do when it did not hold. A new
// door is one new case there, and make test runs it (TestCheckHolds,
// through both launchers, in both modes). Some cases are what a server
// must be able to do (its own folder, the proxy): a probe that did not
// run proves nothing. A known limit (the proxy's port at another address
// without a network of its own) is reported as such, not as a failure.
//
// The running mcptray runs the check at its first start and whenever the
// kernel or mcptray changed, keeps the last in its folder (CheckFile),
// and records each in the activity record; Settings has a button for it.
// What mcptray says of a sandbox (Protection) comes from the last check
// (SetLastCheck): a door that did not hold for that kind of server is said
// plainly, with what to do, and takes back what the words said held; no
// check yet is said too. What it printed on the machine mcptray is
// developed on is in bench/README.md.
//
// # macOS
//
// The Seatbelt profile (Profile) gives the same files, the server's own
// caches and not the person's; TCP only to the proxy's port and the
// person's ports on this computer ("localhost": Seatbelt names no other
// address); no connection to a Unix socket by name unless Policy.Sockets;
// and of the Mach services only those every runtime asks for (who the
// user is, the per-user temp folders, logging, the network's
// configuration, trustd for TLS certificates). The keychain's services are
// denied by name after every allow, as Seatbelt's last matching rule
// decides: securityd (the login keychain), secd (the data protection
// keychain) and com.apple.security.*. LaunchServices is not among them: it
// opens apps, outside any sandbox. There are no namespaces nor seccomp
// filter there, and the profile is untried on a Mac.
//
// # Windows
//
// What holds today, shown under Wine 10 by make test-windows: each server
// runs in a job object that kills everything in it when the server stops
// or mcptray ends, made suspended and put in its job before it runs its
// first instruction, so that nothing it starts is outside (core/transport),
// and a program in a server's job is
// refused every trust decision on the control pipe, whatever key it holds
// (core/control). Nothing else: a server reads and changes what the person
// can and reaches the network as the person does, and Protection says so.
//
// The sandbox designed for Windows, as the anchors are starting to do it
// there, is an AppContainer, with a restricted token at low integrity
// weighed and set aside:
//
//   - A restricted token at low integrity (CreateRestrictedToken, then
//     TokenIntegrityLevel set to low) stops writes to the person's files
//     (Windows' no-write-up rule) but not reads: ~/.ssh and every other
//     secret of the profile stay readable, and the network stays open.
//     It is what Windows gives without any change to the person's folders,
//     and too little to call files protected.
//   - An AppContainer (CreateAppContainerProfile, one per server, named
//     from its stable id; the process made with
//     PROC_THREAD_ATTRIBUTE_SECURITY_CAPABILITIES) opens only what grants
//     its container SID. Files: mcptray adds an access entry for that SID
//     to each folder the Policy lists (read and execute for Read, modify
//     for Write: the project, the server's data folder), with no
//     inheritance into what the person has not granted, and takes them
//     away when the server's grants change; the runtime's folders under
//     Program Files already grant ALL APPLICATION PACKAGES read. Network:
//     a container with no capability has none; with internetClient it
//     reaches the internet but not loopback, so mcptray's egress proxy on
//     127.0.0.1 is out of its reach. The launcher (mcptray sandbox-exec,
//     outside the container) would carry the proxy's port to it through a
//     named pipe whose access list admits the container's SID, as the
//     Linux launcher bridges it into a network namespace. Until that is
//     shown, a server given the network would get internetClient, and the
//     words would say "files protected, network open".
//   - The job object stays, with its UI limits added (no clipboard, no
//     global atoms, no other desktop). The server could be made in its job
//     (PROC_THREAD_ATTRIBUTE_JOB_LIST, Windows 10 and later, which os/exec
//     cannot pass) rather than made suspended and joined before it runs,
//     as today: the container's process is made with CreateProcess itself
//     anyway, and would take both attributes.
//
// Untried: all of the sandbox above; none of it is built. Wine cannot
// show it: every Wine process is the same Unix user, whose files Unix
// permissions guard, not Windows' access lists, so a test there would
// prove nothing of them. It needs a real Windows 10 or 11,
// where node and python in an AppContainer (their own installs under
// the person's profile, which do not grant ALL APPLICATION PACKAGES), the
// loopback bridge, and the access entries left behind by a crash are the
// open questions.
//
// # What mcptray itself does around a server
//
// mcptray and the launcher (before Landlock holds) run outside any
// sandbox, with everything the person has. What a server may write (its
// data folder, its project, the folders on its command line and those the
// person let it write: Policy.Write) is the server's to fill with a
// program, a link to ~/.ssh where a folder was, or a named pipe where a
// file was. Each place where mcptray runs, reads, follows, makes or
// removes something there, and the test that attacks it:
//
//   - a runtime's version: mcptray asks a Node server's node its version
//     (for the words about the proxy), and a bundle's node or python
//     before it is installed. The runtime may lie in a folder the server
//     may change: it runs in the server's own sandbox, through the
//     launcher, as the server would run (Look), with no network; a
//     bundle's in the sandbox of a server with nothing of its own (where
//     servers run with none, mcptray given no launcher, as they would).
//     TestRuntimeVersionLookSandboxed, TestBundleRuntimeLookSandboxed
//     (core/service);
//   - its rules: each launcher opens a rule's path that lies in a folder
//     it may write beneath the outermost such folder, with openat2 and
//     RESOLVE_BENEATH, RESOLVE_NO_SYMLINKS and RESOLVE_NO_MAGICLINKS
//     (openRule, and open_rule in the C launcher): a link there is left
//     out, and its rule would give nothing the folder does not.
//     TestPlantedLinksGiveNothing, through both launchers;
//   - a folder two servers may write: what every other server's config
//     lets it write (Input.OthersWrite, Policy.Shared, the policy's "s"
//     lines) counts as the server's own for all of the above and below: a
//     rule of one server there is opened beneath it through no link, its
//     grants there and its program are not resolved through a link, and
//     mcptray makes no folder and reads no env file through one. A link
//     the other planted (shared/data pointed at ~/.ssh) is left out.
//     TestNeighbourLinksGiveNothing, through both launchers,
//     TestNeighbourLinkThroughManager, TestEnvFileNoNeighbourLink
//     (core/conn);
//   - its policy: Default follows no link in a folder it may write: not
//     for the person's grants (GrantPathIn), nor for its program (a
//     project's .venv/bin/python pointed at ~/.aws), nor in the Seatbelt
//     profile; and a file named on its command line in such a folder
//     gives nothing above it (its project, found by what that folder
//     holds, would be the server's to choose). TestPlantedLinksGiveNothing,
//     TestProgramLinkGivesNothing, TestProfileFollowsNoPlantedLink,
//     TestProjectStopsAtWhatItWrites;
//   - a folder the person allows it (mcptray sandbox allow, a refusal's
//     button) is kept as the person read it, not where a link in it leads.
//     TestGrantThroughPlantedLink (core/service);
//   - the folders mcptray makes for it (Prepare: its data folder, tmp,
//     caches, an allowed folder not there yet) are made with os.Root
//     beneath the outermost folder it may write that holds them: a link
//     that leads out is not followed. TestPrepareMakesNothingOutside;
//   - its env file (a project's .env): read beneath that folder with
//     os.Root (Policy.Open), only a regular file, opened without waiting,
//     when it starts and when the activity record masks its values.
//     TestOpenRefusesLinksOut, TestEnvFileNoLinkOut (core/conn),
//     TestActivitySecretsWaitOnNoPipe (core/service);
//   - its project's config files (.mcp.json, .vscode/mcp.json,
//     .cursor/mcp.json): opened without waiting, only a regular file.
//     TestProjectFileAPipe (core/config). A link to another file is
//     followed (a person's .mcp.json may live in a dotfiles repository):
//     what it holds changes nothing until the person approves it. The
//     config watcher then also watches the folder the link leads to, so
//     an edit there is read: a watch, which reads nothing itself
//     (TestWatch/a_config_linked_from_the_person's_dotfiles… in core/config);
//   - removing its data folder (when the server is removed) and a look's
//     folder: os.RemoveAll, which works beneath the folder with unlinkat
//     and opens no link. TestRemovedDataFolderFollowsNoLink (core/service).
//     A renamed server's folder, and one set aside, moves within servers/,
//     which is mcptray's;
//   - its npm package, when it runs one pinned (core/npmpin): mcptray
//     runs the person's npm, install scripts off, in a folder of its own
//     (packages/NAME beside servers/), which no server may write, and the
//     server runs its tree from there, given its node_modules to read.
//     TestPinnedPackageRunsWhatWasPinned (core/service) has the server
//     try to change its own code for its next start;
//   - its npm package's tree once its install scripts ran: they may write
//     its node_modules, and leave a link where a package's file or folder
//     was (to ~/.ssh, mcptray's config, /proc/self). A tree left with a
//     link that leads out of it, or round in a loop, is refused, in words
//     that name the link and the packages whose scripts ran; links that
//     stay in it (node_modules/.bin's) are kept. Besides, an update's
//     review reads each package's files beneath its tree (os.Root), the
//     program that runs is found through no link, mcptray's marks are
//     written through none, and removing a tree (os.RemoveAll) opens
//     none. TestLinksLeavingTheTree, TestProgramThroughNoLink,
//     TestReviewThroughNoLink, TestMarkThroughNoLink (core/npmpin),
//     TestScriptLinksOutOfTheTree (core/service);
//   - its folders' name: its data folder and a bundle's files are named
//     after the server (FolderName), and a project chooses its servers'
//     names, a bundle's manifest its own. No two servers share a folder: a
//     plain name that ends as a hashed one does (my_notes-f30ac2b5, the
//     folder of "my notes") gets a hash of its own; of two servers whose
//     names still give one folder (their 32-bit hashes agree, which can
//     be found on purpose, or they differ only in case on macOS and
//     Windows: config.DataFolder), the less trusted does not run and says
//     whose folder it would be (core/config); a bundle named so is not
//     installed; a server removed or renamed neither removes nor moves a
//     folder another configured server has (core/service/datafolders).
//     TestFolderName, TestSharedDataFolderRefused,
//     TestSharedDataFolderCase (core/config),
//     TestProjectServerGetsNoOthersDataFolder,
//     TestProjectServerSharingAFolderDoesNotRun,
//     TestBundleTakesNoOthersFolder (core/service),
//     TestRemovedNamesakeLeavesOthersData,
//     TestRenamedNamesakeMovesNoOthersData (core/service/datafolders);
//   - its data folder's next holder: a name passes from one server to
//     another (the person adds a "github" and a project's becomes
//     github-2, or removes theirs and the project's takes the name back;
//     a server whose file is gone or unreadable keeps its folder, and
//     another takes the name later). What a server left in its folder (a
//     package planted in its cache, a script the next holder runs, the
//     person's secrets as files) stays its owner's: mcptray keeps whom
//     each folder was made for (its scope, its file, its name there) in
//     its own folder, beyond every server's reach, and a server about to
//     start in a folder made for another, or for no owner it knows (the
//     owners cannot be read), gets an empty one; the old one is set aside,
//     renamed .set-aside-… in the servers' folder, which no server's
//     sandbox gives, and comes back to its owner should it return. It
//     moves to its owner's new name (github-2), and a rename keeps it only
//     within one file: a server of another file or scope with the same
//     command inherits nothing. A folder that cannot be set aside keeps
//     the server from starting. TestNamesakeGetsNoPlantedData,
//     TestRemovedNamesakeLeavesNoDataToProject,
//     TestSameCommandOtherOriginInheritsNothing (core/service),
//     TestReturningOwnerGetsItsDataBack, TestUnreadableOwnersFailClosed,
//     TestFoldersFromBeforeOwners, TestFolderNotSetAsideRunsNothing
//     (core/service/datafolders). A bundle's own folder has no such flaw:
//     only mcptray writes there, for the person's own config alone;
//   - shown safe: its program is looked up on its PATH with stat alone
//     and runs only through the launcher; its error output comes through
//     a pipe into memory, never a file of its folders; its processes are
//     counted from /proc/PID/stat read from the last ")", so a name it
//     gives itself cannot shift the fields; the namespaces' probe
//     (Isolation) runs mcptray's own launcher; the demo's files are
//     written by renaming over them (config.ReplaceFile), which replaces
//     a link rather than following it; a bundle's own folder, which mcptray
//     unpacks, replaces and removes, its server may only read; the
//     registry's downloads, which mcptray prunes, lie in mcptray's own
//     folder, and only plain files are removed there.
//   - a refusal read from a server's error output (Refusals) is the
//     server's own claim, and a hostile server prints refusals it was
//     never given, naming ~/.ssh, the keyring, mcptray's files or another
//     server's, in characters that read as another path. It is said as
//     its claim ("weather says it was refused …"), a path with hidden
//     characters is dropped, and Vet checks it: the path is there and its
//     policy does not give it, the button grants exactly the path it
//     shows (the grant's own spelling), and a place that holds secrets,
//     runs programs outside any sandbox, or is mcptray's or another
//     server's gets no button. TestForgedRefusalsNotOffered,
//     TestForgedRefusals (core/service).
//
// # Container runtimes
//
// A server run with docker gets docker's socket and ~/.docker to start its
// container, which keeps its own isolation, and may connect to Unix
// sockets (Policy.Sockets; the words say that Docker can do anything on
// this computer). A server run with podman runs
// without Landlock: rootless podman maps user ids through set-user-ID
// helpers, which Landlock's no-new-privileges rule disables.
package sandbox
