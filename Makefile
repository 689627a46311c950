# Hilltop: `make run` plays (Discord with DISCORD_TOKEN set, else the console), `make test` checks.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DOMAIN := hilltop
TEMPLATE := host/locale/$(DOMAIN).pot
# The width message templates and catalogues are written at: the code's line length.
WIDTH := 100

# The catalogues of each language, compiled for the bot from the ones people write.
CATALOGUES := $(wildcard host/locale/*/LC_MESSAGES/*.po)
COMPILED := $(CATALOGUES:.po=.mo)

# The Activity's script (web/activity): its packages exactly as its lock file has them,
# and the one minified file the Activity's first page loads, which is built, never
# committed.
ACTIVITY := web/activity
BUNDLE := web/static/activity.js
NODE_STAMP := $(ACTIVITY)/node_modules/.installed

.PHONY: run test lint bench strength clean messages activity

# The development install: the project and its tools, with the run-time dependencies at
# the versions requirements.lock pins, which the image installs. Its versions alone
# constrain pip here: with the hashes, pip would ask one of every package, the project's
# own editable install included. The tools, which the lock does not hold, get the newest
# versions pyproject.toml allows.
$(STAMP): pyproject.toml requirements.lock
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	sed -e '/--hash=/d' -e 's/ *\\$$//' requirements.lock > $(VENV)/constraints.txt
	$(BIN)/python -m pip install --quiet -c $(VENV)/constraints.txt -e '.[dev]'
	touch $(STAMP)

%.mo: %.po $(STAMP)
	$(BIN)/pybabel compile --statistics --input-file $< --output-file $@

$(NODE_STAMP): $(ACTIVITY)/package.json $(ACTIVITY)/package-lock.json
	cd $(ACTIVITY) && npm ci --no-audit --no-fund
	touch $@

$(BUNDLE): $(NODE_STAMP) $(wildcard $(ACTIVITY)/src/*.js)
	cd $(ACTIVITY) && npm run --silent build

activity: $(BUNDLE)

# The bot runs without the Activity's script where there is no Node to build it (the
# Activity's first page then says it is not built); the tests need it.
run: $(STAMP) $(COMPILED) $(if $(shell command -v npm),$(BUNDLE))
	$(BIN)/python bot.py

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# One worker per core; a worker that finishes its share takes tests from the others, so
# that a few long tests do not leave a core idle at the end.
test: lint $(COMPILED) $(BUNDLE)
	$(BIN)/python -m pytest -n auto --dist worksteal

bench: $(STAMP) $(COMPILED)
	$(BIN)/python -m bench

# After changing what players read: extract the messages from the code into the
# template, bring every language's catalogue up to date with it, then translate what is
# new (README: Languages). Templates and catalogues are all written 100 characters wide,
# and a template whose only change would be its date is kept as it was, so that a run
# changes the files only where a message changed.
messages: $(STAMP)
	$(BIN)/pybabel extract --mapping-file babel.cfg --no-default-keywords \
		--keyword t --keyword tn:1,2 --no-location --sort-output --width $(WIDTH) \
		--project Hilltop --output-file $(TEMPLATE).new .
	if diff -q -I '^"POT-Creation-Date: ' $(TEMPLATE) $(TEMPLATE).new >/dev/null; \
		then rm $(TEMPLATE).new; else mv $(TEMPLATE).new $(TEMPLATE); fi
	$(BIN)/pybabel update --input-file $(TEMPLATE) --output-dir host/locale \
		--domain $(DOMAIN) --no-fuzzy-matching --ignore-obsolete --width $(WIDTH)
	$(BIN)/python -m cogs.command_texts --width $(WIDTH)

# The computer levels matched against each other (slow; GAMES=20 for a quick look).
strength: $(STAMP)
	$(BIN)/python -m bench.strength --games $(or $(GAMES),100) --jobs 2

clean:
	rm -rf $(VENV) var .pytest_cache .mypy_cache .ruff_cache .hypothesis
	rm -rf $(ACTIVITY)/node_modules $(BUNDLE)
