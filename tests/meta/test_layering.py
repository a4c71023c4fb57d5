"""The library never depends on the command line: no module of claims/, proofs/, properties/ or reporting/
imports one of the CLI package's own modules (`pe_verify.cli`, `collisions`, `check`, `cache`, `inputs`,
`isolated`, `terminal`, `testing`, `records`, `documents`), whether absolutely, relatively, from inside a
function or through `importlib.import_module`; and the library is built in floors (`FLOORS`): numerics,
encodings, proofs, checks, analyses, the battery, claims, reporting — a module imports only from its own floor
and those below, so proofs/ uses the encodings of properties/ and only the floors above it use proofs/.

Each source file is parsed with `ast` and every import it holds is resolved to the full module names it
reaches, as `pe_verify.<folder>` is the package of a file in that folder.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: The library's folders and the package each is installed as.
LIBRARY = {
    "claims": "pe_verify.claims",
    "proofs": "pe_verify.proofs",
    "properties": "pe_verify.properties",
    "reporting": "pe_verify.reporting",
}

#: The CLI package's top-level modules.
CLI_MODULES = frozenset(
    f"pe_verify.{name}"
    for name in (
        *("cli", "collisions", "check", "cache", "inputs", "isolated", "terminal", "testing"),
        *("records", "documents"),
    )
)


def _resolve(package: str, module: str | None, level: int) -> str:
    """The absolute module of `from <level dots><module> import …` written in `package`."""
    if level == 0:
        return module or ""
    parts = package.split(".")
    if level > len(parts):
        raise ValueError(f"relative import beyond the top-level package from {package}")
    base = ".".join(parts[: len(parts) - level + 1])
    return f"{base}.{module}" if module else base


def imported_modules(source: str, package: str) -> Iterator[tuple[int, str]]:
    """(line, module) for every module an import in `source` (written in `package`) may load: each
    `import a.b`, each `from m import n` as both m and m.n, and each `importlib.import_module("…")` or
    `__import__("…")` with a literal name (relative names resolved against `package`)."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            module = _resolve(package, node.module, node.level)
            yield node.lineno, module
            for alias in node.names:
                yield node.lineno, f"{module}.{alias.name}"
        elif isinstance(node, ast.Call) and _is_dynamic_import(node.func) and node.args:
            name = node.args[0]
            if isinstance(name, ast.Constant) and isinstance(name.value, str):
                text = name.value
                level = len(text) - len(text.lstrip("."))
                anchor = package
                if len(node.args) > 1 and isinstance(node.args[1], ast.Constant):
                    anchor = str(node.args[1].value)
                yield node.lineno, _resolve(anchor, text[level:] or None, level) if level else text


def _is_dynamic_import(func: ast.expr) -> bool:
    if isinstance(func, ast.Name):
        return func.id in {"__import__", "import_module"}
    return isinstance(func, ast.Attribute) and func.attr == "import_module"


def cli_imports(source: str, package: str) -> list[str]:
    """Each import in `source` that reaches a module of the CLI package, as "line N: module"."""
    found = []
    for line, module in imported_modules(source, package):
        reached = {".".join(module.split(".")[:depth]) for depth in range(1, module.count(".") + 2)}
        for cli_module in sorted(reached & CLI_MODULES):
            found.append(f"line {line}: {cli_module}")
    return found


def _library_files() -> Iterator[tuple[Path, str]]:
    for folder, package in LIBRARY.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            inner = path.relative_to(ROOT / folder).parent.parts
            yield path, ".".join((package, *inner))


@pytest.mark.slow
def test_the_library_never_imports_the_command_line() -> None:
    offending = []
    for path, package in _library_files():
        for found in cli_imports(path.read_text(encoding="utf-8"), package):
            offending.append(f"{path.relative_to(ROOT)} {found}")
    assert not offending, "\n".join(offending)


def test_every_library_folder_is_scanned() -> None:
    scanned = {path.relative_to(ROOT).parts[0] for path, _ in _library_files()}
    assert scanned == set(LIBRARY)


BAD = {
    "absolute": ("import pe_verify.cli", "pe_verify.cli"),
    "absolute submodule": ("import pe_verify.check.extra as x", "pe_verify.check"),
    "from the package": ("from pe_verify import check", "pe_verify.check"),
    "from the module": ("from pe_verify.collisions import exact_coincidence_mask", "pe_verify.collisions"),
    "relative": ("from .. import terminal", "pe_verify.terminal"),
    "relative module": ("from ..inputs import parse_number", "pe_verify.inputs"),
    "inside a function": ("def f():\n    from pe_verify import cache\n    return cache", "pe_verify.cache"),
    "dynamic": ("import importlib\nimportlib.import_module('pe_verify.testing')", "pe_verify.testing"),
    "dynamic relative": (
        "from importlib import import_module\nimport_module('..check', __package__)",
        "pe_verify.check",
    ),
}


