# mcptray's build. `make run` and `make test` are all a person needs: both
# first install what is missing (scripts/deps.sh) and say so.

GO ?= go
# Fuzz targets as package:FuzzName, e.g. ./core/config:FuzzParseMCPJSON.
FUZZ_TARGETS ?= ./core/config:FuzzParseMCPServers ./core/config:FuzzParseVSCode ./core/config:FuzzExpand ./core/config:FuzzPolicy ./core/sanitize:FuzzString
FUZZTIME ?= 2m
# Extra flags for go test in `make test`, e.g. GOTESTFLAGS='-run Keychain -v'.
GOTESTFLAGS ?=
export GOTESTFLAGS

# Targets run one after another in the order given (`run` is build, which
# first installs what is missing, then the app); go parallelises inside each step.
.NOTPARALLEL:

.PHONY: all deps build run test conformance fuzz bench screenshots package package-windows

all: build

deps:
	@bash scripts/deps.sh

# The version is FyneApp.toml's, stamped into the binary (mcptray version).
VERSION := $(shell sed -n 's/^[[:space:]]*Version[[:space:]]*=[[:space:]]*"\([^"]*\)".*/\1/p' FyneApp.toml | head -n 1)

# Building and running need only the system packages: a failed npm install
# of the test peers is reported but does not stop them.
build:
	@bash scripts/deps.sh run
	$(GO) build -ldflags "-X github.com/mcptray/mcptray/core/service.Version=$(VERSION)" -o bin/mcptray .
	$(GO) build -o bin/mcptray-sandbox ./core/sandbox/cmd/mcptray-sandbox

run: build
	./bin/mcptray

test: deps
	@bash scripts/test.sh

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
package:
	@bash scripts/deps.sh package
	@bash scripts/package.sh

# dist/mcptray-VERSION-windows-amd64.zip, cross-built with MinGW-w64
# (scripts/deps.sh windows installs it on Debian/Ubuntu).
package-windows:
	@bash scripts/deps.sh windows
	@bash scripts/package.sh windows
