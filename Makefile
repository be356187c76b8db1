# pbsift: build, test and install.
#   make                    release build (.build/release/pbsift)
#   make install PREFIX=~/.local   the binary, the man page and bash/zsh/fish completions
#   make test               debug build and every test

PREFIX ?= /usr/local
DESTDIR ?=
SWIFT ?= swift
BIN ?= .build/release/pbsift

BINDIR = $(DESTDIR)$(PREFIX)/bin
MANDIR = $(DESTDIR)$(PREFIX)/share/man/man1
BASHDIR = $(DESTDIR)$(PREFIX)/share/bash-completion/completions
ZSHDIR = $(DESTDIR)$(PREFIX)/share/zsh/site-functions
FISHDIR = $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d

.PHONY: all build install install-files uninstall test clean

all: build

build:
	$(SWIFT) build -c release --product pbsift

install: build install-files

# Installs an already built $(BIN) (make install builds it first).
install-files:
	install -d "$(BINDIR)" "$(MANDIR)" "$(BASHDIR)" "$(ZSHDIR)" "$(FISHDIR)"
	install -m 755 "$(BIN)" "$(BINDIR)/pbsift"
	install -m 644 man/pbsift.1 "$(MANDIR)/pbsift.1"
	"$(BIN)" completions bash > "$(BASHDIR)/pbsift"
	"$(BIN)" completions zsh > "$(ZSHDIR)/_pbsift"
	"$(BIN)" completions fish > "$(FISHDIR)/pbsift.fish"

uninstall:
	rm -f "$(BINDIR)/pbsift" "$(MANDIR)/pbsift.1" "$(BASHDIR)/pbsift" "$(ZSHDIR)/_pbsift" "$(FISHDIR)/pbsift.fish"

test:
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

clean:
	$(SWIFT) package clean
