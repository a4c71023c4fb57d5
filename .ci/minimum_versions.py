"""Print a pip constraints file pinning every dependency of pyproject.toml (and its test extra) to the lowest
version it declares: `name>=X` becomes `name==X`. A dependency without a lower bound is an error."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import tomllib

project = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())["project"]
requirements = [*project["dependencies"], *project["optional-dependencies"]["test"]]
for requirement in requirements:
    match = re.fullmatch(r"([A-Za-z0-9_.\-]+)\s*>=\s*([0-9][0-9A-Za-z.]*)(,.*)?", requirement)
    if match is None:
        sys.exit(f"minimum_versions: {requirement!r} declares no lower bound")
    print(f"{match.group(1)}=={match.group(2)}")
