"""`pe_verify.testing` in a user's own pytest project, run by pytest in a child process.

Whatever Hypothesis profile the project's conftest.py loads — replaying stored examples only
(`phases=[Phase.explicit]`), one example, derandomized, a deadline of 1 ms, a database, verbose — a helper
runs its battery with its own settings: it calls the implementation with exactly the inputs it does under no
profile, so a broken implementation fails and a correct one passes, and neither is skipped. A helper called
inside the project's own `@given` test works there (Hypothesis would refuse a nested @given). And the
helpers leave no `.hypothesis` folder in the project."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

#: A child pytest run imports numpy, Hypothesis and pe_verify and runs two small batteries: 1–2 s here.
TIMEOUT = 120

#: The profiles the project's conftest.py may load (by the PROFILE environment variable): each would
#: skip, shorten, store or break a search that inherited it. Hypothesis itself refuses max_examples=0 and
#: points to phases=[Phase.explicit] instead: the replay profile.
PROFILES = {
    "replay": "phases=[Phase.explicit]",
    "tiny": "max_examples=1, derandomize=True",
    "database": "database=DirectoryBasedExampleDatabase('profile-db'), phases=[Phase.reuse, Phase.generate]",
    "strict": "deadline=timedelta(milliseconds=1), suppress_health_check=[], verbosity=Verbosity.debug",
}

CONFTEST = """\
import os
from datetime import timedelta

from hypothesis import Phase, Verbosity, settings
from hypothesis.database import DirectoryBasedExampleDatabase

{registrations}
if os.environ.get("PROFILE"):
    settings.load_profile(os.environ["PROFILE"])
"""

#: The implementations: the reference encoding, which records every call it gets, and the same with sin
#: typed for cos, whose norm then changes with the position.
ENCODINGS = """\
import hashlib
import json
import os

import numpy as np

CALLS = hashlib.sha256()


