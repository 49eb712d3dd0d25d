# unotable: `make run` and `make test` do all the set-up on a fresh machine (Debian packages, .venv, the project).
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# Debian packages the project uses: speech synthesis and audio (espeak-ng, sox, libportaudio2, ffmpeg),
# browser tests (chromium, chromium-driver), the PostgreSQL server the store tests start, and the other offline
# voices `unotable train-speech` synthesises its training data with (flite, festival and its voices, with the
# speakers of other languages of speech/accents.py).
APT_PACKAGES := espeak-ng sox libportaudio2 ffmpeg chromium chromium-driver postgresql \
	flite festival festvox-ru festvox-kallpc16k festvox-kdlpc16k festvox-us-slt-hts \
	festival-czech festvox-czech-dita festvox-czech-krb festvox-czech-machac festvox-czech-ph \
	festvox-italp16k festvox-itapc16k festvox-suopuhe-common festvox-suopuhe-lj festvox-suopuhe-mv \
	festival-hi festvox-hi-nsk festival-mr festvox-mr-nsk festival-te festvox-te-nsk festival-ca festvox-ca-ona-hts
# Real human voices for the keyword spotter's training and its real-voice false-alarm guide (speech/realvoices.py:
# Asterisk's telephone prompts, KLettres' letters; about 170 MB), installed by `make speech-real-voices` only.
REAL_VOICE_PACKAGES := asterisk-core-sounds-en-wav asterisk-core-sounds-es-wav asterisk-core-sounds-fr-wav \
	asterisk-core-sounds-it-wav asterisk-core-sounds-ru-wav asterisk-prompt-es-co asterisk-prompt-fr-armelle \
	asterisk-prompt-it-menardi-wav klettres-data
RUN_EXTRAS := audio
TEST_EXTRAS := dev,train,audio
SUDO := $(shell [ "$$(id -u)" != 0 ] && command -v sudo >/dev/null && echo sudo)
PYTEST_ARGS ?=
RUN_ARGS ?=

# pip-install the project with the given extras once per pyproject.toml version
define install
	@stamp="$(VENV)/.installed-$(1)-$$(cksum < pyproject.toml | cut -d' ' -f1)"; \
	if [ ! -f "$$stamp" ]; then \
		echo "installing unotable[$(1)] into $(VENV)"; \
		$(PY) -m pip install -q -e '.[$(1)]' && rm -f $(VENV)/.installed-* && touch "$$stamp"; \
	fi
endef

.PHONY: all system-deps speech-real-voices run test test-slow lint typecheck bench demo speech-model speech-eval eval-video \
	bench-video markers clean

all: test

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

system-deps:
	@missing=""; for p in $(PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:$$missing"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi

PACKAGES ?= $(APT_PACKAGES)

# the real voices of speech/realvoices.py (training and the real-voice guide; not needed to run or test)
speech-real-voices:
	@$(MAKE) --no-print-directory system-deps PACKAGES="$(REAL_VOICE_PACKAGES)"

# the assistant on its built-in demo table; the dashboard at http://127.0.0.1:5000
run: system-deps | $(PY)
	$(call install,$(RUN_EXTRAS))
	$(VENV)/bin/unotable run $(RUN_ARGS)

# the default suite: everything but the long runs; tiny training smoke runs (marked smoke) stay in
test: system-deps | $(PY)
	$(call install,$(TEST_EXTRAS))
	$(PY) -m pytest -m "not slow or smoke" $(PYTEST_ARGS)

# long runs: real training, soaks, the full load benchmark
test-slow: system-deps | $(PY)
	$(call install,$(TEST_EXTRAS))
	$(PY) -m pytest -m "slow and not smoke" $(PYTEST_ARGS)

lint: | $(PY)
	$(call install,$(TEST_EXTRAS))
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

bench: | $(PY)
	$(call install,$(TEST_EXTRAS))
	$(PY) benchmarks/bench_replay.py

demo: | $(PY)
	$(call install,$(TEST_EXTRAS))
	$(PY) -m unotable.demo

speech-model: | $(PY)
	$(call install,$(TEST_EXTRAS))
	nice -n 10 $(VENV)/bin/unotable train-speech

speech-eval: | $(PY)
	$(call install,$(TEST_EXTRAS))
	$(VENV)/bin/unotable eval-speech

eval-video: | $(PY)
	$(call install,$(TEST_EXTRAS))
	$(VENV)/bin/unotable eval-video --games 20 --seed 91000 --jobs 2 --json

bench-video: | $(PY)
	$(call install,$(TEST_EXTRAS))
	$(PY) benchmarks/bench_video.py

markers: | $(PY)
	$(call install,$(RUN_EXTRAS))
	$(VENV)/bin/unotable markers --out markers

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
