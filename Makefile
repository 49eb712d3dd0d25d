# unotable: `make run` and `make test` do all the set-up on a fresh machine (Debian packages, .venv, the project).
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# Debian packages the project uses: speech synthesis and audio (espeak-ng, sox, libportaudio2, ffmpeg),
# browser tests (chromium, chromium-driver), the PostgreSQL server the store tests start.
APT_PACKAGES := espeak-ng sox libportaudio2 ffmpeg chromium chromium-driver postgresql
EXTRAS ?= dev
SUDO := $(shell [ "$$(id -u)" != 0 ] && command -v sudo >/dev/null && echo sudo)
STAMP := $(VENV)/.installed-$(EXTRAS)-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)
PYTEST_ARGS ?=

.PHONY: all setup system-deps run demo test test-slow lint typecheck bench clean

all: test

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

system-deps:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:$$missing"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install -q -e '.[$(EXTRAS)]'
	rm -f $(VENV)/.installed-*
	touch $@

setup: system-deps $(STAMP)

run: setup
	$(VENV)/bin/unotable replay --pretty tracker/samples/sample-falsonal.jsonl

test: setup
	$(PY) -m pytest -m "not slow" $(PYTEST_ARGS)

test-slow: setup
	$(PY) -m pytest -m slow $(PYTEST_ARGS)

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

typecheck: setup
	$(VENV)/bin/mypy

bench: setup
	$(PY) benchmarks/bench_replay.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
