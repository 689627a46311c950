"""What ships: the wheel carries the data files, and the Docker image (checked statically,
as no Docker engine is needed for the tests) is built from pinned dependencies, runs under
an init as a non-root user and has a health check that works."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import tomllib
import zipfile
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "render", "data", "host", "cogs", "console", "web")
SOURCES = {"bot.py", *PACKAGES}


def instructions() -> list[tuple[str, str]]:
    """The Dockerfile's instructions as (KEYWORD, arguments), continuations joined."""
    found: list[tuple[str, str]] = []
    pending = ""
    for line in (ROOT / "Dockerfile").read_text(encoding="utf-8").splitlines():
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        pending += line.rstrip().removesuffix("\\") + " "
        if not line.rstrip().endswith("\\"):
            keyword, _, rest = pending.strip().partition(" ")
            found.append((keyword.upper(), " ".join(rest.split())))
            pending = ""
    return found


def exec_form(arguments: str) -> list[str]:
    words = json.loads(arguments)
    assert isinstance(words, list) and all(isinstance(w, str) for w in words), arguments
    return words


def lock() -> dict[str, tuple[Version, list[str]]]:
    """requirements.lock: canonical name -> (pinned version, hashes)."""
    text = (ROOT / "requirements.lock").read_text(encoding="utf-8").replace("\\\n", " ")
    pins: dict[str, tuple[Version, list[str]]] = {}
    for line in text.splitlines():
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        name, equals, version = words[0].partition("==")
        assert equals, f"not pinned with ==: {line!r}"
        hashes = [w.removeprefix("--hash=sha256:") for w in words[1:]]
        assert hashes and all(len(h) == 64 for h in hashes), f"hashes wanted: {line!r}"
        pins[canonicalize_name(name)] = (Version(version), hashes)
    return pins


def runtime_requirements() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return [Requirement(r) for r in project["dependencies"]]


def test_the_image_runs_under_an_init_as_a_user() -> None:
    steps = instructions()
    (entrypoint,) = [exec_form(a) for k, a in steps if k == "ENTRYPOINT"]
    assert entrypoint[0] == "tini" and "tini" in " ".join(a for k, a in steps if k == "RUN")
    users = [a for k, a in steps if k == "USER"]
    assert users and users[-1] not in ("root", "0"), users
    keywords = [k for k, _ in steps]
    assert keywords.index("USER") < keywords.index("CMD")


def test_dependencies_come_from_the_lock_file_before_the_source() -> None:
    steps = instructions()
    copies = [(i, a.split()) for i, (k, a) in enumerate(steps) if k == "COPY"]
    (lock_copy,) = [i for i, words in copies if words[:-1] == ["requirements.lock"]]
    installs = [
        i
        for i, (k, a) in enumerate(steps)
        if k == "RUN" and "pip install" in a and "-r requirements.lock" in a
    ]
    assert len(installs) == 1 and "--require-hashes" in steps[installs[0]][1]
    source_copies = [i for i, words in copies if SOURCES & set(words[:-1])]
    assert {w for _, words in copies for w in words[:-1]} >= SOURCES
    # The install layer depends on the lock file only, so a source change reuses it.
    assert lock_copy < installs[0] < min(source_copies)
    assert not [i for i, _ in copies if i < installs[0] and i != lock_copy]


def test_the_lock_pins_every_runtime_dependency_and_theirs() -> None:
    pins = lock()
    target = default_environment() | {"python_version": "3.11", "sys_platform": "linux"}
    todo = runtime_requirements()
    for requirement in runtime_requirements():
        version, _ = pins[canonicalize_name(requirement.name)]
        assert requirement.specifier.contains(version), (requirement, version)
    seen: set[str] = set()
    while todo:
        requirement = todo.pop()
        name = canonicalize_name(requirement.name)
        if name in seen or not (
            requirement.marker is None or requirement.marker.evaluate(target | {"extra": ""})
        ):
            continue
        seen.add(name)
        assert name in pins, f"{name} (needed by the runtime dependencies) is not pinned"
        try:
            needs = distribution(name).requires or []
        except PackageNotFoundError:
            continue
        todo += [Requirement(r) for r in needs]
    assert set(pins) == seen, f"pinned but not needed: {set(pins) - seen}"


@pytest.mark.parametrize(("age", "healthy"), [(0, True), (600, False)])
def test_the_health_check_command_reads_the_heartbeat(
    tmp_path: Path, age: int, healthy: bool
) -> None:
    steps = instructions()
    (health,) = [a for k, a in steps if k == "HEALTHCHECK"]
    options, _, command = health.partition("CMD ")
    assert "--interval=" in options and command, health
    words = exec_form(command)
    assert words[0] == "python"
    env = dict(w.split("=", 1) for k, a in steps if k == "ENV" for w in shlex.split(a))
    heartbeat = Path(env["HILLTOP_HEARTBEAT"])
    assert heartbeat.is_absolute() and heartbeat.parent in (Path("/tmp"), Path("/data"))
    local = tmp_path / heartbeat.name
    local.touch()
    os.utime(local, (time.time() - age, time.time() - age))
    workdir = [a for k, a in steps if k == "WORKDIR"][-1]
    assert workdir == "/app"  # where bot.py is copied, so `python -m bot` finds it
    done = subprocess.run(
        [sys.executable, *words[1:]],
        cwd=ROOT,
        env=os.environ | {"HILLTOP_HEARTBEAT": str(local)},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert (done.returncode == 0) is healthy, done.stdout + done.stderr


def pip(*arguments: str) -> str:
    """pip's output; the build backend is the development environment's setuptools, so
    that this needs no network."""
    done = subprocess.run(
        [sys.executable, "-m", "pip", *arguments, "--no-deps", "--no-build-isolation", "-v"],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return done.stdout + done.stderr


def python_warnings(log: str) -> list[str]:
    """Python warnings, such as setuptools' about data folders missing from `packages`."""
    return re.findall(r"\w+Warning: .*", log)


@pytest.fixture
def source(tmp_path: Path) -> Path:
    """A copy of what the wheel is built from."""
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "bot.py"):
        shutil.copy(ROOT / name, source / name)
    for package in PACKAGES:
        shutil.copytree(
            ROOT / package, source / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    return source


def test_the_wheel_holds_the_data_files_without_setuptools_warnings(
    tmp_path: Path, source: Path
) -> None:
    log = pip("wheel", "--wheel-dir", str(tmp_path / "wheel"), str(source))
    assert not python_warnings(log), log
    (wheel,) = (tmp_path / "wheel").glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {
        f"{package}/{path.relative_to(ROOT / package).as_posix()}"
        for package, pattern in (
            ("data", "migrations/*.sql"),
            ("host", "rules/*.md"),
            ("host", "rules/pl/*.md"),
            ("host", "locale/*/LC_MESSAGES/*.mo"),
            ("render", "assets/*.ttf"),
            ("web", "templates/*.html"),
            ("web", "static/*.js"),
            ("web", "static/*.css"),
        )
        for path in (ROOT / package).glob(pattern)
    }
    assert len(expected) >= 10 and expected <= names, expected - names


def test_an_editable_install_is_quiet(tmp_path: Path, source: Path) -> None:
    """What `make` does on a fresh machine (pip install -e), into a folder of its own: the
    development environment's own install is left alone."""
    target = ["--target", str(tmp_path / "target"), "--ignore-installed"]
    log = pip("install", *target, "--editable", str(source))
    assert not python_warnings(log), log
    assert "uninstall" not in log.lower(), log
