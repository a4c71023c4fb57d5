"""Every numeric option of every command, found in the parser itself, refuses huge, infinite, NaN,
over-precise, negative and just-out-of-range values with exit 2, one line on stderr, no traceback and nothing
on stdout, while its option is read (before any work), and accepts both ends of the range it states.

Options are found as the actions of `cli._parser()` whose type is a `cli.NumberOption`, so an option added
later is probed as soon as it exists; an option that reads a number in another way (`type=float`, a numeric
default without a range) fails `test_every_numeric_option_states_a_range`. The values are probed in-process
(the command itself would fail the test if it ran); a few of them, and every one under `-m slow`, also run as
real processes under a memory cap (RLIMIT_AS) and a time cap.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from pe_verify import cli
from pe_verify.inputs import Base, Real, Whole

#: Values no numeric option accepts.
BAD = ("1e309", "1e400", "-1e400", "inf", "-inf", "nan", "NaN", "1.0000000000000000000001", "-1", "9" * 5000)

#: The caps of each real process: address space and seconds.
MEMORY_CAP = 3 * 2**29
SECONDS_CAP = 20


@dataclass(frozen=True)
class Option:
    """One numeric option of one command, with a command line on which everything else is valid."""

    command: str
    flag: str
    read: Whole | Real | Base
    baseline: tuple[str, ...]

    def argv(self, value: str) -> list[str]:
        return [self.command, *self.baseline, f"{self.flag}={value}"]

    def bad_values(self) -> list[str]:
        """BAD, and for this option's range: zero when below it, and the numbers just outside it."""
        values = list(BAD)
        if isinstance(self.read, Whole):
            values += [str(self.read.low - 1), str(self.read.high + 1)]
            values += ["0"] if self.read.low > 0 else []
            values += [str(self.read.low + 1)] if self.read.even else []
            values += [f"{self.read.low}.5"]
        elif isinstance(self.read, Real):
            values += ["0", str(float(self.read.low) / 2), str(float(self.read.high) * 2)]
        else:
            values += ["0", "1", "0.5", "1.00000000000000000001", "1e308" + "0"]
        return values


def _valid(action: argparse.Action) -> list[str]:
    """A valid value for a required action."""
    if isinstance(action.type, cli.NumberOption):
        read = action.type.read
        return ["10000" if isinstance(read, Base) else str(read.low)]
    if action.choices:
        return [next(iter(action.choices))]
    return ["module:name"]


def _commands() -> Iterator[tuple[str, argparse.ArgumentParser]]:
    parser = cli._parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            yield from action.choices.items()


def _options() -> list[Option]:
    found = []
    for name, sub in _commands():
        baseline: list[str] = []
        for action in sub._actions:
            if action.required:
                baseline += (
                    _valid(action)
                    if not action.option_strings
                    else [action.option_strings[0], *_valid(action)]
                )
        for action in sub._actions:
            if isinstance(action.type, cli.NumberOption):
                found.append(Option(name, action.option_strings[0], action.type.read, tuple(baseline)))
    return found


OPTIONS = _options()
CASES = [(option, value) for option in OPTIONS for value in option.bad_values()]


def _id(case: object) -> str:
    return case.flag if isinstance(case, Option) else str(case)[:24]


def test_the_probe_finds_the_numeric_options_of_every_command() -> None:
    commands = {option.command for option in OPTIONS}
    assert {"collisions", "separation", "check"} <= commands
    flags = {(option.command, option.flag) for option in OPTIONS}
    assert {("check", "--examples"), ("check", "--base"), ("separation", "--max-minutes")} <= flags
    assert len(CASES) > 200


def _is_number_text(value: object) -> bool:
    return isinstance(value, str) and value.replace(".", "", 1).replace("e", "", 1).isdigit()


def test_every_numeric_option_states_a_range() -> None:
    """Numbers are read only through the range-checked readers: no `type=int`/`float`, no numeric default
    read as plain text; each help text states the range."""
    for name, sub in _commands():
        for action in sub._actions:
            where = f"{name} {action.option_strings}"
            assert action.type not in (int, float), f"{where} reads a number without a range"
            numeric_default = isinstance(action.default, (int, float)) and not isinstance(
                action.default, bool
            )
            if numeric_default or _is_number_text(action.default):
                assert isinstance(action.type, cli.NumberOption), f"{where} reads a number without a range"
            if isinstance(action.type, cli.NumberOption):
                assert action.type.read.range in action.help, f"{where}: its help does not state its range"


