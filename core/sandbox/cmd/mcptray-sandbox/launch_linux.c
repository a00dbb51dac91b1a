//go:build linux && cgo

// The launcher's work in C, in a constructor: it runs when the program is
// loaded, before Go's runtime starts, and executes the server in this
// process's place, so that the runtime never starts at all. Go's start
// costs a few milliseconds on a small virtual machine (its threads, its
// memory, its cgroup reads), which every server's start would pay. What it
// does is what sandbox.Launch does (core/sandbox/launch.go and
// landlock_linux.go), from the same policy lines; when anything here is
// not as expected (no policy, an unknown line) it returns and leaves the
// work, and the words, to Launch.
//
// glibc passes argc, argv and envp to constructors; a C library that does
// not (musl) passes nothing, and Launch does the work.

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
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
#define POLICY_MAGIC "mcptray-sandbox 1"

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
#define FS_FILE (FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV)
#define NET_CONNECT_TCP (1ULL << 1)
#define SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define SCOPE_SIGNAL (1ULL << 1)

// fs_handled: as fsHandled in landlock_linux.go.
static uint64_t fs_handled(long abi) {
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

// add_path allows rights beneath path; a path that cannot be opened is
// left out, since nothing there can be reached.
static void add_path(int ruleset, const char *path, uint64_t rights) {
	int fd = open(path, O_PATH | O_CLOEXEC);
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

__attribute__((constructor)) static void launch(int argc, char **argv, char **envp) {
	(void)envp;
	int i = 1;
	if (argv == NULL) return;
	if (i < argc && strcmp(argv[i], "sandbox-exec") == 0) i++;
	if (i < argc && strcmp(argv[i], "--") == 0) i++;
	if (argc - i < 2) return;
	const char *raw = getenv(POLICY_ENV);
	if (raw == NULL) return;
	char *policy = strdup(raw);
	if (policy == NULL) return;
	size_t n = strlen(POLICY_MAGIC);
	if (strncmp(policy, POLICY_MAGIC, n) != 0 || policy[n] != '\n') return;

	// First pass: is every line one this code knows? If not, Launch reads
	// the policy and says what is wrong.
	int restrict_tcp = 0;
	for (char *l = policy + n + 1; *l != '\0';) {
		char *end = strchr(l, '\n');
		if (end == NULL) return;
		if (!((l[0] == 'r' || l[0] == 'w' || l[0] == 'p') && l[1] == ' ') && !(l[0] == 't' && end == l + 1)) return;
		if (l[0] == 't') restrict_tcp = 1;
		l = end + 1;
	}
	unsetenv(POLICY_ENV);

	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, CREATE_RULESET_VERSION);
	if (abi > 0) {
		struct ruleset_attr attr = {.handled_access_fs = fs_handled(abi)};
		if (abi >= 4 && restrict_tcp) attr.handled_access_net = NET_CONNECT_TCP;
		if (abi >= 6) attr.scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL;
		int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
		if (ruleset < 0) fail(126, "could not put the server in its sandbox: making its rules", "");
		for (char *l = policy + n + 1; *l != '\0';) {
			char *end = strchr(l, '\n');
			*end = '\0';
			if (l[0] == 'r') {
				add_path(ruleset, l + 2, FS_READ & attr.handled_access_fs);
			} else if (l[0] == 'w') {
				add_path(ruleset, l + 2, attr.handled_access_fs);
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
	execve(argv[i], argv + i + 1, environ);
	if (errno == EACCES) fail(126, "its sandbox does not let it run ", argv[i]);
	fail(127, "running ", argv[i]);
}
