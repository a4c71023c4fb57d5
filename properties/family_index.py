"""The families of the `check` battery by name, known without importing them (the command line lists them at
once): the suite's own are the modules of `battery/families/` (a `-` in a name is a `_` in the module's), and
any other module that defines a family (`battery.define`) adds its name here."""

from __future__ import annotations

import pkgutil
from pathlib import Path

#: The package of the suite's own families, and its folder (read without importing the battery).
PACKAGE = f"{__package__}.battery.families"
FOLDER = Path(__file__).parent / "battery" / "families"
#: The families defined in this process so far, name → defining module.
DEFINED: dict[str, str] = {}


def module_of(family: str) -> str:
    """The module of the suite's family `family`."""
    return f"{PACKAGE}.{family.replace('-', '_')}"


def builtin_families() -> tuple[str, ...]:
    """The suite's own families, read off its module names."""
    return tuple(sorted(info.name.replace("_", "-") for info in pkgutil.iter_modules([str(FOLDER)])))


def family_names() -> tuple[str, ...]:
    """Every family known: the suite's own and those other modules defined in this process."""
    return tuple(sorted({*builtin_families(), *DEFINED}))
