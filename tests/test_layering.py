"""The layers of ARCHITECTURE: each package imports only what sits below it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: The database drivers: only `data` knows which backend holds the games.
DRIVERS = {"aiosqlite", "sqlite3", "asyncpg"}
FORBIDDEN: dict[str, set[str]] = {
    "engine": {"discord", "PIL", "asyncio", "render", "data", "host", "cogs", "bot", *DRIVERS},
    "render": {"discord", "data", "host", "cogs", "bot", *DRIVERS},
    "data": {"discord", "PIL", "render", "host", "cogs", "engine", "bot"},
    "host": {"discord", "cogs", "bot", *DRIVERS},
    "cogs": {"data", "engine", "bot", "console", *DRIVERS},
    "console": {"discord", "cogs", "data", "engine", "bot", *DRIVERS},
    "web": {"discord", "cogs", "console", "data", "engine", "bot", *DRIVERS},
}
#: The front-ends: each talks to the service through its face alone.
FRONT_ENDS = ("cogs", "console", "web")
FACE = "host.face"


def imported_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    roots: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", "") == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            roots.add(str(node.args[0].value).split(".")[0])
    return roots


def test_imports_reveal_roots(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("import discord.ui\nfrom PIL import Image\nfrom . import x\n")
    assert imported_roots(sample) == {"discord", "PIL"}


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_layer_imports(package: str) -> None:
    files = sorted((ROOT / package).rglob("*.py"))
    assert files, f"{package}/ has no modules"
    violations = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in files
        for name in sorted(imported_roots(path) & FORBIDDEN[package])
    ]
    assert not violations, "\n".join(violations)


PACKAGES = ("engine", "render", "data", "host", "cogs", "console", "web")


def imported_modules(path: Path, module: str) -> set[str]:
    """The modules `path` imports, wherever the import stands: a function-level import
    counts, and so does one made only for the type checker."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: set[str] = set()
    package = module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(
                    [*package.split(".")[: len(package.split(".")) - node.level + 1], base]
                )
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def module_paths() -> dict[str, Path]:
    """Every project module, with its file."""
    paths = {"bot": ROOT / "bot.py"}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            paths[name] = path
    return paths


def module_graph() -> dict[str, set[str]]:
    """Every project module, with the project modules it imports."""
    paths = module_paths()
    return {
        name: {m for m in imported_modules(path, name) if m in paths and m != name}
        for name, path in paths.items()
    }


