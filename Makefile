# Hilltop: `make run` plays (Discord with DISCORD_TOKEN set, else the console), `make test` checks.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DOMAIN := hilltop

# The catalogues of each language, compiled for the bot from the ones people write.
CATALOGUES := $(wildcard host/locale/*/LC_MESSAGES/*.po)
COMPILED := $(CATALOGUES:.po=.mo)

.PHONY: run test lint bench strength clean messages

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

%.mo: %.po $(STAMP)
	$(BIN)/pybabel compile --statistics --input-file $< --output-file $@

run: $(STAMP) $(COMPILED)
	$(BIN)/python bot.py

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

test: lint $(COMPILED)
	$(BIN)/python -m pytest

bench: $(STAMP) $(COMPILED)
	$(BIN)/python -m bench

# After changing what players read: extract the messages from the code into the
# template, bring every language's catalogue up to date with it, then translate what is
# new (README: Languages).
messages: $(STAMP)
	$(BIN)/pybabel extract --mapping-file babel.cfg --no-default-keywords \
		--keyword t --keyword tn:1,2 --no-location --sort-output \
		--project Hilltop --output-file host/locale/$(DOMAIN).pot .
	$(BIN)/pybabel update --input-file host/locale/$(DOMAIN).pot --output-dir host/locale \
		--domain $(DOMAIN) --no-fuzzy-matching --ignore-obsolete --width 100
	$(BIN)/python -m cogs.command_texts

# The computer levels matched against each other (slow; GAMES=20 for a quick look).
strength: $(STAMP)
	$(BIN)/python -m bench.strength --games $(or $(GAMES),100) --jobs 2

clean:
	rm -rf $(VENV) var .pytest_cache .mypy_cache .ruff_cache .hypothesis
