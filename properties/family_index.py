"""The families of the `check` battery by name, known without importing them (the command line lists them at
once): the suite's own are its modules `battery_<name>.py` (a `-` in a name is a `_` in the module's), and any
other module that defines a family (`battery.define`) adds its name here."""

from __future__ import annotations

import importlib
import pkgutil

PREFIX = "battery_"
#: The families defined in this process so far, name → defining module.
DEFINED: dict[str, str] = {}


def module_of(family: str) -> str:
    """The module of the suite's family `family`."""
    return f"{__package__}.{PREFIX}{family.replace('-', '_')}"


def builtin_families() -> tuple[str, ...]:
    """The suite's own families, read off its module names."""
    found = (info.name for info in pkgutil.iter_modules(importlib.import_module(__package__).__path__))
    return tuple(
        sorted(name.removeprefix(PREFIX).replace("_", "-") for name in found if name.startswith(PREFIX))
    )


def family_names() -> tuple[str, ...]:
    """Every family known: the suite's own and those other modules defined in this process."""
    return tuple(sorted({*builtin_families(), *DEFINED}))
