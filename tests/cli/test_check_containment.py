"""`pe-verify check` contains its target as a process session: what the target starts dies with the child
that ran it (and with pe-verify), so that no process of the target outlives the run or holds pe-verify's
stdout or stderr; a fork of the target cannot add to the report; the target's signals to its own process
group cannot reach pe-verify; its import runs under `--timeout`; a timeout leaves no traceback on stderr; and
the command works with stdin closed. Each hostile target is a small file run by `pe-verify` in a process of
its own (a new session, so that nothing it does reaches the test run), with stdin closed, and every process
the target starts is tracked by its pid, checked to be gone and, should it not be, killed."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc to track processes")

CORRECT = "1.0 / 10000 ** (np.arange(0, d, 2) / d)"
PROPERTIES = ["one-per-pair", "finite", "positive", "decreasing", "deterministic", "fastest-at-most-one"]

#: How long a run may take before the test gives up on it: not a time limit on `check`, only a bound so that
#: a run that hangs, or whose output a leftover process holds open, fails the test instead of hanging it.
BOUND = 60.0

HEADER = """\
import os, signal, subprocess, sys, time
import numpy as np
HERE = os.path.dirname(os.path.abspath(__file__))
MARK = os.path.join(HERE, "mark")
SCREENED = os.path.join(HERE, "screened")
def track(pid):
    with open(os.path.join(HERE, "pids"), "a") as pids:
        pids.write(f"{pid}\\n")
def first_call():
    # the first call of a property: the battery screens d = 8 with one plain call before them
    for mark in (SCREENED, MARK):
        if not os.path.exists(mark):
            open(mark, "w").close()
            return mark == MARK
    return False
"""

#: The default run keeps one case of each guarantee; the deep run (-m slow) every variant.
DEEP = pytest.mark.slow


@dataclass
class Ran:
    """A finished run of `pe-verify`: its exit status, stdout and stderr, and the pids its target tracked."""

    status: int
    out: str
    err: str
    pids: list[int]

    def report(self) -> dict:
        """The report of the one JSON document on stdout."""
        return json.loads(self.out)["report"]


def _target(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "target.py"
    path.write_text(HEADER + textwrap.dedent(body), "utf-8")
    return path


def _argv(path: Path, *options: str) -> list[str]:
    command = [sys.executable, "-m", "pe_verify.cli", "--quiet", "check", f"{path}:inv_freq"]
    return [*command, "--family", "rope-frequencies", "--d", "8", "--examples", "3", "--json", *options]


def _tracked(tmp_path: Path) -> list[int]:
    pids = tmp_path / "pids"
    return [int(line) for line in pids.read_text().split()] if pids.exists() else []


def _alive(pid: int) -> bool:
    """Whether process `pid` runs (a zombie does not: it has ended and waits to be reaped)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def _started_here(pid: int, tmp_path: Path) -> bool:
    """Whether `pid` is still a process this test started: `sleep`, or a fork of the fork server, working in
    this test's folder."""
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
        folder = os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        return False
    return folder == str(tmp_path) and (command.startswith(b"sleep\0") or b"isolated.serve" in command)


def _end_tracked(tmp_path: Path) -> None:
    """Kill what the target tracked and still runs (only if it is still the process the test started)."""
    for pid in _tracked(tmp_path):
        if _alive(pid) and _started_here(pid, tmp_path):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def _end_session(process: subprocess.Popen) -> None:
    """Kill the process group of the session `process` leads, unless it was reaped (its id could then be
    another's), then reap it."""
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def _run(tmp_path: Path, argv: list[str], close: str = "<&-") -> Ran:
    """Run `argv` in `tmp_path` with stdin closed (or what `close` redirects), stdout and stderr pipes, in a
    new session; the test fails when reading its stdout and stderr to their end takes longer than BOUND."""
    process = subprocess.Popen(
        ["sh", "-c", f'exec "$@" {close}', "sh", *argv],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        out, err = process.communicate(timeout=BOUND)
    except subprocess.TimeoutExpired:
        _end_session(process)
        pytest.fail(f"the output of pe-verify was still open after {BOUND:g} s (it exited {process.wait()})")
    finally:
        _end_session(process)
    return Ran(
        process.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), _tracked(tmp_path)
    )


