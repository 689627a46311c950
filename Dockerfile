# Hilltop in a container: the database lives on the /data volume.
#   docker build -t hilltop .
#   docker run -e DISCORD_TOKEN=... -v hilltop-data:/data hilltop
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md bot.py ./
COPY engine engine
COPY render render
COPY data data
COPY host host
COPY cogs cogs
RUN pip install --no-cache-dir --prefix=/install .

FROM python:3.11-slim
RUN useradd --create-home --uid 10001 hilltop && mkdir /data && chown hilltop /data
COPY --from=build /install /usr/local
ENV HILLTOP_DB=/data/hilltop.sqlite3 \
    PYTHONUNBUFFERED=1
VOLUME ["/data"]
USER hilltop
WORKDIR /home/hilltop
CMD ["python", "-m", "bot"]
