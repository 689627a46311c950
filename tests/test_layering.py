"""The layers of ARCHITECTURE: each package imports only what sits below it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

FORBIDDEN: dict[str, set[str]] = {
    "engine": {"discord", "PIL", "aiosqlite", "asyncio", "render", "data", "host", "cogs", "bot"},
    "render": {"discord", "aiosqlite", "data", "host", "cogs", "bot"},
    "data": {"discord", "PIL", "render", "host", "cogs", "engine", "bot"},
    "host": {"discord", "cogs", "bot"},
}


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