def _check(tmp_path: Path, body: str, *options: str) -> Ran:
    """`pe-verify check --json` on `inv_freq` of a file holding HEADER and `body`; every process the target
    tracked is gone when it returns (each is killed after the test either way)."""
    try:
        ran = _run(tmp_path, _argv(_target(tmp_path, body), *options))
        survivors = [pid for pid in ran.pids if _alive(pid)]
        assert not survivors, f"processes the target started outlive pe-verify: {survivors}"
        return ran
    finally:
        _end_tracked(tmp_path)


def _names(ran: Ran) -> list[str]:
    return [p["name"] for p in ran.report()["properties"]]


def _failed(ran: Ran) -> dict[str, dict]:
    return {p["name"]: p["counterexample"] for p in ran.report()["properties"] if not p["passed"]}


def _no_traceback(err: str) -> None:
    assert "Traceback" not in err and "Exception ignored" not in err, err


@pytest.mark.parametrize(
    "start",
    [
        'subprocess.Popen(["sleep", "1000"], start_new_session=True)',
        pytest.param('subprocess.Popen(["sleep", "1000"])', marks=DEEP),
        pytest.param('subprocess.Popen(["sleep", "1000"], stdout=sys.stderr)', marks=DEEP),
    ],
    ids=["new-session", "same-group", "stdout-on-stderr"],
)
def test_a_background_process_the_target_starts_ends_with_it_and_holds_no_output(
    tmp_path: Path, start: str
) -> None:
    ran = _check(
        tmp_path,
        f"""
        def inv_freq(d):
            if first_call():
                track({start}.pid)
            return {CORRECT}
        """,
    )
    assert ran.status == 0, ran.err
    assert ran.report()["passed"] is True and _names(ran) == PROPERTIES
    assert len(ran.pids) == 1 and ran.err == ""


def test_a_target_that_forks_and_runs_on_in_both_copies_is_reported_once(tmp_path: Path) -> None:
    ran = _check(
        tmp_path,
        f"""
        def inv_freq(d):
            if first_call():
                copy = os.fork()
                if copy:
                    track(copy)
            return {CORRECT}
        """,
    )
    assert ran.status == 0, ran.err
    assert _names(ran) == PROPERTIES and ran.report()["passed"] is True
    assert len(ran.pids) == 1 and ran.err == ""


def test_a_target_that_signals_its_process_group_ends_only_itself(tmp_path: Path) -> None:
    ran = _check(
        tmp_path,
        f"""
        def inv_freq(d):
            if first_call():
                track(subprocess.Popen(["sleep", "1000"]).pid)
                os.killpg(0, signal.SIGTERM)
                time.sleep(5)  # the signal is on its way
            return {CORRECT}
        """,
    )
    assert ran.status == 1, ran.err
    assert _names(ran) == PROPERTIES
    failed = _failed(ran)
    assert list(failed) == ["one-per-pair"] and failed["one-per-pair"]["label"] == "target-crashed"
    assert "killed by SIGTERM" in failed["one-per-pair"]["message"]
    _no_traceback(ran.err)


@DEEP
def test_a_deep_recursion_past_the_time_limit_leaves_no_traceback(tmp_path: Path) -> None:
    ran = _check(
        tmp_path,
        f"""
        sys.setrecursionlimit(10**6)
        def deeper(n):
            return deeper(n + 1) + 1
        def inv_freq(d):
            if first_call():
                deeper(0)  # a RecursionError a million frames deep, whose unwinding outlasts the limit
            return {CORRECT}
        """,
        "--timeout",
        "0.3",
        "--target-memory",
        "2",
    )
    assert ran.status == 1, ran.err
    assert _names(ran) == PROPERTIES
    failed = _failed(ran)
    assert list(failed) == ["one-per-pair"] and failed["one-per-pair"]["label"] == "timeout"
    _no_traceback(ran.err)
    assert ran.err == ""


