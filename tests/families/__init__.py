"""Families defined in one file each, as a user of the battery would add one: importing this package (the
test configuration does) defines every family of its modules; each module also gives `SETTINGS`, the
correct implementations `REFERENCES` and a broken twin per property, `TWINS`, which the registry tests run
beside the suite's own families."""

from __future__ import annotations

import importlib
import pkgutil

MODULES = tuple(importlib.import_module(f"{__name__}.{info.name}") for info in pkgutil.iter_modules(__path__))
