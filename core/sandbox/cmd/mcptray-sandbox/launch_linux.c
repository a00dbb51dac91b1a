//go:build linux && cgo

// The launcher's work in C, in a constructor: it runs when the program is
// loaded, before Go's runtime starts, stays as the server's init and
// executes the server in the child it forks, so that the runtime never
// starts at all. Go's start
// costs a few milliseconds on a small virtual machine (its threads, its
// memory, its cgroup reads), which every server's start would pay. What it
// does is what sandbox.Launch does (core/sandbox/launch.go,
// landlock_linux.go, init_linux.go, namespaces_linux.go), from the same
// policy lines, the system call filter among them (built in Go,
// core/sandbox/seccomp.go); when anything here is
// not as expected (no policy, an unknown line) it returns and leaves the
// work, and the words, to Launch.
//
// glibc passes argc, argv and envp to constructors; a C library that does
// not (musl) passes nothing, and Launch does the work.

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <net/if.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

#define POLICY_ENV "MCPTRAY_SANDBOX_POLICY"
#define POLICY_MAGIC "mcptray-sandbox 3"

// The kernel's structures and flags (linux/landlock.h), written out so
// that older system headers do not matter.
struct ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

struct path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

struct net_port_attr {
	uint64_t allowed_access;
	uint64_t port;
};

#define CREATE_RULESET_VERSION (1U << 0)
#define RULE_PATH_BENEATH 1
#define RULE_NET_PORT 2
#define FS_EXECUTE (1ULL << 0)
#define FS_WRITE_FILE (1ULL << 1)
#define FS_READ_FILE (1ULL << 2)
#define FS_READ_DIR (1ULL << 3)
#define FS_TRUNCATE (1ULL << 14)
#define FS_IOCTL_DEV (1ULL << 15)
#define FS_READ (FS_EXECUTE | FS_READ_FILE | FS_READ_DIR)
#define FS_RESOLVE_UNIX (1ULL << 16)
#define FS_FILE (FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV | FS_RESOLVE_UNIX)
#define NET_CONNECT_TCP (1ULL << 1)
#define SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define SCOPE_SIGNAL (1ULL << 1)

// fs_handled: as fsHandled in landlock_linux.go.
static uint64_t fs_handled(long abi, int any_socket) {
	if (abi >= 9) return ((1ULL << 17) - 1) & ~(any_socket ? FS_RESOLVE_UNIX : 0);
	if (abi >= 5) return (1ULL << 16) - 1;
	if (abi >= 3) return (1ULL << 15) - 1;
	if (abi == 2) return (1ULL << 14) - 1;
	if (abi == 1) return (1ULL << 13) - 1;
	return 0;
}

// fail says why the server could not start, as Launch would, and ends.
static void fail(int code, const char *what, const char *detail) {
	fprintf(stderr, "mcptray: %s%s: %s\n", what, detail, strerror(errno));
	_exit(code);
}

// The kernel's openat2 (linux/openat2.h), written out too.
#ifndef SYS_openat2
#define SYS_openat2 437
#endif
struct open_how_ {
	uint64_t flags;
	uint64_t mode;
	uint64_t resolve;
};
#define RESOLVE_NO_MAGICLINKS_ 0x02
#define RESOLVE_NO_SYMLINKS_ 0x04
#define RESOLVE_BENEATH_ 0x08

