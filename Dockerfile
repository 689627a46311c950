# Hilltop in a container: the database lives on the /data volume.
#   docker build -t hilltop .
#   docker run -e DISCORD_TOKEN=... -v hilltop-data:/data hilltop

# The Activity's script, built from web/activity with the packages its lock file pins. Its
# sources are mounted for the build rather than copied: only the built file goes on.
FROM node:20-slim AS activity
WORKDIR /build
RUN --mount=type=bind,source=web/activity,target=/build/web/activity,rw \
    --mount=type=cache,target=/root/.npm \
    cd web/activity && npm ci --no-audit --no-fund && npm run --silent build

FROM python:3.11-slim

# tini runs as PID 1: it passes `docker stop`'s SIGTERM on to the bot, which then stops
# gracefully, and reaps the bot's worker processes.
RUN apt-get update \
    && apt-get install --yes --no-install-recommends tini \
    && rm -rf /var/lib/apt/lists/*
RUN useradd --create-home --uid 10001 hilltop && mkdir /data && chown hilltop /data

WORKDIR /app
# The pinned dependencies first, from the lock file alone: a change to the source reuses
# this layer.
COPY requirements.lock ./
RUN pip install --no-cache-dir --require-hashes --only-binary=:all: -r requirements.lock

COPY bot.py ./
COPY engine engine
COPY render render
COPY data data
COPY host host
COPY cogs cogs
COPY console console
COPY web web
COPY --from=activity /build/web/static/activity.js web/static/activity.js
# The languages' catalogues, compiled from the ones translators write.
RUN pybabel compile --domain hilltop --directory host/locale \
    && pybabel compile --domain commands --directory host/locale \
    && python -m compileall -q /app

ENV HILLTOP_DB=/data/hilltop.sqlite3 \
    HILLTOP_HEARTBEAT=/tmp/hilltop.heartbeat \
    PYTHONUNBUFFERED=1
VOLUME ["/data"]
# The web pages, when HILLTOP_WEB=0.0.0.0:8080 is set (HILLTOP_WEB_URL: their address).
EXPOSE 8080
USER hilltop
# Healthy while connected to Discord: the bot touches its heartbeat file every 20 s.
HEALTHCHECK --interval=30s --timeout=10s --start-period=60s --retries=3 \
    CMD ["python", "-m", "bot", "--healthcheck"]
ENTRYPOINT ["tini", "--"]
CMD ["python", "-m", "bot"]
