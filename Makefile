# mcptray's build. `make run` and `make test` are all a person needs: both
# first install what is missing (scripts/deps.sh) and say so.

GO ?= go
# Fuzz targets as package:FuzzName, e.g. ./core/config:FuzzParseMCPJSON.
FUZZ_TARGETS ?= ./core/config:FuzzParseMCPServers ./core/config:FuzzParseVSCode ./core/config:FuzzExpand ./core/config:FuzzPolicy ./core/sanitize:FuzzString
FUZZTIME ?= 2m
# Extra flags for go test in `make test`, e.g. GOTESTFLAGS='-run Keychain -v'.
GOTESTFLAGS ?=
export GOTESTFLAGS

# cgo's C compiler, for Fyne's OpenGL and GLFW: clang where there is one
# (make deps installs it on Debian/Ubuntu), else Go's default. cgo learns
# what each C name of Fyne's OpenGL binding is by compiling a probe that
# fails tens of thousands of times on purpose; gcc looks for a spelling
# suggestion after every failure (3 minutes of one core here), clang only
# after the first 50 (35 s). `make CC=gcc ...` chooses another. Read when a
# recipe starts, so after the deps step before it has installed clang.
ifeq ($(origin CC),default)
CC = $(if $(shell command -v clang),clang,$(shell $(GO) env CC))
endif
export CC

# Targets run one after another in the order given (`run` is build, which
# first installs what is missing, then the app); go parallelises inside each step.
.NOTPARALLEL:

.PHONY: all deps build run test test-windows conformance fuzz bench screenshots package package-windows

all: build

deps:
	@bash scripts/deps.sh

# deps-MODE: scripts/deps.sh MODE (run, package, windows), as a step of its
# own, so that the recipe after it sees what it installed (CC, above).
deps-%:
	@bash scripts/deps.sh $*

# The version is FyneApp.toml's, stamped into the binary (mcptray version).
VERSION := $(shell sed -n 's/^[[:space:]]*Version[[:space:]]*=[[:space:]]*"\([^"]*\)".*/\1/p' FyneApp.toml | head -n 1)

# Building and running need only the system packages: a failed npm install
# of the test peers is reported but does not stop them.
build: deps-run
	$(GO) build -ldflags "-X github.com/mcptray/mcptray/core/service.Version=$(VERSION)" -o bin/mcptray .
	$(GO) build -o bin/mcptray-sandbox ./core/sandbox/cmd/mcptray-sandbox

run: build
	./bin/mcptray

test: deps
	@bash scripts/test.sh

# mcptray.exe run under Wine 10, in a Debian 13 root made once into
# ~/.cache/mcptray-wine (test/windows/wine-root.sh); as root. Not part of
# test: see README for what it covers and its time.
test-windows: deps deps-windows
	@bash test/windows/test.sh

# The official MCP conformance suite's client scenarios, run against mcptray;
# prints one line a scenario and the summary.
conformance: deps
	@bash scripts/conformance.sh

fuzz: deps
	@set -e; \
	if [ -z "$(strip $(FUZZ_TARGETS))" ]; then \
		echo "fuzz: no fuzz targets yet (FUZZ_TARGETS is empty)"; exit 0; \
	fi; \
	for target in $(FUZZ_TARGETS); do \
		pkg=$${target%%:*}; name=$${target#*:}; \
		if ! $(GO) test -list="^$$name\$$" "$$pkg" | grep -qx "$$name"; then \
			echo "fuzz: there is no $$name in $$pkg" >&2; exit 1; \
		fi; \
		echo "fuzz: $$name in $$pkg for $(FUZZTIME)"; \
		$(GO) test -run='^$$' -fuzz="^$$name\$$" -fuzztime=$(FUZZTIME) "$$pkg"; \
	done

bench: deps
	$(GO) test -run='^$$' -bench=. ./...

# PNGs of the window, its approval dialog, a server's question and the
# welcome, in screenshots/ (git-ignored): look at them as a newcomer would.
# Needs Xvfb, xdotool and imagemagick.
screenshots: deps
	@bash scripts/screenshots.sh

# dist/mcptray-VERSION-linux-ARCH.tar.xz (fyne package) and
# dist/mcptray_VERSION_ARCH.deb; the source tree is left as it was.
package: deps-package
	@bash scripts/package.sh

# dist/mcptray-VERSION-windows-amd64.zip, cross-built with MinGW-w64
# (scripts/deps.sh windows installs it on Debian/Ubuntu).
package-windows: deps-windows
	@bash scripts/package.sh windows
