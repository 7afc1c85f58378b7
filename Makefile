# LLLM — every set-up step lives here, so a fresh clone needs only `make serve` or `make test`.
# The virtual environment is .venv at the repo root; npm packages go to node_modules/.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PORT   ?= 8000
export OPENBLAS_NUM_THREADS ?= 1

.PHONY: help venv model models agent-model agent-model-commit test bench serve site node format browsers chromium deploy clean

help:
	@echo "make serve   build the model and the site, serve it at http://127.0.0.1:$(PORT)"
	@echo "make test    install everything and run every test (unit, export, site, browser)"
	@echo "make model   train TinyLLM and export build/model/tinyllm.onnx (reused when up to date) and its inspection graph; TinyGPT (committed)"
	@echo "make models  make model, then the agent-tuned TinyLLM (committed) and its inspection graph"
	@echo "make agent-model  retrain the agent-tuned TinyLLM (~50 min) and check it is the committed one bit for bit"
	@echo "make bench   benchmarks: numpy vs PyTorch training, generation, recurrence vs attention per character, TinyLLM vs TinyGPT (in CPython and in each engine's page), the model server, agent model before/after, site size, in-page runtime, a first visit per engine, each page kind against its byte budget, Lighthouse on six pages, the HTML validator over the site"
	@echo "make site    build public/ (the static site Cloudflare Pages serves)"
	@echo "make format  rewrite the JavaScript as Biome's formatter lays it out (make test fails on a file it would change)"
	@echo "make deploy  wrangler pages deploy public (needs CLOUDFLARE_API_TOKEN, CLOUDFLARE_ACCOUNT_ID)"

# ---- Python environment --------------------------------------------------------------------
$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@

venv: $(VENV)/.installed

# ---- TinyLLM ---------------------------------------------------------------------------------
model: venv
	$(PY) -m export.build --out build/model
	$(PY) -m export.inspect_export --model build/model/tinyllm.onnx   # the same weights, every stage an output (~1 s)
	$(PY) -m export.gpt_build --out build/model   # TinyGPT: the committed model (export/trained/) while its key matches

# The agent-tuned TinyLLM. Its full recipe takes ~50 min on two cores, so its result is committed
# (export/trained/, with a card recording the recipe, seeds, data hash and numpy's CPU features):
# `models` copies it into build/model while it is up to date with its sources (and trains when
# they have changed). `make agent-model` retrains it from the sources and checks the result is the
# committed model bit for bit; after changing its sources, `make agent-model-commit` replaces it.
models: model
	$(PY) -m export.agent_build --out build/model
	$(PY) -m export.inspect_export --model build/model/tinyllm-agent.onnx   # its inspection graph, every member's stages (~1 s)

agent-model: venv
	$(PY) -m export.agent_build --out build/model --force --verify

agent-model-commit: venv
	$(PY) -m export.agent_build --out build/model --force --commit

# ---- JavaScript dependencies (committed lockfile) --------------------------------------------
# PUPPETEER_SKIP_DOWNLOAD: Puppeteer drives Debian's firefox-esr; it must not fetch a browser of its own.
node_modules/.installed: package.json package-lock.json
	PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund
	touch $@

node: node_modules/.installed

# The files and the settings are biome.jsonc's (the linter's files); tests/house/test_js_lint.py checks the same.
format: node
	node_modules/.bin/biome format --write

# ---- Browsers for the tests (Debian's packages; Playwright cannot download one here) ----------
# Chromium (Playwright), Firefox ESR (Puppeteer over WebDriver BiDi), WebKitGTK's WebDriver
# (Selenium; it needs an X display, hence Xvfb), and bubblewrap (run_python's sandbox). Installed only when one is missing.
BROWSER_PACKAGES := chromium firefox-esr webkit2gtk-driver xvfb bubblewrap
browsers:
	@command -v chromium >/dev/null 2>&1 && command -v firefox-esr >/dev/null 2>&1 && \
	  command -v WebKitWebDriver >/dev/null 2>&1 && command -v Xvfb >/dev/null 2>&1 && \
	  command -v bwrap >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq $(BROWSER_PACKAGES); \
	  else sudo apt-get update -qq && sudo apt-get install -y -qq $(BROWSER_PACKAGES); fi; }

chromium: browsers

# ---- Site --------------------------------------------------------------------------------------
site: venv node models browsers   # browsers: Chromium draws the diagrams (hooks/diagrams.py)
	NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs build --strict

serve: site
	$(PY) -m hooks.serve --dir public --port $(PORT) --gzip

deploy: site
	npx wrangler pages deploy public

# ---- Tests and benchmarks ----------------------------------------------------------------------
test: venv models node browsers
	$(PY) -m pytest

bench: venv models
	-$(PY) -m pip install --quiet torch==2.13.0 || echo "torch not installed: the PyTorch half of the benchmark will be skipped"
	$(PY) bench/train_bench.py
	$(PY) bench/generate_bench.py
	$(PY) bench/attention_bench.py
	$(PY) bench/serve_model_bench.py
	$(PY) -m pip install --quiet locust==2.47.0
	$(PY) bench/serve_load_bench.py --out bench/results/serve-load.md
	$(PY) bench/tinygpt_bench.py --train --out bench/results/tinygpt.md
	$(PY) bench/tinygpt_page_bench.py --out bench/results/tinygpt-page.md
	$(PY) bench/loss_curves_bench.py --model all --render
	$(PY) bench/agent_bench.py --grammar --per-family 60
	$(MAKE) node browsers
	$(PY) bench/sandbox_bench.py
	$(PY) bench/site_bench.py
	$(PY) bench/page_bench.py
	$(PY) bench/page_sandbox_bench.py
	$(PY) bench/train_tab_bench.py
	node bench/train_tab_overfit.mjs
	$(PY) bench/engine_bench.py --out bench/results/first-visit.md
	$(PY) bench/byte_budget.py
	$(PY) bench/lighthouse_bench.py --out bench/results/lighthouse.md
	@command -v java >/dev/null 2>&1 || { if [ "$$(id -u)" = 0 ]; then apt-get install -y -qq default-jre-headless; else sudo apt-get install -y -qq default-jre-headless; fi; }
	$(PY) bench/validator_bench.py --out bench/results/validator.md

clean:
	rm -rf build public .pytest_cache