@pytest.mark.parametrize("name", BAD)
def test_a_source_that_imports_the_command_line_is_caught(name: str) -> None:
    source, module = BAD[name]
    found = cli_imports(source, "pe_verify.claims")
    assert found and all(text.endswith(f": {module}") for text in found), (source, found)


def test_a_relative_import_with_a_package_anchor_is_caught() -> None:
    source = "import importlib\nimportlib.import_module('..check', 'pe_verify.properties')"
    assert cli_imports(source, "pe_verify.claims") == ["line 2: pe_verify.check"]


@pytest.mark.parametrize(
    "source",
    [
        "from pe_verify.properties import collisions",
        "from pe_verify.properties.analyses.collisions import exact_coincidence_mask",
        "from . import collisions",
        "from .check import x",
        "from pe_verify import __version__",
        "import pe_verify.proofs.uniqueness",
        "from pe_verify.claims import checker",
    ],
)
def test_library_imports_are_not_mistaken_for_the_command_line(source: str) -> None:
    assert cli_imports(source, "pe_verify.properties") == []


#: The library's floors, lowest first: a module imports only from its own floor and those below, so proofs
#: build on the encodings and the checks, analyses and battery on the proofs, never the other way.
FLOORS = (
    ("pe_verify.properties.numerics",),
    ("pe_verify.properties.encodings",),
    ("pe_verify.proofs",),
    ("pe_verify.properties.checks",),
    ("pe_verify.properties.analyses",),
    ("pe_verify.properties.battery", "pe_verify.properties.family_index"),
    ("pe_verify.claims",),
    ("pe_verify.reporting",),
)


def floor_of(module: str) -> int | None:
    """The floor a library module lies on (None outside the floors, e.g. a package's own __init__)."""
    for level, packages in enumerate(FLOORS):
        if any(module == package or module.startswith(f"{package}.") for package in packages):
            return level
    return None


def upward_imports(source: str, module: str, package: str | None = None) -> list[str]:
    """Each import in `source` (the module `module`, in `package`: by default the one holding it) that
    reaches a floor above the module's own."""
    package = module.rpartition(".")[0] if package is None else package
    own = floor_of(module)
    found = []
    for line, target in imported_modules(source, package):
        reached = floor_of(target)
        if own is not None and reached is not None and reached > own:
            found.append(f"line {line}: {target}")
    return found


def _module_name(path: Path, package: str) -> str:
    return package if path.name == "__init__.py" else f"{package}.{path.stem}"


def test_every_library_module_lies_on_a_floor() -> None:
    loose = [
        str(path.relative_to(ROOT))
        for path, package in _library_files()
        if path.name != "__init__.py" and floor_of(_module_name(path, package)) is None
    ]
    assert not loose


@pytest.mark.slow
def test_no_module_imports_from_a_floor_above_its_own() -> None:
    offending = []
    for path, package in _library_files():
        module = _module_name(path, package)
        for found in upward_imports(path.read_text(encoding="utf-8"), module, package):
            offending.append(f"{path.relative_to(ROOT)} {found}")
    assert not offending, "\n".join(offending)


@pytest.mark.parametrize(
    ("source", "module"),
    [
        (
            "from pe_verify.proofs.uniqueness import dimension_collision",
            "pe_verify.properties.encodings.rope",
        ),
        ("from ..checks.linear_offset import x", "pe_verify.properties.encodings.sinusoidal"),
        ("from ....claims import catalog", "pe_verify.properties.battery.families.rope"),
        ("from ..properties.analyses import collisions", "pe_verify.proofs.uniqueness"),
    ],
)
def test_an_import_from_a_higher_floor_is_caught(source: str, module: str) -> None:
    assert upward_imports(source, module)


def test_imports_from_the_same_or_a_lower_floor_pass() -> None:
    assert not upward_imports(
        "from ..encodings.rope import Rope", "pe_verify.properties.checks.linear_offset"
    )
    assert not upward_imports(
        "from pe_verify.proofs import rope", "pe_verify.properties.checks.operation_counts"
    )
    assert not upward_imports("from .frequencies import x", "pe_verify.properties.encodings.rope")


def imports_of_tests(source: str) -> list[str]:
    """Each import in `source` of a test module (a module whose name starts with test_)."""
    return [
        f"line {line}: {module}"
        for line, module in imported_modules(source, "")
        if module.rpartition(".")[2].startswith("test_")
    ]


@pytest.mark.slow
def test_no_test_module_imports_another() -> None:
    """Shared inputs live in helper modules (twins.py, implementations/, families/), not in test files."""
    offending = [
        f"{path.relative_to(ROOT)} {found}"
        for path in sorted((ROOT / "tests").rglob("*.py"))
        for found in imports_of_tests(path.read_text(encoding="utf-8"))
    ]
    assert not offending, "\n".join(offending)


def test_an_import_of_a_test_module_is_caught() -> None:
    assert imports_of_tests("import test_check_rope as rope") == ["line 1: test_check_rope"]
    assert imports_of_tests("from test_check_alibi import bloom_bias") == ["line 1: test_check_alibi"]
    assert imports_of_tests("from implementations import rope") == []