def encoding(positions, d, cos=np.cos):
    angles = np.asarray(positions, dtype=np.float64)[:, None] * 10000.0 ** (-2.0 * (np.arange(d) // 2) / d)
    return np.where(np.arange(d) % 2 == 0, np.sin(angles), cos(angles))


def correct(positions, d):
    CALLS.update(repr((np.asarray(positions).tolist(), d)).encode())
    return encoding(positions, d)


def sin_for_cos(positions, d):
    return encoding(positions, d, cos=np.sin)


def record(what):
    with open(os.environ["RECORD"], "w", encoding="utf-8") as file:
        json.dump(what, file)
"""

HELPERS = """\
from encodings_under_test import CALLS, correct, record, sin_for_cos
from pe_verify.testing import assert_sinusoidal


def test_correct():
    report = assert_sinusoidal(correct, d=8, examples=20)
    record({"calls": CALLS.hexdigest(), "budgets": [o.budget for o in report.properties]})


def test_broken():
    assert_sinusoidal(sin_for_cos, d=8, examples=20)
"""

NESTED = """\
import ml_dtypes
import numpy as np
from hypothesis import given, settings, strategies as st
from pe_verify.properties.encodings.rope import apply_rope
from pe_verify.testing import assert_rope


def rotate(x, positions):
    return apply_rope(x, positions)


def bf16_positions(x, positions):
    return apply_rope(x, np.asarray(positions).astype(ml_dtypes.bfloat16).astype(np.float64))


@settings(max_examples=3, deadline=None)
@given(st.sampled_from([8, 16]))
def test_nested_correct(d):
    assert_rope(rotate, d=d, examples=5)


@settings(max_examples=3, deadline=None)
@given(st.sampled_from([8, 16]))
def test_nested_broken(d):
    assert_rope(bf16_positions, d=d, examples=5)
"""


def _project(folder: Path) -> Path:
    """A pytest project of its own (a pytest.ini pins the root there) with the conftest, the encodings
    and the two test files."""
    folder.mkdir()
    registrations = "\n".join(f"settings.register_profile({n!r}, {a})" for n, a in PROFILES.items())
    files = {
        "pytest.ini": "[pytest]\n",
        "conftest.py": CONFTEST.format(registrations=registrations),
        "encodings_under_test.py": ENCODINGS,
        "test_helpers.py": HELPERS,
        "test_nested.py": NESTED,
    }
    for name, text in files.items():
        (folder / name).write_text(textwrap.dedent(text), "utf-8")
    return folder


def _pytest(
    tmp_path: Path, test_file: str, profile: str | None
) -> tuple[dict[str, str], dict | None, subprocess.CompletedProcess[str], Path]:
    """Run pytest on `test_file` of a fresh project under `profile` (none: Hypothesis' own defaults).
    Returns each test's outcome (passed, failed, skipped or error, from the JUnit XML), what test_correct
    recorded (None if it did not get that far), the finished process and the project folder."""
    folder = _project(tmp_path / f"project-{profile or 'none'}")
    junit, record = tmp_path / f"{profile}.xml", tmp_path / f"{profile}.json"
    environment = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST_")}
    environment.pop("HYPOTHESIS_STORAGE_DIRECTORY", None)
    environment |= {"PE_VERIFY_CACHE": str(tmp_path / "cache"), "RECORD": str(record)}
    if profile is not None:
        environment["PROFILE"] = profile
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", f"--junitxml={junit}", test_file],
        cwd=folder,
        env=environment,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert junit.exists(), done.stdout + done.stderr
    outcomes = {}
    for case in ElementTree.parse(junit).getroot().iter("testcase"):
        kinds = [child.tag for child in case if child.tag in ("failure", "error", "skipped")]
        outcomes[case.get("name", "")] = {"failure": "failed"}.get(kinds[0], kinds[0]) if kinds else "passed"
    recorded = json.loads(record.read_text("utf-8")) if record.exists() else None
    return outcomes, recorded, done, folder


@pytest.fixture(scope="module")
def unprofiled(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """What test_correct records with no profile loaded: the inputs of every call and the budgets."""
    outcomes, recorded, done, _ = _pytest(tmp_path_factory.mktemp("unprofiled"), "test_helpers.py", None)
    assert outcomes == {"test_correct": "passed", "test_broken": "failed"}, done.stdout
    assert recorded is not None
    return recorded


#: The default run tries the replay-only profile (the false pass it guards against); the deep run every one.
DEEP = pytest.mark.slow


@pytest.mark.parametrize(
    "profile", [p if p == "replay" else pytest.param(p, marks=DEEP) for p in sorted(PROFILES)]
)
def test_a_loaded_profile_changes_nothing_a_helper_does(
    tmp_path: Path, unprofiled: dict, profile: str
) -> None:
    """Under each profile the broken encoding fails with its counterexample, the correct one passes after
    the very calls it gets with no profile (the generated examples included), nothing is skipped, and no
    `.hypothesis` folder or profile database appears in the project."""
    outcomes, recorded, done, folder = _pytest(tmp_path, "test_helpers.py", profile)
    assert outcomes == {"test_correct": "passed", "test_broken": "failed"}, done.stdout + done.stderr
    assert done.returncode == 1
    assert "sin_for_cos fails the sinusoidal battery" in done.stdout
    assert "constant-norm: " in done.stdout and "    fails at d=8" in done.stdout
    assert recorded == unprofiled
    assert not (folder / ".hypothesis").exists() and not (folder / "profile-db").exists()


@pytest.mark.parametrize("profile", [None, pytest.param("tiny", marks=DEEP)])
def test_a_helper_works_inside_a_given_test(tmp_path: Path, profile: str | None) -> None:
    """Called inside the project's own @given test, a helper fails a broken implementation with its
    counterexample, not with Hypothesis' refusal of a nested @given, and passes a correct one."""
    outcomes, _, done, _ = _pytest(tmp_path, "test_nested.py", profile)
    assert outcomes == {"test_nested_correct": "passed", "test_nested_broken": "failed"}, done.stdout
    assert "bf16_positions fails the rope battery" in done.stdout
    assert "relative: fails at d=" in done.stdout
    assert "FailedHealthCheck" not in done.stdout and "nested_given" not in done.stdout