// open_rule opens a rule's path: one in a folder the server may write
// (the "w" lines) or another server may (the "s" lines), both in writes,
// beneath the outermost such folder that holds it, through no symlink, a
// link either server planted being left out (openRule in
// landlock_linux.go).
static int open_rule(const char *path, char **writes, size_t nwrites) {
	const char *root = NULL;
	size_t root_len = 0, path_len = strlen(path);
	for (size_t k = 0; k < nwrites; k++) {
		size_t l = strlen(writes[k]);
		while (l > 1 && writes[k][l - 1] == '/') l--;
		if (l >= path_len || strncmp(path, writes[k], l) != 0) continue;
		if (path[l] != '/' && !(l == 1 && writes[k][0] == '/')) continue;
		if (root == NULL || l < root_len) {
			root = writes[k];
			root_len = l;
		}
	}
	if (root == NULL) return open(path, O_PATH | O_CLOEXEC);
	char *dir_path = strndup(root, root_len);
	if (dir_path == NULL) return -1;
	int dir = open(dir_path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	free(dir_path);
	if (dir < 0) return -1;
	const char *rel = path + root_len;
	while (*rel == '/') rel++;
	struct open_how_ how = {.flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_BENEATH_ | RESOLVE_NO_SYMLINKS_ | RESOLVE_NO_MAGICLINKS_};
	int fd = (int)syscall(SYS_openat2, dir, rel, &how, sizeof how);
	close(dir);
	return fd;
}

// add_path allows rights beneath path; a path that cannot be opened is
// left out, since nothing there can be reached.
static void add_path(int ruleset, const char *path, uint64_t rights, char **writes, size_t nwrites) {
	int fd = open_rule(path, writes, nwrites);
	if (fd < 0) return;
	struct stat st;
	if (fstat(fd, &st) == 0) {
		if (!S_ISDIR(st.st_mode)) rights &= FS_FILE;
		struct path_beneath_attr a = {.allowed_access = rights, .parent_fd = fd};
		if (rights != 0 && syscall(SYS_landlock_add_rule, ruleset, RULE_PATH_BENEATH, &a, 0) != 0)
			fail(126, "could not put the server in its sandbox: allowing ", path);
	}
	close(fd);
}

// loopback_up brings up the network namespace's lo (loopbackUp).
static int loopback_up(void) {
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) return -1;
	struct ifreq ifr;
	memset(&ifr, 0, sizeof ifr);
	strcpy(ifr.ifr_name, "lo");
	int r = ioctl(fd, SIOCGIFFLAGS, &ifr);
	if (r == 0) {
		ifr.ifr_flags |= IFF_UP;
		r = ioctl(fd, SIOCSIFFLAGS, &ifr);
	}
	int saved = errno;
	close(fd);
	errno = saved;
	return r;
}

// bridge listens at port on the namespace's 127.0.0.1 and sends the
// listener to mcptray on fd 3 (bridge in namespaces_linux.go).
static void bridge(unsigned long port) {
	if (loopback_up() != 0) fail(126, "could not put the server in its sandbox: bringing up its network", "");
	if (port == 0) return;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 128) != 0)
		fail(126, "could not put the server in its sandbox: listening for the proxy", "");
	char byte = 0, control[CMSG_SPACE(sizeof(int))];
	memset(control, 0, sizeof control);
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	if (sendmsg(3, &msg, 0) != 1) fail(126, "could not put the server in its sandbox: handing the proxy's listener to mcptray", "");
	close(3);
	close(fd);
}

// The server's own /proc, /tmp and /dev/shm (privateMounts in
// mounts_linux.go).
#define PRIVATE_TMPFS "mode=1777,size=512m"

