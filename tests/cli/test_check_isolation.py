"""`pe-verify check` reports only what it computed: the target runs in a child process, so that its exit, a
crash, a hang, a leak, its prints, strange result types or changed inputs are findings of the report (and fail
it) instead of ending, hanging or corrupting the run. Each hostile target is a small file run through
`cli.main` with a small budget."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from pe_verify import cli
from pe_verify.properties.battery import LABELS

CORRECT = "1.0 / 10000 ** (np.arange(0, d, 2) / d)"


def _check(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, body: str, *options: str, name: str = "inv_freq"
) -> tuple[int, dict, str]:
    """Run `check --json` on `name` from a file holding `body`; the status, the report of the one JSON
    document, stderr."""
    path = tmp_path / "target.py"
    path.write_text("import os, signal, sys, time\nimport numpy as np\n" + textwrap.dedent(body), "utf-8")
    family = "rope" if name == "rotate" else "rope-frequencies"
    argv = ["--quiet", "check", f"{path}:{name}", "--family", family, "--json", "--examples", "3"]
    status = cli.main([*argv, *(["--d", "8"] if family == "rope-frequencies" else []), *options])
    out, err = capsys.readouterr()
    assert out, err
    return status, json.loads(out)["report"], err


def _labels(report: dict) -> set[str]:
    return {f["label"] for f in report["findings"]}


def _failed(report: dict) -> dict[str, dict]:
    return {p["name"]: p["counterexample"] for p in report["properties"] if not p["passed"]}


def test_a_target_that_exits_once_fails_that_property_and_the_rest_run_in_a_fresh_process(
    capsys, tmp_path: Path
) -> None:
    status, report, _ = _check(
        capsys,
        tmp_path,
        f"""
        SCREENED, MARK = (os.path.join(os.path.dirname(__file__), name) for name in ("screened", "exited"))
        def inv_freq(d):
            if not os.path.exists(SCREENED):  # the plain call that screens d = 8 before the properties
                open(SCREENED, "w").close()
            elif not os.path.exists(MARK):
                open(MARK, "w").close()
                os._exit(0)
            return {CORRECT}
        """,
    )
    assert status == 1 and report["passed"] is False
    failed = _failed(report)
    assert list(failed) == ["one-per-pair"] and failed["one-per-pair"]["label"] == "target-exited"
    assert "inv_freq(8) ended the process with exit status 0" in failed["one-per-pair"]["message"]
    assert len(report["properties"]) == 6 and report["identified"]["variant"] == "none"
    assert {"target-exited", "scaling-none"} <= _labels(report)


def test_sys_exit_is_a_finding_that_fails(capsys, tmp_path: Path) -> None:
    status, report, _ = _check(capsys, tmp_path, "def inv_freq(d):\n    sys.exit(0)\n")
    assert status == 1 and "target-exited" in _labels(report)
    assert all(c["label"] == "target-exited" for c in _failed(report).values())
    assert "inv_freq(8) called sys.exit(0)" in report["findings"][0]["message"]


@pytest.mark.slow
def test_a_crash_fails_every_property_it_stops_and_the_identification(capsys, tmp_path: Path) -> None:
    status, report, _ = _check(
        capsys, tmp_path, "def inv_freq(d):\n    os.kill(os.getpid(), signal.SIGSEGV)\n"
    )
    assert status == 1 and report["identified"] is None
    assert [p["passed"] for p in report["properties"]] == [False] * 7
    assert report["properties"][0]["name"] == "contract at d=8"  # then every property, not run
    assert all(c["label"] == "target-crashed" for c in _failed(report).values())
    assert "killed by SIGSEGV" in report["findings"][0]["message"]


def test_a_target_that_crashes_at_one_d_fails_that_d_and_is_checked_at_the_others(
    capsys, tmp_path: Path
) -> None:
    body = f"def inv_freq(d):\n    if d == 8:\n        os._exit(3)\n    return {CORRECT}\n"
    status, report, _ = _check(capsys, tmp_path, body, "--d", "16")
    assert status == 1 and list(_failed(report)) == ["contract at d=8"]
    assert _failed(report)["contract at d=8"]["label"] == "target-exited"
    assert len(report["properties"]) == 7 and report["identified"]["variant"] == "none"


@pytest.mark.parametrize("exception", ["KeyboardInterrupt", "GeneratorExit", "SystemExit(3)"])
def test_base_exceptions_raised_by_the_target_are_findings(capsys, tmp_path: Path, exception: str) -> None:
    status, report, _ = _check(capsys, tmp_path, f"def inv_freq(d):\n    raise {exception}\n")
    label = "target-exited" if exception.startswith("SystemExit") else "raises"
    assert status == 1 and label in _labels(report)
    assert all(c["label"] == label for c in _failed(report).values())


def test_what_the_target_writes_to_stdout_is_counted_not_shown(capsys, tmp_path: Path) -> None:
    status, report, _ = _check(
        capsys,
        tmp_path,
        f"""
        import ctypes
        print("at import")
        def inv_freq(d):
            print("hello", end="")
            os.write(1, b"raw\\n")
            ctypes.CDLL(None).puts(b"from C")
            return {CORRECT}
        """,
    )
    assert status == 0 and report["passed"] is True  # json.loads read stdout as one object
    (message,) = [f["message"] for f in report["findings"] if f["label"] == "writes-stdout"]
    written = re.fullmatch(re.escape(LABELS["writes-stdout"]) + r": it wrote (\d+) bytes to stdout", message)
    assert written and int(written[1]) > len("at import\n") + 10 * len("hellorawfrom C\n\n")


@pytest.mark.slow
@pytest.mark.parametrize(
    "hang",
    [
        "time.sleep(60)",
        "while True: pass",
        # SIGALRM blocked: only the parent's watchdog can end the call
        "signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM}); time.sleep(60)",
    ],
    ids=["sleep", "busy-loop", "alarm-blocked"],
)
def test_a_hang_is_a_timeout(capsys, tmp_path: Path, hang: str) -> None:
    body = f"""
    MARK = os.path.join(os.path.dirname(__file__), "hung")
    def inv_freq(d):
        if d == 8 and not os.path.exists(MARK):
            open(MARK, "w").close()
            {hang}
        return {CORRECT}
    """
    status, report, _ = _check(capsys, tmp_path, body, "--timeout", "0.3", "--d", "16")
    assert status == 1 and "timeout" in _labels(report)
    (stopped,) = _failed(report).values()  # the screen of d = 8: the properties ran at d = 16
    assert report["properties"][0]["name"] == "contract at d=8" and stopped["label"] == "timeout"
    assert "inv_freq(8)" in stopped["message"] and "0.3 s" in stopped["message"]


@pytest.mark.slow
@pytest.mark.parametrize(
    "allocation",
    ["np.ones(2**28)", "[bytearray(2**24) for _ in range(64)]"],
    ids=["array", "leak"],
)
def test_memory_past_the_limit_is_a_finding(capsys, tmp_path: Path, allocation: str) -> None:
    status, report, _ = _check(
        capsys, tmp_path, f"def inv_freq(d):\n    {allocation}\n", "--target-memory", "0.25"
    )
    assert status == 1 and "memory-limit" in _labels(report)
    assert all(c["label"] == "memory-limit" for c in _failed(report).values())


@pytest.mark.slow
@pytest.mark.parametrize(
    ("result", "dtype"),
    [
        (f"({CORRECT}).astype(complex)", "complex128"),
        (f"np.array([str(v) for v in {CORRECT}])", "<U"),
        (f"np.array([__import__('decimal').Decimal(v) for v in {CORRECT}])", "object"),
        (f"({CORRECT}) > 0", "bool"),
    ],
    ids=["complex", "strings", "objects", "bools"],
)
def test_results_that_are_not_real_numbers_are_wrong_dtype(
    capsys, tmp_path: Path, result: str, dtype: str
) -> None:
    status, report, _ = _check(capsys, tmp_path, f"def inv_freq(d):\n    return {result}\n")
    assert status == 1 and "wrong-dtype" in _labels(report)
    message = next(f["message"] for f in report["findings"] if f["label"] == "wrong-dtype")
    assert f"inv_freq(8) returned {dtype}" in message


def test_a_target_that_changes_its_inputs_is_a_finding(capsys, tmp_path: Path) -> None:
    status, report, _ = _check(
        capsys,
        tmp_path,
        """
        from pe_verify.properties.encodings.rope import apply_rope
        def rotate(x, positions):
            rotated = apply_rope(x, positions, layout="half_split")
            positions += 70000
            return rotated
        """,
        name="rotate",
    )
    assert status == 1 and "mutates-input" in _labels(report)
    message = next(f["message"] for f in report["findings"] if f["label"] == "mutates-input")
    assert "changed its argument 2 in place" in message


@pytest.mark.parametrize(
    ("import_line", "message"),
    [("sys.exit(3)", "raised SystemExit: 3"), ("os._exit(3)", "ended the process with exit status 3")],
)
def test_a_target_that_ends_its_process_on_import_is_a_usage_error(
    capsys, tmp_path: Path, import_line: str, message: str
) -> None:
    path = tmp_path / "target.py"
    path.write_text(f"import os, sys\n{import_line}\n", "utf-8")
    status = cli.main(["--quiet", "check", f"{path}:f", "--family", "rope"])
    out, err = capsys.readouterr()
    assert status == 2 and out == "" and err.count("\n") == 1 and message in err


def test_a_target_that_runs_check_when_imported_is_refused(capsys, tmp_path: Path) -> None:
    path = tmp_path / "target.py"
    path.write_text(
        "from pe_verify import check\nfrom pe_verify.properties.battery import Settings\n"
        "check.check('alibi', __file__ + ':slopes', Settings())\ndef slopes(n):\n    return n\n",
        "utf-8",
    )
    status = cli.main(["--quiet", "check", f"{path}:slopes", "--family", "alibi"])
    _, err = capsys.readouterr()
    assert status == 2 and "cannot run inside an implementation it is checking" in err


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--timeout", "0", "timeout must be a number from 0.01 to 3600"),
        ("--timeout", "1e9", "timeout must be a number from 0.01 to 3600"),
        ("--target-memory", "nan", "target-memory must be a number"),
        ("--target-memory", "1e6", "target-memory must be a number from 0.01 to 1024"),
    ],
)
def test_limits_out_of_range_are_usage_errors(capsys, tmp_path: Path, option, value, message) -> None:
    path = tmp_path / "target.py"
    path.write_text("def f(d):\n    return d\n", "utf-8")
    status = cli.main(["--quiet", "check", f"{path}:f", "--family", "rope-frequencies", option, value])
    _, err = capsys.readouterr()
    assert status == 2 and err.count("\n") == 1 and message in err


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    return state == "Z"


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc to see the child end")
@pytest.mark.parametrize("ending", ["ctrl-c", "killed"])
def test_the_child_ends_with_a_ctrl_c_with_130_or_when_the_run_is_killed(tmp_path: Path, ending: str) -> None:
    pid_file = tmp_path / "pid"
    path = tmp_path / "target.py"
    path.write_text(
        f"import os, time\ndef inv_freq(d):\n    open({str(pid_file)!r}, 'w').write(str(os.getpid()))\n"
        "    time.sleep(120)\n",
        "utf-8",
    )
    argv = [sys.executable, "-m", "pe_verify.cli", "--quiet", "check", f"{path}:inv_freq"]
    argv += ["--family", "rope-frequencies", "--timeout", "600"]
    # SIGINT's default action, whatever this process inherited (a background job ignores it, and a command
    # started so rightly keeps running on a Ctrl-C)
    process = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    hung = time.monotonic() + 120  # not a time limit on the run: only that the test cannot hang
    try:
        while not pid_file.exists() or not pid_file.read_text():
            assert process.poll() is None and time.monotonic() < hung, process.communicate()
            time.sleep(0.05)
        child = int(pid_file.read_text())
        assert child != process.pid
        if ending == "ctrl-c":  # as a terminal sends it: to the whole process group
            os.killpg(process.pid, signal.SIGINT)
        else:
            process.kill()
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
        process.communicate()  # its pipes closed whatever happened
    if ending == "ctrl-c":
        assert process.returncode == 130 and out == b"" and err == b"pe-verify: error: interrupted\n"
    while not _gone(child):
        assert time.monotonic() < hung, f"the child {child} is still running"
        time.sleep(0.05)