def import_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One cycle of imports in `graph` (a module that, through its imports, imports
    itself), or [] if there is none."""
    done: set[str] = set()
    path: list[str] = []
    on_path: set[str] = set()

    def visit(name: str) -> list[str]:
        path.append(name)
        on_path.add(name)
        for target in sorted(graph[name]):
            if target in on_path:
                return [*path[path.index(target) :], target]
            if target not in done:
                cycle = visit(target)
                if cycle:
                    return cycle
        on_path.discard(path.pop())
        done.add(name)
        return []

    for name in sorted(graph):
        if name not in done:
            cycle = visit(name)
            if cycle:
                return cycle
    return []


def test_import_cycle_finds_a_circle_and_only_a_circle() -> None:
    assert import_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert import_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []


def test_imports_in_functions_and_for_the_type_checker_count(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from host import service\n"
        "def late():\n    from cogs.games import x\n"
        "from .respond import y\n"
    )
    found = imported_modules(sample, "cogs.views")
    assert {"cogs.games", "cogs.games.x", "host.service", "cogs.respond.y"} <= found


def test_no_module_imports_itself_through_others() -> None:
    graph = module_graph()
    assert len(graph) > 40, sorted(graph)
    assert import_cycle(graph) == []


def host_modules_used(path: Path, module: str) -> set[str]:
    """The modules of `host` that `path` imports, by the name it imports them with."""
    return {
        m
        for m in imported_modules(path, module)
        if (m == "host" or m.startswith("host.")) and not m.startswith(f"{FACE}.")
    }


def test_a_module_of_host_beside_the_face_is_seen(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from host.face import Reply\nfrom host.play.live import game_of\nimport host.daily\n"
    )
    assert host_modules_used(sample, "cogs.sample") == {
        "host.face",
        "host.play.live",
        "host.play.live.game_of",
        "host.daily",
    }


@pytest.mark.parametrize("front_end", FRONT_ENDS)
def test_front_ends_use_the_face_alone(front_end: str) -> None:
    files = sorted((ROOT / front_end).rglob("*.py"))
    assert files, f"{front_end}/ has no modules"
    violations = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in files
        for name in sorted(host_modules_used(path, front_end) - {FACE})
    ]
    assert not violations, "\n".join(violations)


#: The names a front-end holds the face's services by: the games, the daily challenge,
#: the web's pages, the ratings pages and the console's memory.
SERVICES = {"service", "daily", "pages", "ratings", "rating_pages", "memory"}
#: Parts of the services, and the repositories under them: only their service uses them.
PARTS = {"repository", "live", "settings", "sessions", "tables", "replays"}


def attribute_chains(tree: ast.AST) -> list[tuple[int, list[str]]]:
    """Each chain of attributes in `tree` (`self.bot.service.start`) with its line, whole:
    not also the shorter chains inside it. A chain on anything but a name (a call's
    result) starts at the first attribute."""
    inner = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    chains = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or id(node) in inner:
            continue
        names: list[str] = []
        part: ast.expr = node
        while isinstance(part, ast.Attribute):
            names.append(part.attr)
            part = part.value
        if isinstance(part, ast.Name):
            names.append(part.id)
        chains.append((node.lineno, names[::-1]))
    return sorted(chains)


def reaches_past_services(path: Path) -> list[tuple[int, str]]:
    """The chains in `path` that go past a service into what it is made of: a part of it
    named in PARTS, or anything two attributes past it (`service.settings.note_languages`)
    rather than a call of its own (`service.start`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for line, names in attribute_chains(tree):
        for at, name in enumerate(names):
            past = names[at + 1 :]
            if name in SERVICES and (len(past) > 1 or (past and past[0] in PARTS)):
                found.append((line, ".".join(names)))
                break
    return found


def test_a_reach_past_a_service_is_seen(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "async def handle(self, service, daily, view):\n"
        "    await self.bot.service.start(self.service.bot_user)\n"
        "    await self.service.repository.set_board_messages({})\n"
        "    kept = service.repository\n"
        "    days = [d.isoformat() for d in daily.replays.closed_days()]\n"
        "    await self.site.pages.sign_out(view.live.token)\n"
        "    return (await self.pages.visitor()).language.upper()\n"
    )
    assert reaches_past_services(sample) == [
        (3, "self.service.repository.set_board_messages"),
        (4, "service.repository"),
        (5, "daily.replays.closed_days"),
    ]


@pytest.mark.parametrize("front_end", FRONT_ENDS)
def test_front_ends_reach_no_further_than_the_services(front_end: str) -> None:
    files = sorted((ROOT / front_end).rglob("*.py"))
    assert files, f"{front_end}/ has no modules"
    violations = [
        f"{path.relative_to(ROOT)}:{line}: {chain}"
        for path in files
        for line, chain in reaches_past_services(path)
    ]
    assert not violations, "\n".join(violations)


#: The most lines a module of the service may have: past it, a module holds more than
#: one job, and is split by job.
MOST_LINES = 500


def test_no_module_of_the_service_outgrows_one_job() -> None:
    sizes = {
        str(path.relative_to(ROOT)): len(path.read_text(encoding="utf-8").splitlines())
        for path in (ROOT / "host").rglob("*.py")
    }
    assert len(sizes) > 30
    assert {name: n for name, n in sizes.items() if n > MOST_LINES} == {}


#: The two storage backends, side by side: neither imports the other.
BACKENDS = ("data.sqlite", "data.postgresql")
#: The interfaces the host talks to and the records they return, and what both backends
#: share: they import no database driver and no backend.
NEUTRAL = (
    "data.repository",
    "data.results",
    "data.daily",
    "data.ratings",
    "data.console",
    "data.rows",
    "data.rating_math",
    "data.queries",
    "data.shared",
)
#: The modules that open the backend a deployment names, or copy one into the other: the
#: only ones outside a backend that import it.
OPENERS = ("data.storage", "data.copy")


def in_package(module: str, package: str) -> bool:
    return module == package or module.startswith(f"{package}.")


def backend_crossings(graph: dict[str, set[str]], roots: dict[str, set[str]]) -> list[str]:
    """The imports that tie the backends together: a backend's module importing the
    other backend, any other module but the openers importing a backend, and an interface
    or shared module importing a database driver. `graph` holds each module's project
    imports, `roots` the top-level packages each imports."""
    found = []
    for name in sorted(graph):
        home = next((b for b in BACKENDS if in_package(name, b)), None)
        found += [
            f"{name} imports {target}"
            for target in sorted(graph[name])
            for backend in BACKENDS
            if in_package(target, backend) and backend != home and name not in OPENERS
        ]
        if name in NEUTRAL:
            found += [f"{name} imports {d}" for d in sorted(roots.get(name, set()) & DRIVERS)]
    return found


def test_backend_crossings_are_found() -> None:
    graph = {
        "data.sqlite.games": {"data.sqlite.db", "data.postgresql.db"},
        "data.postgresql.daily": {"data.sqlite.games", "data.rows"},
        "data.daily": {"data.repository", "data.sqlite"},
        "data.storage": {"data.sqlite.db", "data.postgresql.db"},
        "host.service": {"data.postgresql.games"},
        "data.ratings": set(),
        "data.sqlite.db": set(),
    }
    roots = {"data.ratings": {"asyncpg", "json"}, "data.sqlite.db": {"aiosqlite"}}
    assert backend_crossings(graph, roots) == [
        "data.daily imports data.sqlite",
        "data.postgresql.daily imports data.sqlite.games",
        "data.ratings imports asyncpg",
        "data.sqlite.games imports data.postgresql.db",
        "host.service imports data.postgresql.games",
    ]


def test_backends_stand_apart_and_interfaces_know_no_driver() -> None:
    paths = module_paths()
    graph = module_graph()
    assert set(NEUTRAL) | set(OPENERS) | set(BACKENDS) <= set(graph), sorted(graph)
    roots = {name: imported_roots(path) for name, path in paths.items()}
    crossings = backend_crossings(graph, roots)
    assert not crossings, "\n".join(crossings)