// carry_top adds to tops the folder or file right beneath /tmp that holds
// path, when it lies there, is there, and is not in tops yet.
static void carry_top(const char *path, size_t n, char ***tops, int **fds, int **dirs, size_t *count, size_t *cap) {
	if (n < 6 || strncmp(path, "/tmp/", 5) != 0) return;
	const char *name = path + 5;
	size_t len = strcspn(name, "/\n");
	if (len == 0 || (len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.')) return;
	char *top = strndup(path, 5 + len);
	int seen = 0;
	for (size_t k = 0; k < *count && !seen; k++) seen = strcmp((*tops)[k], top) == 0;
	int fd = seen ? -1 : open(top, O_PATH | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) { // seen, or not there: nothing to carry
		if (fd >= 0) close(fd);
		free(top);
		return;
	}
	if (*count == *cap) {
		*cap = *cap * 2 + 8;
		*tops = realloc(*tops, *cap * sizeof **tops);
		*fds = realloc(*fds, *cap * sizeof **fds);
		*dirs = realloc(*dirs, *cap * sizeof **dirs);
		if (*tops == NULL || *fds == NULL || *dirs == NULL) fail(126, "could not put the server in its sandbox: ", "carrying its paths");
	}
	(*tops)[*count] = top;
	(*fds)[*count] = fd;
	(*dirs)[(*count)++] = S_ISDIR(st.st_mode);
}

// private_mounts gives the init's mount namespace its own /proc, /tmp and
// /dev/shm, and carries back into its /tmp the folder or file right
// beneath the computer's /tmp that holds the program and each of the
// policy's paths (its "r" and "w" lines; policy and program NULL carry
// nothing, for the probe). Where it carried anything, it takes out the
// policy's rules on /tmp itself, which would hold for what it carried too
// (privateMounts, withoutTmp).
static void private_mounts(char *policy, const char *program) {
	const char *what = "could not put the server in its sandbox: ";
	if (getpid() != 1) {
		errno = EPERM;
		fail(126, what, "its own /proc, /tmp and /dev/shm need namespaces of its own");
	}
	size_t count = 0, cap = 0;
	char **tops = NULL;
	int *fds = NULL, *dirs = NULL;
	if (program != NULL) carry_top(program, strlen(program), &tops, &fds, &dirs, &count, &cap);
	for (const char *l = policy; l != NULL && *l != '\0'; l = strchr(l, '\n') + 1)
		if ((l[0] == 'r' || l[0] == 'w') && l[1] == ' ') carry_top(l + 2, (size_t)(strchr(l, '\n') - l - 2), &tops, &fds, &dirs, &count, &cap);
	if (mount("", "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) fail(126, what, "making its mounts its own");
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0) fail(126, what, "mounting its own /proc");
	const char *shared[] = {"/tmp", "/dev/shm"};
	for (size_t k = 0; k < 2; k++) {
		struct stat st;
		if (stat(shared[k], &st) != 0 && errno == ENOENT) continue; // nothing there to share
		if (mount("tmpfs", shared[k], "tmpfs", MS_NOSUID | MS_NODEV, PRIVATE_TMPFS) != 0)
			fail(126, what, k == 0 ? "mounting its own /tmp" : "mounting its own /dev/shm");
	}
	for (size_t k = 0; k < count; k++) {
		int r = 0;
		if (dirs[k]) {
			r = mkdir(tops[k], 0700);
		} else {
			int fd = open(tops[k], O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
			if (fd < 0) r = -1;
			else close(fd);
		}
		char from[64];
		snprintf(from, sizeof from, "/proc/self/fd/%d", fds[k]);
		if (r != 0 || mount(from, tops[k], NULL, MS_BIND | MS_REC, NULL) != 0)
			fail(126, "could not put the server in its sandbox: carrying into its own /tmp ", tops[k]);
		close(fds[k]);
	}
	if (count == 0) return;
	for (char *l = policy; *l != '\0'; l = strchr(l, '\n') + 1)
		if ((l[0] == 'r' || l[0] == 'w') && strncmp(l + 1, " /tmp\n", 6) == 0) l[0] = '-'; // a line sandbox_and_exec passes over
}

struct cap_header {
	uint32_t version;
	int pid;
};
struct cap_data {
	uint32_t effective, permitted, inheritable;
};

// drop_caps gives up the launcher's capabilities (dropCapabilities).
static int drop_caps(void) {
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL) return -1;
	if (getuid() == 0)
		for (int c = 0; c <= 63; c++)
			if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) != 0 && errno != EINVAL) return -1;
	struct cap_header h = {.version = 0x20080522, .pid = 0};
	struct cap_data d[2];
	memset(d, 0, sizeof d);
	return (int)syscall(SYS_capset, &h, d);
}

static int hexval(char c) {
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	return -1;
}

// install_filter installs the seccomp filter the policy's "f HEX" line
// carries (installFilter).
static void install_filter(const char *hex) {
	size_t n = strlen(hex);
	if (n == 0 || n % 16 != 0) { errno = EINVAL; fail(126, "could not put the server in its sandbox: its system call filter", ""); }
	unsigned char *b = malloc(n / 2);
	if (b == NULL) fail(126, "could not put the server in its sandbox: its system call filter", "");
	for (size_t i = 0; i < n / 2; i++) {
		int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
		if (hi < 0 || lo < 0) { errno = EINVAL; fail(126, "could not put the server in its sandbox: its system call filter", ""); }
		b[i] = (unsigned char)(hi << 4 | lo);
	}
	// The Go side wrote struct sock_filter in this machine's (little-endian)
	// byte order: it can be used as it is.
	struct sock_fprog prog = {.len = (unsigned short)(n / 16), .filter = (struct sock_filter *)b};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		fail(126, "could not put the server in its sandbox: setting no-new-privileges", "");
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0)
		fail(126, "could not put the server in its sandbox: installing its system call filter", "");
}