@pytest.mark.parametrize("option", OPTIONS, ids=_id)
def test_both_ends_of_every_range_are_accepted(option: Option) -> None:
    read = option.read
    if isinstance(read, Base):
        assert read("1.0000000000000003") == "1.0000000000000003" and read("1.7e308") == "1.7e308"
        return
    for end in (read.low, read.high):
        if isinstance(read, Whole):
            assert read(str(end)) == end
        else:
            assert read(str(end)) == float(end) and read(str(float(end))) == float(end)


def _ran(args: argparse.Namespace) -> int:
    raise AssertionError(f"{args.command} ran")


@pytest.fixture
def nothing_runs() -> Iterator[None]:
    """The command must not start: every bad value is refused while its option is read. (A context rather
    than the `monkeypatch` fixture, which makes conftest reset the catalog's caches for every case.)"""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cli, "_run", _ran)
        yield


@pytest.mark.parametrize(("option", "value"), CASES, ids=_id)
def test_every_bad_value_is_a_one_line_usage_error(
    capsys: pytest.CaptureFixture[str], nothing_runs: None, option: Option, value: str
) -> None:
    assert cli.main(option.argv(value)) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith("pe-verify: error: ")
    assert "Traceback" not in err and len(err) < 500
    assert option.flag.lstrip("-") in err


def _capped() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def _run_capped(argv: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pe_verify.cli", *argv],
        capture_output=True,
        text=True,
        timeout=SECONDS_CAP,
        preexec_fn=_capped,
        check=False,
    )


def _assert_refused(done: subprocess.CompletedProcess[str]) -> None:
    assert done.returncode == 2, done.stderr
    assert done.stdout == "" and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


#: A few real processes in the default run: the values that blew up before, for each command.
SAMPLE = [
    (option, value)
    for option, value in CASES
    if (option.command, option.flag, value)
    in {
        ("collisions", "--d", "1e400"),
        ("collisions", "--max-memory", "1e309"),
        ("separation", "--d", "1e400"),
        ("separation", "--base", "1.0000000000000000000001"),
        ("check", "--examples", "1e400"),
        ("check", "--seed", "nan"),
    }
]


@pytest.mark.slow
@pytest.mark.parametrize(("option", "value"), SAMPLE, ids=_id)
def test_bad_values_are_refused_by_the_real_command_under_memory_and_time_caps(
    option: Option, value: str
) -> None:
    _assert_refused(_run_capped(option.argv(value)))


@pytest.mark.slow
@pytest.mark.parametrize(
    "argv", [["collisions", "--d", "1e12"], ["separation", "--d", "1e12", "--max-offset", "100"]]
)
def test_the_sizes_that_hung_in_the_estimators_are_refused_at_once(argv: list[str]) -> None:
    _assert_refused(_run_capped(argv))


@pytest.mark.slow
@pytest.mark.parametrize(
    "argv",
    [
        ["collisions", "--d", "1048576", "--max-pos", "4294967296", "--scan-values", "4503599627370496"],
        ["separation", "--d", "1048576", "--max-offset", "4611686018427387904", "--base", "1.7e308"],
        ["separation", "--d", "2", "--max-offset", "4611686018427387904", "--base", "1.0000000000000003"],
        ["check", "module:name", "--family", "rope", "--examples", "1e9"],
    ],
)
def test_the_largest_settings_are_estimated_and_refused_at_once(argv: list[str]) -> None:
    """Refused by an estimate computed in closed form, well within the caps."""
    _assert_refused(_run_capped(argv))


@pytest.mark.slow
@pytest.mark.parametrize(("option", "value"), CASES, ids=_id)
def test_every_bad_value_is_refused_by_the_real_command(option: Option, value: str) -> None:
    _assert_refused(_run_capped(option.argv(value)))