@pytest.mark.parametrize(
    ("hang", "message"),
    [
        ("time.sleep(1000)", "ran past the time limit of 0.5 s"),
        # SIGALRM blocked: only pe-verify's watchdog can end the import
        pytest.param(
            "signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM}); time.sleep(1000)",
            "ran past the time limit of 0.5 s and did not stop, so its process was killed",
            marks=DEEP,
        ),
    ],
    ids=["sleep", "alarm-blocked"],
)
def test_an_import_that_never_returns_is_ended_by_the_time_limit(
    tmp_path: Path, hang: str, message: str
) -> None:
    ran = _check(
        tmp_path,
        f"""
        track(subprocess.Popen(["sleep", "1000"]).pid)
        {hang}
        def inv_freq(d):
            return {CORRECT}
        """,
        "--timeout",
        "0.5",
    )
    assert ran.status == 2 and ran.out == "", ran.err
    assert ran.err.count("\n") == 1 and ran.err.startswith("pe-verify: error: importing "), ran.err
    assert message in ran.err and len(ran.pids) == 1


@DEEP
def test_what_the_target_writes_to_stderr_is_shown_and_stdout_counted(tmp_path: Path) -> None:
    ran = _check(
        tmp_path,
        f"""
        print("imported", file=sys.stderr)
        def inv_freq(d):
            if first_call():
                print("to stdout")
                os.write(2, b"to stderr\\n")
            return {CORRECT}
        """,
    )
    assert ran.status == 0 and ran.report()["passed"] is True
    assert "imported\n" in ran.err and "to stderr\n" in ran.err
    assert "writes-stdout" in {f["label"] for f in ran.report()["findings"]}


def test_with_stdout_closed_check_fails_in_one_line(tmp_path: Path) -> None:
    path = _target(tmp_path, f"def inv_freq(d):\n    return {CORRECT}\n")
    ran = _run(tmp_path, _argv(path), close="<&- >&-")
    assert ran.status == 3 and ran.out == ""
    assert ran.err.count("\n") == 1 and ran.err.startswith("pe-verify: error: "), ran.err


LIBRARY = """
import os, sys
from pe_verify import check
from pe_verify.properties.battery import Settings
result = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT)
for descriptor in sys.argv[3:]:
    os.close(int(descriptor))
report = check.check("rope-frequencies", sys.argv[2], Settings(ds=(8,), examples=3))
os.write(result, " ".join(p.name for p in report.properties if p.passed).encode())
"""


@pytest.mark.parametrize(
    "closed",
    [["0", "1", "2"], *(pytest.param([fd], marks=DEEP) for fd in "012")],
    ids=["all", "stdin", "stdout", "stderr"],
)
def test_check_runs_with_standard_descriptors_closed(tmp_path: Path, closed: list[str]) -> None:
    """`check.check` in a process whose stdin, stdout or stderr was closed (so that the next files it opens
    take their numbers) runs the battery, and prints nothing."""
    path = _target(tmp_path, f"def inv_freq(d):\n    return {CORRECT}\n")
    result = tmp_path / "result"
    ran = _run(tmp_path, [sys.executable, "-c", LIBRARY, str(result), f"{path}:inv_freq", *closed], close="")
    assert ran.status == 0 and ran.err == "", ran.err
    assert result.read_text().split() == PROPERTIES


def test_a_background_process_ends_when_pe_verify_is_killed(tmp_path: Path) -> None:
    path = _target(
        tmp_path,
        """
        def inv_freq(d):
            track(subprocess.Popen(["sleep", "1000"], start_new_session=True).pid)
            track(os.getpid())
            time.sleep(1000)
        """,
    )
    argv = _argv(path, "--timeout", "600")
    process = subprocess.Popen(argv, cwd=tmp_path, stdin=subprocess.DEVNULL, start_new_session=True)
    hung = time.monotonic() + BOUND
    try:
        while len(_tracked(tmp_path)) < 2:
            assert process.poll() is None and time.monotonic() < hung
            time.sleep(0.05)
        pids = _tracked(tmp_path)
        process.kill()
        process.wait()
        while any(_alive(pid) for pid in pids):
            assert time.monotonic() < hung, f"still running: {[pid for pid in pids if _alive(pid)]}"
            time.sleep(0.05)
    finally:
        _end_session(process)
        _end_tracked(tmp_path)