// signal_leftovers sends sig to what the server left (signalLeftovers).
static void signal_leftovers(int sig) {
	if (getpid() == 1) {
		kill(-1, sig);
		return;
	}
	char path[64];
	snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)getpid());
	FILE *f = fopen(path, "re");
	if (f == NULL) return;
	int pid;
	while (fscanf(f, "%d", &pid) == 1) kill(pid, sig);
	fclose(f);
}

// reap reaps the children that have ended; it returns whether any is left.
static int reap(void) {
	for (;;) {
		pid_t got = waitpid(-1, NULL, WNOHANG);
		if (got > 0) continue;
		if (got == 0) return 1;
		if (errno != EINTR) return 0;
	}
}

// end_leftovers: SIGTERM, a second's grace, then SIGKILL until nothing is
// left to reap (endLeftovers). SIGCHLD is blocked, so sigtimedwait waits
// for the next one.
static void end_leftovers(const sigset_t *chld) {
	signal_leftovers(SIGTERM);
	struct timespec end, now;
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += 1;
	while (reap()) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		long ns = (end.tv_sec - now.tv_sec) * 1000000000L + (end.tv_nsec - now.tv_nsec);
		if (ns <= 0) break;
		struct timespec left = {.tv_sec = ns / 1000000000L, .tv_nsec = ns % 1000000000L};
		sigtimedwait(chld, NULL, &left);
	}
	for (;;) {
		signal_leftovers(SIGKILL);
		if (waitpid(-1, NULL, 0) < 0 && errno == ECHILD) return;
	}
}

#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

// keep_only_stdio marks close-on-exec every file descriptor above stderr
// (keepOnlyStdio): the server starts with its three pipes alone, and no
// socket mcptray held reaches it.
static void keep_only_stdio(void) {
	if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) == 0) return;
	DIR *d = opendir("/proc/self/fd");
	if (d == NULL) fail(126, "could not put the server in its sandbox: reading its file descriptors", "");
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		int fd = atoi(e->d_name);
		if (fd > 2 && fd != dirfd(d) && fcntl(fd, F_SETFD, FD_CLOEXEC) != 0 && errno != EBADF)
			fail(126, "could not put the server in its sandbox: closing what it need not hold", "");
	}
	closedir(d);
}

