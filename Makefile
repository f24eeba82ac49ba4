# computeops-cdk: the README's two commands, `make demo` and `make test`, install what they need.
# Everything lands in the repository (.venv, node_modules); nothing is installed system-wide.

PYTHON      ?= python3
VENV        := .venv
PY          := $(VENV)/bin/python
# Node 22 (from the `node` npm package) and the cdktn CLI come first on PATH: the machine's Node is 20.
export PATH := $(CURDIR)/node_modules/.bin:$(CURDIR)/$(VENV)/bin:$(PATH)
export PYTHONHASHSEED ?= 0
export CHECKPOINT_DISABLE := 1
export CDKTN_DISABLE_TELEMETRY := true
export CDKTF_DISABLE_TELEMETRY := true
export NO_MKDOCS_2_WARNING := 1

PY_STAMP   := $(VENV)/.installed
NODE_STAMP := node_modules/.installed
EXAMPLE    ?= examples/support-chat.yaml

.PHONY: demo test docs lint typecheck unit tools bench accuracy catalog schemas clean help

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

$(PY_STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[all,dev,docs]'
	@touch $@

# The boot-script tests run the real validators: shellcheck and cloud-init (Debian packages).
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
tools:  ## install shellcheck and cloud-init (apt) when missing
	@command -v shellcheck >/dev/null 2>&1 && command -v cloud-init >/dev/null 2>&1 || \
	  { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq shellcheck cloud-init; }

$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

demo: $(PY_STAMP) $(NODE_STAMP)  ## decide for an example intent, then `cdktn synth` the example stacks
	$(VENV)/bin/computeops decide $(EXAMPLE) --format table
	$(PY) -m computeops_cdk.cli._demo

test: lint typecheck unit  ## ruff, mypy (strict) and the whole pytest suite

lint: $(PY_STAMP)
	$(VENV)/bin/ruff check src tests benchmarks stacks
	$(VENV)/bin/ruff format --check src tests benchmarks stacks

typecheck: $(PY_STAMP)
	$(VENV)/bin/mypy

unit: $(PY_STAMP) $(NODE_STAMP) tools
	$(PY) -m pytest -q

bench: $(PY_STAMP) $(NODE_STAMP)  ## speed and memory benchmarks (decide, start-up, catalog load, synth, terraform provider, refresh)
	$(PY) benchmarks/bench_decide.py
	$(PY) benchmarks/bench_refresh.py --write benchmarks/REFRESH.md
	$(PY) benchmarks/bench_startup.py
	$(PY) benchmarks/bench_catalog.py --phases
	$(PY) benchmarks/bench_synth.py
	$(PY) benchmarks/bench_terraform.py --write benchmarks/TERRAFORM.md

accuracy: $(PY_STAMP)  ## performance model vs published measurements
	$(PY) benchmarks/accuracy.py

docs: $(PY_STAMP)  ## regenerate docs/intent-reference.md from the intent schema, then build the site into site/ (strict)
	$(PY) docs/hooks/intent_reference.py docs/intent-reference.md
	$(VENV)/bin/mkdocs build --strict --site-dir site

schemas: $(PY_STAMP)  ## regenerate schemas/intent.schema.json from the intent model; copy schemas/ into the package
	$(PY) -m computeops_cdk.schemas schemas

catalog: $(PY_STAMP)  ## rebuild the embedded catalog (and its packed form, catalog.packed.json) from data/market
	$(VENV)/bin/computeops catalog build --output src/computeops_cdk/catalog/data/catalog.json

clean:
	rm -rf $(VENV) node_modules site cdktf.out stacks/*/cdktf.out .pytest_cache .mypy_cache .ruff_cache