// sandbox_and_exec restricts this process and executes the server.
static void sandbox_and_exec(char *policy, size_t n, int restrict_tcp, int any_socket, const char *filter, char **argv) {
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, CREATE_RULESET_VERSION);
	if (abi > 0) {
		struct ruleset_attr attr = {.handled_access_fs = fs_handled(abi, any_socket)};
		if (abi >= 4 && restrict_tcp) attr.handled_access_net = NET_CONNECT_TCP;
		if (abi >= 6) attr.scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL;
		int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
		if (ruleset < 0) fail(126, "could not put the server in its sandbox: making its rules", "");
		// The folders it and other servers may write, each as its own
		// string: a rule in one of them is opened through no link
		// (open_rule).
		size_t nwrites = 0;
		for (char *l = policy + n + 1; *l != '\0'; l = strchr(l, '\n') + 1)
			if (l[0] == 'w' || l[0] == 's') nwrites++;
		char **writes = calloc(nwrites + 1, sizeof *writes);
		if (writes == NULL) fail(126, "could not put the server in its sandbox: making its rules", "");
		nwrites = 0;
		for (char *l = policy + n + 1; *l != '\0'; l = strchr(l, '\n') + 1) {
			if (l[0] != 'w' && l[0] != 's') continue;
			if ((writes[nwrites++] = strndup(l + 2, (size_t)(strchr(l, '\n') - l - 2))) == NULL)
				fail(126, "could not put the server in its sandbox: making its rules", "");
		}
		for (char *l = policy + n + 1; *l != '\0';) {
			char *end = strchr(l, '\n');
			*end = '\0';
			if (l[0] == 'r') {
				add_path(ruleset, l + 2, FS_READ & attr.handled_access_fs, writes, nwrites);
			} else if (l[0] == 'w') {
				add_path(ruleset, l + 2, attr.handled_access_fs, writes, nwrites);
			} else if (l[0] == 'p' && attr.handled_access_net != 0) {
				char *rest;
				unsigned long port = strtoul(l + 2, &rest, 10);
				struct net_port_attr a = {.allowed_access = NET_CONNECT_TCP, .port = port};
				if (*rest != '\0' || port > 65535 || syscall(SYS_landlock_add_rule, ruleset, RULE_NET_PORT, &a, 0) != 0)
					fail(126, "could not put the server in its sandbox: allowing port ", l + 2);
			}
			l = end + 1;
		}
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
			fail(126, "could not put the server in its sandbox: setting no-new-privileges", "");
		if (syscall(SYS_landlock_restrict_self, ruleset, 0) != 0)
			fail(126, "could not put the server in its sandbox: restricting itself", "");
		close(ruleset);
	}
	keep_only_stdio();
	if (filter != NULL) install_filter(filter);
	execve(argv[0], argv + 1, environ);
	if (errno == EACCES) fail(126, "its sandbox does not let it run ", argv[0]);
	fail(127, "running ", argv[0]);
}

__attribute__((constructor)) static void launch(int argc, char **argv, char **envp) {
	(void)envp;
	int i = 1;
	if (argv == NULL) return;
	if (i < argc && strcmp(argv[i], "sandbox-exec") == 0) i++;
	if (i + 1 == argc && strcmp(argv[i], "--probe") == 0) {
		if (loopback_up() != 0) fail(1, "mcptray sandbox-exec: no namespaces here", "");
		private_mounts(NULL, NULL);
		if (drop_caps() != 0) fail(1, "mcptray sandbox-exec: no namespaces here", "");
		_exit(0);
	}
	if (i < argc && strcmp(argv[i], "--") == 0) i++;
	if (i != argc) return; // what to run comes in the policy: Launch says so
	const char *raw = getenv(POLICY_ENV);
	if (raw == NULL) return;
	char *policy = strdup(raw);
	if (policy == NULL) return;
	size_t n = strlen(POLICY_MAGIC);
	if (strncmp(policy, POLICY_MAGIC, n) != 0 || policy[n] != '\n') return;

	// First pass: is every line one this code knows? If not, Launch reads
	// the policy and says what is wrong.
	int restrict_tcp = 0, init = 0, any_socket = 0, mounts = 0, args = 0;
	unsigned long bridge_port = 0;
	const char *filter = NULL;
	for (char *l = policy + n + 1; *l != '\0';) {
		char *end = strchr(l, '\n');
		if (end == NULL) return;
		int arg = (l[0] == 'r' || l[0] == 'w' || l[0] == 's' || l[0] == 'p' || l[0] == 'f' || l[0] == 'b' || l[0] == 'x' || l[0] == 'a') && l[1] == ' ';
		int alone = (l[0] == 't' || l[0] == 'i' || l[0] == 'u' || l[0] == 'm') && end == l + 1;
		if (!arg && !alone) return;
		if (l[0] == 't') restrict_tcp = 1;
		if (l[0] == 'i') init = 1;
		if (l[0] == 'u') any_socket = 1;
		if (l[0] == 'm') mounts = 1;
		if (l[0] == 'a') args++;
		if (l[0] == 'b') {
			char *rest;
			bridge_port = strtoul(l + 2, &rest, 10);
			if (rest != end || bridge_port > 65535) return;
		}
		l = end + 1;
	}
	// The filter's hex, as its own string (the policy's lines are cut up
	// by the second pass).
	for (char *l = policy + n + 1; *l != '\0'; l = strchr(l, '\n') + 1)
		if (l[0] == 'f') filter = strndup(l + 2, (size_t)(strchr(l, '\n') - l - 2));
	// What to run: the program, then its argv, each unescaped ("\\" is
	// a backslash, "\n" a line break) into a string of its own.
	char **run = calloc((size_t)args + 2, sizeof *run);
	if (run == NULL) return;
	int next = 1;
	for (char *l = policy + n + 1; *l != '\0'; l = strchr(l, '\n') + 1) {
		if (l[0] != 'x' && l[0] != 'a') continue;
		char *end = strchr(l, '\n'), *out = malloc((size_t)(end - l)), *o = out;
		if (out == NULL) return;
		for (char *c = l + 2; c < end; c++) {
			if (*c != '\\') {
				*o++ = *c;
			} else if (c + 1 < end && (c[1] == '\\' || c[1] == 'n')) {
				*o++ = *++c == 'n' ? '\n' : '\\';
			} else {
				return; // not as Go writes it: Launch says so
			}
		}
		*o = '\0';
		if (l[0] == 'x') run[0] = out;
		else run[next++] = out;
	}
	if (run[0] == NULL || args == 0) return;
	unsetenv(POLICY_ENV);
	if (!init) sandbox_and_exec(policy, n, restrict_tcp, any_socket, filter, run);

	// The init (runInit): bring the proxy in, give up capabilities, fork
	// the server, pass signals on, and end what it leaves.
	if (bridge_port > 0) bridge(bridge_port);
	if (mounts) private_mounts(policy + n + 1, run[0]);
	if (drop_caps() != 0) fail(126, "could not put the server in its sandbox: giving up its capabilities", "");
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0)
		fail(126, "could not put the server in its sandbox: becoming its init", "");
	sigset_t passed, chld, old;
	sigemptyset(&passed);
	int forward[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
	for (size_t k = 0; k < sizeof forward / sizeof forward[0]; k++) sigaddset(&passed, forward[k]);
	sigaddset(&passed, SIGCHLD);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &passed, &old);
	pid_t self = getpid();
	pid_t child = fork();
	if (child < 0) fail(126, "could not put the server in its sandbox: starting it", "");
	if (child == 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || getppid() != self) _exit(126);
		sandbox_and_exec(policy, n, restrict_tcp, any_socket, filter, run);
	}
	int code = 0;
	for (;;) {
		siginfo_t si;
		int sig = sigwaitinfo(&passed, &si);
		if (sig < 0) continue;
		if (sig != SIGCHLD) {
			kill(child, sig);
			continue;
		}
		int status, done = 0;
		pid_t got;
		while ((got = waitpid(-1, &status, WNOHANG)) > 0) {
			if (got == child) {
				code = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
				done = 1;
			}
		}
		if (done) break;
	}
	end_leftovers(&chld);
	_exit(code);
}
