"""The `pe-verify` command line."""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import errno
import json
import math
import os
import re
import sys
import traceback
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from pathlib import Path

from pe_verify import __version__, inputs, records
from pe_verify.inputs import MAX_MEMORY_GIB, MAX_MINUTES, SCAN_VALUES, Base, Real, Whole
from pe_verify.properties.family_index import family_names
from pe_verify.reporting.libraries import IN_REPOSITORY
from pe_verify.terminal import (
    discard_stdout,
    fitted,
    flush_stdout,
    json_ascii,
    prepare_streams,
    progress_bar,
    terminal_width,
)

GIB = 2**30

#: What an exit status means; scripts may rely on these.
EXIT_STATUSES = {
    0: "every computed verdict is the recorded one, every derivation verified, the command did its work",
    1: "a computed verdict differs from the recorded one, a derivation failed, or `check` found a property "
    "that fails",
    2: "a usage or input error (a one-line message says which)",
    3: "any other failure: I/O, permissions, a full disk, an internal error (one line; --debug shows the "
    "traceback)",
    130: "interrupted (Ctrl-C)",
    141: "the reader closed the pipe (as a process killed by SIGPIPE reports it)",
}
EXIT_OK, EXIT_CHANGED, EXIT_USAGE, EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_BROKEN_PIPE = EXIT_STATUSES

#: A run of more than 200 non-blank characters in a message is cut (a pasted 100 000-character argument).
_LONG_WORD = re.compile(r"[^\s'\"]{201,}")


class UsageError(Exception):
    """A mistake in how the command was called; reported in one line with exit status 2."""


def _cut_long_words(message: str) -> str:
    return _LONG_WORD.sub(lambda word: f"{word[0][:60]}… ({len(word[0])} characters)", message)


#: The shells `completion` writes a script for (shtab's, from its version 1.7).
COMPLETION_SHELLS = ("bash", "zsh", "tcsh")
#: How close (difflib's ratio) an unknown option must be to a known one to be suggested.
OPTION_CUTOFF = 0.8
#: The largest saved document `check --rerun` reads (a check document is a few kilobytes).
MAX_SAVED_BYTES = 16 * 2**20


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, no usage dump, no argument echoed in full
        raise UsageError(_cut_long_words(message + self._suggestion(message)))

    def _suggestion(self, message: str) -> str:
        """ "; did you mean …?" for an invalid choice (a command, a family; difflib's ratio of at least 0.6)
        or an unknown option close to a known one of any command (a ratio of at least 0.8, so that another
        command's option is suggested only for a plain typo), else nothing."""
        choice = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if choice is not None:
            given, known = choice[1], re.findall(r"'([^']*)'", choice[2]) or choice[2].split(", ")
            close = difflib.get_close_matches(given, known, n=1)
        else:
            unknown = re.search(r"unrecognized arguments: (.*)", message)
            options = [word for word in (unknown[1].split() if unknown else ()) if word.startswith("--")]
            known = sorted(self._option_strings())
            close = [
                m
                for word in options[:1]
                for m in difflib.get_close_matches(word.split("=")[0], known, n=1, cutoff=OPTION_CUTOFF)
            ]
        return f"; did you mean {close[0]!r}?" if close else ""

    def _option_strings(self) -> set[str]:
        """Every long option of this parser and of its commands' parsers."""
        found = {o for action in self._actions for o in action.option_strings if o.startswith("--")}
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                for parser in action.choices.values():
                    found |= {o for a in parser._actions for o in a.option_strings if o.startswith("--")}
        return found


class NumberOption:
    """The argparse type of every numeric option: a reader of `pe_verify.inputs` (`Whole`, `Real`, `Base`),
    whose ValueError becomes argparse's one-line error; its range is checked as the option is read."""

    def __init__(self, read: Whole | Real | Base) -> None:
        self.read = read

    def __call__(self, text: str) -> object:
        try:
            return self.read(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None


def _whole(name: str, low: int, high: int, even: bool = False) -> NumberOption:
    return NumberOption(Whole(name, low, high, even))


def _positive(name: str) -> NumberOption:
    """A limit (GiB, minutes) from MIN_LIMIT to MAX_LIMIT."""
    return NumberOption(Real(name, inputs.MIN_LIMIT, Fraction(inputs.MAX_LIMIT)))


def _base(float64: bool = False) -> NumberOption:
    return NumberOption(Base(float64=float64))


def _range(option: NumberOption) -> str:
    return option.read.range


def _global_options(parser: argparse.ArgumentParser, default: object) -> None:
    """Options every command takes, before or after its name (`default` SUPPRESS keeps a subcommand from
    overriding what was given before it)."""
    parser.add_argument(
        "--debug", action="store_true", default=default, help="show the traceback of an unexpected failure"
    )
    parser.add_argument(
        "--quiet",
        action="store_true",
        default=default,
        help="no progress on stderr (shown only on a terminal)",
    )


def _memory_option(parser: argparse.ArgumentParser) -> None:
    _numeric(
        parser,
        "--max-memory",
        _positive("max-memory"),
        f"refuse settings estimated to need more memory (default {MAX_MEMORY_GIB:g} GiB)",
        default=MAX_MEMORY_GIB,
        metavar="GIB",
    )


def _minutes_option(parser: argparse.ArgumentParser) -> None:
    _numeric(
        parser,
        "--max-minutes",
        _positive("max-minutes"),
        f"refuse settings estimated to take longer (default {MAX_MINUTES:g} minutes)",
        default=MAX_MINUTES,
        metavar="MIN",
    )


def _numeric(
    parser: argparse.ArgumentParser, flag: str, option: NumberOption, what: str, **kwargs: object
) -> None:
    """Add a numeric option whose help says `what` and states its range."""
    parser.add_argument(flag, type=option, help=f"{what}; {_range(option)}", **kwargs)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="pe-verify",
        description="Verify claims about transformer positional encodings.",
        epilog="exit status: " + "; ".join(f"{code} {meaning}" for code, meaning in EXIT_STATUSES.items()),
    )
    parser.add_argument("--version", action="version", version=f"pe-verify {__version__}")
    _global_options(parser, False)
    commands = parser.add_subparsers(dest="command", parser_class=_Parser)
    parser.set_defaults(run=None, commands=commands.choices)

    def command(
        name: str, run: Callable[[argparse.Namespace], int], **kwargs: str
    ) -> argparse.ArgumentParser:
        """A command, its help and the function that runs it: the one place it is registered."""
        sub = commands.add_parser(name, **kwargs)
        sub.set_defaults(run=run)
        _global_options(sub, argparse.SUPPRESS)
        return sub

    proofs = command("proofs", run_proofs, help="run every symbolic derivation and report each result")
    proofs.add_argument("--json", action="store_true", help="print a JSON document instead of text")
    proofs.add_argument("--markdown", action="store_true", help="print every derivation's steps as markdown")
    listing = command("list", run_list, help="every claim with its computed verdicts")
    listing.add_argument("--json", action="store_true", help="print a JSON document instead of a table")
    listing.add_argument(
        "--document", default="", help="only the claims of this document (its file name, or a part of it)"
    )
    listing.add_argument(
        "--verdict", default="", help="only the claims with this verdict (its words, or their start)"
    )
    listing.add_argument(
        "--fresh", action="store_true", help="compute anew: neither read nor write the results cache"
    )
    show = command("show", run_show, help="everything about one claim: evidence, derivations, dependencies")
    show.add_argument("id", help="a claim id such as D3.5")
    show.add_argument("--json", action="store_true", help="print a JSON document instead of text")
    show.add_argument(
        "--fresh", action="store_true", help="compute anew: neither read nor write the results cache"
    )
    reproduce = command(
        "reproduce",
        run_reproduce,
        help="published results recomputed: each paper's rows beside the computed values",
    )
    reproduce.add_argument("name", nargs="?", help="one reproduction, such as men_base_bound (default: all)")
    reproduce.add_argument("--json", action="store_true", help="print a JSON document instead of text")
    report = command(
        "report",
        lambda args: run_report(args.out, args.readme, args.quiet, args.redraw_figures),
        help="write the markdown reports and figures",
    )
    report.add_argument("--out", default="reports", help="output folder (default: reports)")
    report.add_argument("--readme", help="also refresh the headline-findings block of this README file")
    report.add_argument(
        "--redraw-figures",
        action="store_true",
        help="draw the figures anew even where --out holds the same ones from another matplotlib version",
    )
    checking = command(
        "check", run_check, help="run the property battery of a family on your own implementation"
    )
    checking.add_argument(
        "target", nargs="?", help="package.module:name or path/to/file.py:name (required without --rerun)"
    )
    checking.add_argument("--family", choices=family_names(), help="required without --rerun")
    _numeric(
        checking,
        "--d",
        _whole("d", 1, inputs.CHECK_MAX_D),
        "a model dimension to check (repeatable; default: several)",
        action="append",
    )
    _numeric(
        checking,
        "--base",
        _base(float64=True),
        "the base the implementation declares (default 10000), read into float64",
        default="10000",
    )
    _numeric(
        checking,
        "--max-pos",
        _whole("max-pos", 2, inputs.CHECK_MAX_POSITIONS),
        "positions 0 … N−1 (default 65536)",
        default=65536,
    )
    _numeric(
        checking,
        "--heads",
        _whole("heads", 1, inputs.CHECK_MAX_HEADS),
        "an ALiBi head count (repeatable; default 1–64)",
        action="append",
    )
    checking.add_argument(
        "--backend",
        choices=("auto", "numpy", "torch"),
        default="auto",
        help="the arrays handed to a rotate/apply/encode function (default auto: torch tensors when the "
        "target's module imports torch, else numpy; real code's RoPE conventions always get torch tensors)",
    )
    checking.add_argument(
        "--dtype",
        choices=("float32", "bfloat16", "float16", "float64"),
        help="the dtype of the torch tensors a rope implementation is handed (default float32): bfloat16 "
        "checks it as a bfloat16 model runs it",
    )
    checking.add_argument(
        "--convention",
        metavar="NAME",
        help="how a rope implementation is called, where detection cannot decide (docs/check.md lists the "
        "conventions; an unknown NAME is answered with them)",
    )
    _numeric(checking, "--seed", _whole("seed", 0, inputs.MAX_SEED), "Hypothesis seed (default 0)", default=0)
    _numeric(
        checking,
        "--examples",
        _whole("examples", 1, inputs.CHECK_MAX_EXAMPLES),
        "Hypothesis examples per property (default 60)",
        default=60,
    )
    _minutes_option(checking)
    checking.add_argument(
        "--expect", help="fail unless the identified variant is this (e.g. llama3, half_split)"
    )
    _numeric(
        checking,
        "--timeout",
        NumberOption(Real("timeout", *inputs.TIMEOUT_RANGE)),
        f"the seconds one call of the implementation may take (default {inputs.TIMEOUT_SECONDS}); a call "
        "past it fails its property",
        default=float(inputs.TIMEOUT_SECONDS),
        metavar="SECONDS",
    )
    _numeric(
        checking,
        "--target-memory",
        NumberOption(Real("target-memory", *inputs.TARGET_MEMORY_RANGE)),
        "the GiB the implementation and the checks of its results may add (default "
        f"{inputs.TARGET_MEMORY_GIB}); running out fails its property",
        default=float(inputs.TARGET_MEMORY_GIB),
        metavar="GIB",
    )
    checking.add_argument(
        "--json",
        action="store_true",
        help="print a JSON document instead of text, with the settings to run it again (--rerun)",
    )
    checking.add_argument(
        "--markdown", action="store_true", help="print a markdown report for a pull request"
    )
    checking.add_argument(
        "--rerun",
        metavar="FILE",
        help="run again the check a saved `check --json` document records, with every setting it echoes, "
        "and fail (exit 1) when its verdict is not the saved one",
    )
    collisions = command(
        "collisions",
        run_collisions,
        help="when can sinusoidal encoding values coincide, exactly and in a dtype",
    )
    _numeric(collisions, "--d", _whole("d", 1, inputs.MAX_D), "model dimension d", required=True)
    _numeric(collisions, "--base", _base(), "frequency base (default 10000)", default="10000")
    _numeric(
        collisions,
        "--max-pos",
        _whole("max-pos", 2, inputs.MAX_POSITIONS),
        "positions 0 … N−1 (default 8192)",
        default=8192,
    )
    collisions.add_argument(
        "--dtype",
        default="float32",
        choices=("float64", "float32", "float16", "bfloat16"),
        help="storage dtype",
    )
    _numeric(
        collisions,
        "--scan-values",
        _whole("scan-values", 1, inputs.MAX_SCAN_VALUES),
        f"values the nearest-pair scan sorts at most (d × positions; default {SCAN_VALUES:.0e})",
        default=SCAN_VALUES,
    )
    _memory_option(collisions)
    _minutes_option(collisions)
    collisions.add_argument("--json", action="store_true", help="print a JSON document instead of text")
    separation = command(
        "separation",
        run_separation,
        help="the least distance between two sinusoidal encodings an offset apart, certified for every "
        "offset of a range",
    )
    _numeric(separation, "--d", _whole("d", 2, inputs.MAX_D, even=True), "model dimension d", required=True)
    _numeric(
        separation,
        "--base",
        _base(),
        "frequency base with a finite decimal expansion (default 10000)",
        default="10000",
    )
    _numeric(
        separation,
        "--max-offset",
        _whole("max-offset", 2, inputs.MAX_OFFSET),
        "offsets k < K",
        required=True,
    )
    _numeric(
        separation,
        "--from-offset",
        _whole("from-offset", 1, inputs.MAX_OFFSET - 1),
        "offsets k ≥ K0 (default 1; below --max-offset)",
        default=1,
    )
    _numeric(
        separation,
        "--workers",
        _whole("workers", 1, inputs.MAX_WORKERS),
        "local processes of one BLAS thread each that certify chunks of the range (default 1)",
        default=1,
    )
    _numeric(
        separation,
        "--chunks",
        _whole("chunks", 1, inputs.MAX_CHUNKS),
        "chunks the range is split into, each certified apart and merged once their certificates check "
        "(default: 1 with one worker, 4 per worker otherwise, 16 on a cluster)",
    )
    separation.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="send the chunks to the Dask cluster whose scheduler is at ADDRESS (needs the dask extra)",
    )
    separation.add_argument(
        "--backend",
        choices=("numpy", "torch"),
        default="numpy",
        help="where the float32 screen computes: numpy (default) or torch, on CUDA when present, else its "
        "CPU (needs the torch extra)",
    )
    _memory_option(separation)
    _minutes_option(separation)
    separation.add_argument("--json", action="store_true", help="print a JSON document instead of text")
    model = command(
        "model",
        run_model,
        help="the suite's checks applied to one real model's positional setup, read from its config.json",
    )
    model.add_argument(
        "path",
        help="a Hugging Face config.json, a folder holding one, a GGUF file (read as llama.cpp reads it), or "
        "a bundled model (--list shows them)",
        nargs="?",
    )
    model.add_argument(
        "--gguf",
        metavar="FILE",
        help="a GGUF file converted from the config: audit the conversion (every rope key, the per-pair "
        "tensors, and what llama.cpp computes from the file against transformers from the config)",
    )
    _numeric(
        model,
        "--context",
        _whole("context", 2, inputs.MAX_MODEL_CONTEXT),
        "the context you plan to run (default: max_position_embeddings, or the bundled model's documented "
        "one)",
    )
    _memory_option(model)
    _minutes_option(model)
    model.add_argument("--list", action="store_true", help="list the bundled models and their sources")
    model.add_argument(
        "--no-cross-check", action="store_true", help="skip the comparison with transformers' own computation"
    )
    model.add_argument(
        "--runtimes",
        nargs="?",
        const="",
        metavar="NAMES",
        help="compare what each runtime (transformers versions, vLLM, SGLang, mlx-lm, llama.cpp, …) computes "
        "from the config with transformers 5, layer group by layer group: every profile, or the "
        "comma-separated NAMES (pe-verify model --list-runtimes)",
    )
    model.add_argument(
        "--list-runtimes", action="store_true", help="list the runtime profiles and where each was read"
    )
    model.add_argument("--json", action="store_true", help="print a JSON document instead of text")
    model.add_argument("--markdown", action="store_true", help="print a markdown section")
    atlas = command(
        "atlas",
        run_atlas,
        help="run check on the real RoPE and ALiBi code of the libraries the libraries extra pins, and print "
        "or write the record that the library atlas page is rendered from",
    )
    atlas.add_argument(
        "--record",
        metavar="PATH",
        help="write the record to PATH instead of printing it, replacing an atlas record there (any other "
        f"file is refused); the repository's is {IN_REPOSITORY}",
    )
    completion = command(
        "completion",
        lambda args: run_completion(args.shell),
        help="print a shell completion script for the commands, their options and choices: in ~/.bashrc, "
        'eval "$(pe-verify completion bash)"',
    )
    completion.add_argument("shell", choices=COMPLETION_SHELLS, help="the shell the script is for")
    return parser


#: Options that choose how a result is shown, not what is computed: never echoed in `--json`'s settings.
_PRESENTATION = frozenset({"help", "json", "markdown", "debug", "quiet", "list", "list_runtimes", "rerun"})


def _settings(args: argparse.Namespace) -> dict[str, object]:
    """Every option the command ran with, defaults included, under the option's name (``max-pos`` for
    ``--max-pos``, a positional argument under its own): what `--json` echoes so that the same command can
    run again."""
    found = {}
    for action in args.commands[args.command]._actions:
        if action.dest not in _PRESENTATION:
            name = action.option_strings[-1].removeprefix("--") if action.option_strings else action.dest
            found[name] = getattr(args, action.dest)
    return found


def _print_document(
    args: argparse.Namespace, result: object, settings: dict[str, object] | None = None
) -> None:
    """Print the `--json` document of this run (`documents.document`): `result` with the settings it ran
    with (by default every option of the command, `_settings`)."""
    from pe_verify import documents

    found = documents.document(args.command, _settings(args) if settings is None else settings, result)
    print(documents.dumps(found, json_ascii()))


def run_completion(shell: str) -> int:
    """Print the completion script for `shell` that shtab makes from this parser: commands, options and the
    choices options take (families, backends, shells), and file names where a path goes."""
    import shtab

    print(shtab.complete(_parser(), shell), end="")
    return EXIT_OK


def run_proofs(args: argparse.Namespace) -> int:
    """Verify every derivation; exit status 1 when any fails."""
    from pe_verify.proofs import all_derivations, render_markdown

    as_json, as_markdown = args.json, args.markdown
    if as_json and as_markdown:
        raise UsageError("--json and --markdown cannot be combined")
    rows = []
    items = all_derivations()
    with progress_bar(len(items), "verifying derivations", args.quiet) as bar:
        for item in items:
            bar.set_postfix_str(item.id)
            rows.append((item, item.verify()))
            bar.update()
    for item, result in rows:
        if not (as_json or as_markdown):
            status = "verified" if result.verified else "FAILED"
            print(f"{item.id:<32} {status:<9} {result.seconds:7.3f}s  {item.title}")
            print(f"{'':<32} {result.summary}")
            for step in result.steps:
                if not step.holds:
                    print(f"{'':<32} step failed: {step.claim}" + (f" ({step.error})" if step.error else ""))
    if as_json:
        _print_document(args, [_derivation_record(item, result) for item, result in rows])
    elif as_markdown:
        print("\n".join(render_markdown(item, result) for item, result in rows))
    failed = [item.id for item, result in rows if not result.verified]
    if failed and not as_json:
        print(f"{len(failed)} of {len(rows)} derivations failed: {', '.join(failed)}", file=sys.stderr)
    return EXIT_CHANGED if failed else EXIT_OK


def run_reproduce(args: argparse.Namespace) -> int:
    """The published results the catalog recomputes, row by row; exit 0 whatever they show (a discrepancy
    with a paper is a finding, not a failure)."""
    from pe_verify.claims.catalog import UnknownClaim, assessment, reproductions, resolve

    name, entries = args.name, reproductions()
    if name is not None:
        try:
            name = resolve(name, list(entries))
        except UnknownClaim as exc:
            raise UsageError(str(exc).replace("no claim with id", "no reproduction named")) from None
    chosen = [entries[name]] if name is not None else list(entries.values())
    found = []
    with progress_bar(len(chosen), "reproducing", args.quiet) as bar:
        for item in chosen:
            bar.set_postfix_str(item.reproduces)
            found.append((item, assessment(item.id).reproduction))
            bar.update()
    if args.json:
        _print_document(args, [_reproduction_record(item, reproduction) for item, reproduction in found])
        return EXIT_OK
    for item, reproduction in found:
        print(fitted(f"{reproduction.name} ({item.id}) — {reproduction.source}"))
        print(fitted(f"  computed: {reproduction.precision}"))
        for row in reproduction.rows:
            mark = "agrees" if row.agrees else "DIFFERS"
            note = f" — {row.note}" if row.note else ""
            print(
                fitted(f"  {row.parameter}: published {row.published}, computed {row.computed}: {mark}{note}")
            )
        print(f"  {len(reproduction.discrepancies)} of {len(reproduction.rows)} rows differ")
    return EXIT_OK


def _reproduction_record(item, reproduction) -> records.ReproductionRecord:
    return records.ReproductionRecord(
        reproduction.name, item.id, reproduction.source, reproduction.precision, list(reproduction.rows)
    )


def _derivation_record(item, result) -> records.DerivationRecord:
    return records.DerivationRecord(
        id=item.id,
        title=item.title,
        statement=item.statement,
        hypotheses=list(item.hypotheses),
        verified=result.verified,
        seconds=round(result.seconds, 6),
        steps=[records.StepRecord(s.claim, s.justification, s.holds, s.error) for s in result.steps],
    )


def _verdict_status(changes: Iterable[str | None]) -> int:
    """0 when every computed verdict is the recorded one (every change None); else 1, naming the claims that
    differ on stderr."""
    changed = [line for line in changes if line]
    for line in changed:
        print(f"pe-verify: verdict changed: {line}", file=sys.stderr)
    return EXIT_CHANGED if changed else EXIT_OK


def _record(item, found) -> records.ClaimRecord:
    """Everything `list` and `show` print about one claim (what the cache keeps)."""
    from pe_verify.reporting.markdown import short_statement
    from pe_verify.reporting.summaries import argument_label

    verdict, argument = found.verdict, argument_label(found)
    row = records.ClaimRow(
        id=item.id,
        role=item.role,
        document=item.source.document,
        statement=item.statement,
        verdict=found.verdict,
        sources_point=found.sources_point,
        argument_verdict=found.argument_verdict,
    )
    return records.ClaimRecord(
        row=row,
        line=f"{item.id:<24} {verdict:<38} {argument:<31} {short_statement(item.statement, 72)}",
        show=_show_record(item, found),
        text="\n".join(_show_lines(item, found)),
        changed=_change(item, found),
    )


def _change(item, found) -> str | None:
    """How a claim's computed verdicts differ from the recorded ones, or None."""
    if (found.verdict, found.argument_verdict) == (item.expected, item.expected_argument):
        return None
    return (
        f"{item.id}: computed {found.verdict} / {found.argument_verdict}, "
        f"recorded {item.expected} / {item.expected_argument}"
    )


def _records(claim_id: str | None, fresh: bool, quiet: bool) -> list[records.ClaimRecord]:
    """The records of every claim (`claim_id` None) or of one, from the cache where it has them; the rest is
    computed (with progress on a terminal) and stored, unless `fresh`, which neither reads nor writes it.
    Whenever the catalog is read, a cache whose list of ids is not the catalog's counts as corrupt, and none
    of it is used."""
    from pe_verify import cache

    current = None if fresh else cache.key()
    stored = None if current is None else cache.load(current)
    ids, claims = (None, {}) if stored is None else (stored.ids, dict(stored.claims))
    wanted = None if ids is None else _wanted(claim_id, ids, strict=False)
    if wanted is None or any(name not in claims for name in wanted):
        from pe_verify.claims.catalog import all_claims

        known = [item.id for item in all_claims()]
        if ids != known:
            ids, claims = known, {}
        wanted = _wanted(claim_id, ids)
    missing = [name for name in wanted if name not in claims]
    if missing:
        from pe_verify.claims.catalog import assessment, get

        with progress_bar(len(missing), "assessing claims", quiet) as bar:
            for name in missing:
                bar.set_postfix_str(name)
                claims[name] = _record(get(name), assessment(name))
                bar.update()
        if current is not None:
            cache.store(records.StoredResults(current, ids, claims))
    return [claims[name] for name in wanted]


def _wanted(claim_id: str | None, ids: list[str], strict: bool = True) -> list[str] | None:
    """Every id, or the one `claim_id` names; when none does, a usage error naming the closest ids (None
    unless `strict`)."""
    if claim_id is None:
        return ids
    from pe_verify.claims.catalog import UnknownClaim, resolve

    try:
        return [resolve(claim_id, ids)]
    except UnknownClaim as exc:
        if not strict:
            return None
        raise UsageError(str(exc)) from None


#: The header of `list`'s table, in the columns of each claim's line (`_record`).
LIST_HEADER = f"{'id':<24} {'verdict':<38} {'argument':<31} claim"


def run_list(args: argparse.Namespace) -> int:
    """Every claim with its computed verdicts, or those of one document (its file name, or a part of it)
    and of one verdict (its words, or their start); on a terminal, each line cut to its width."""
    document, verdict = args.document, args.verdict
    every = _records(None, args.fresh, args.quiet)
    chosen = [
        record
        for record in every
        if document in record.row.document and record.row.verdict.startswith(verdict)
    ]
    if not chosen:
        wanted = [f"of document {document!r}" * bool(document), f"with verdict {verdict!r}" * bool(verdict)]
        raise UsageError(" ".join(["no claim", *filter(None, wanted)]))
    if args.json:
        _print_document(args, [record.row for record in chosen])
    else:
        width = terminal_width()
        for line in (LIST_HEADER, *(record.line for record in chosen)):
            print(line if not width or len(line) <= width else line[: width - 1] + "…")
    return _verdict_status(record.changed for record in every)


def run_show(args: argparse.Namespace) -> int:
    """Everything about one claim; on a terminal each line is wrapped to its width (`terminal.fitted`)."""
    [record] = _records(args.id, args.fresh, args.quiet)
    if args.json:
        _print_document(args, record.show)
    else:
        print("\n".join(fitted(line) for line in record.text.split("\n")))
    return _verdict_status([record.changed])


def _show_record(item, found) -> records.ClaimDetail:
    from pe_verify.claims.catalog import weak_dependencies

    return records.ClaimDetail(
        id=item.id,
        role=item.role,
        document=item.source.document,
        section=item.source.section,
        statement=item.statement,
        formal=item.formal,
        verdict=found.verdict,
        sources_point=found.sources_point,
        recorded_verdict=item.expected,
        argument_verdict=found.argument_verdict,
        recorded_argument_verdict=item.expected_argument,
        argument_issue=found.argument_issue,
        explanation=found.explanation,
        evidence=[_evidence_record(e) for e in found.evidence],
        argument_evidence=[_evidence_record(e) for e in found.argument_evidence],
        depends_on=list(item.depends_on),
        weak_dependencies=[
            records.WeakDependency(name, verdict) for name, verdict in weak_dependencies(item)
        ],
    )


def _show_lines(item, found) -> list[str]:
    """What `show` prints of a claim, its mathematics as Unicode text (`unicode_math`; `--json` keeps the
    LaTeX)."""
    from pe_verify.claims.catalog import weak_dependencies
    from pe_verify.claims.evidence import derivation, verification
    from pe_verify.proofs import render_markdown
    from pe_verify.reporting.unicode_math import unicode_markdown, unicode_math

    lines = [
        f"{item.id} — {item.source.document}, section “{item.source.section}”",
        f"claim: {item.statement}",
        f"formal: {unicode_math(item.formal)}",
        f"verdict: {found.verdict} (recorded: {item.expected})",
    ]
    if found.argument_verdict is not None:
        lines.append(f"argument: {found.argument_verdict} (recorded: {item.expected_argument})")
        if found.argument_issue:
            lines.append(f"argument issue: {found.argument_issue}")
    lines.append(f"why: {found.explanation}")
    for title, evidence in (("evidence", found.evidence), ("argument evidence", found.argument_evidence)):
        for e in evidence:
            outcome = "holds" if e.holds else "does not hold"
            lines.append(f"{title} [{e.kind}; {e.bearing}; {outcome}]: {e.summary}")
            lines += [f"    {label}: {value}" for label, value in e.detail]
    if item.depends_on:
        lines.append(f"depends on: {', '.join(item.depends_on)}")
    lines += [f"warning: depends on {name}, which is {verdict}" for name, verdict in weak_dependencies(item)]
    for e in (*found.evidence, *found.argument_evidence):
        for label, value in e.detail:
            if label == "derivation":
                lines += ["", unicode_markdown(render_markdown(derivation(value), verification(value)))]
    return lines


def _evidence_record(e) -> records.EvidenceRecord:
    return records.EvidenceRecord(
        kind=e.kind,
        summary=e.summary,
        holds=e.holds,
        bearing=e.bearing,
        instances=e.instances,
        detail=dict(e.detail),
        measured={label: _plain_number(value) for label, value in e.measured},
    )


def _plain_number(value: object) -> object:
    """A measured value as JSON can hold it: numpy scalars unwrapped, lists kept, non-finite floats and
    anything else as text."""
    if isinstance(value, (list, tuple)):
        return [_plain_number(item) for item in value]
    value = value.item() if hasattr(value, "item") else value
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value if isinstance(value, (int, float, str, bool, type(None))) else str(value)


def run_report(out: str, readme: str | None, quiet: bool = False, redraw: bool = False) -> int:
    """Write the reports (and, when asked, the README's headline block) in one transaction; exit 1 when a
    verdict changed. Everything that can be refused is refused before the claims are assessed; the claims
    are always assessed anew (the cache of `list` and `show` is not used). Figures that another matplotlib
    version drew with the same content are kept, and said so on stderr, unless `redraw`."""
    import matplotlib

    from pe_verify.claims.catalog import all_claims, assessment
    from pe_verify.reporting import headlines, publish, report

    if not out.strip():
        raise UsageError("--out is empty: name the folder the report goes in (default: reports)")
    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"--out {out} exists and is not a folder")
    text = None if readme is None else _readme_text(Path(readme), folder)
    extras = [] if readme is None else [Path(readme)]
    try:
        report.check_output(folder, extras=extras)
        with progress_bar(len(all_claims()) + 1, "writing the report", quiet) as bar:

            def done(step: str) -> None:
                bar.set_postfix_str(step)
                bar.update()

            files = report.render_reports(progress=done, keep=None if redraw else folder)
        refreshed = {path: headlines.with_headlines(text).encode("utf-8") for path in extras}
        written = publish.publish(folder, files, report.is_ours, refreshed)
    except publish.Refused as exc:
        raise UsageError(str(exc)) from None
    print(f"wrote {len(written)} files to {folder}")
    drawn_with = report.recorded_matplotlib_version(files[report.DASHBOARD].decode("utf-8"))
    if drawn_with != matplotlib.__version__:
        print(
            f"pe-verify: kept the figures in {folder / report.FIGURES}: matplotlib {drawn_with} drew the "
            f"same figures (this is {matplotlib.__version__}); --redraw-figures draws them anew",
            file=sys.stderr,
        )
    if readme is not None:
        print(f"refreshed the headline findings in {readme}")
    return _verdict_status(_change(item, assessment(item.id)) for item in all_claims())


def _readme_text(readme: Path, folder: Path) -> str:
    """The README's text, refused when it is no file, not UTF-8, lacks the headline block or lies in --out."""
    from pe_verify.reporting.headlines import require_block

    if not readme.is_file():
        raise UsageError(f"--readme {readme} is not a file")
    if readme.resolve().is_relative_to(folder.resolve()):
        raise UsageError(
            f"--readme {readme} lies inside --out {folder}, which the report replaces as a whole"
        )
    try:
        text = readme.read_text(encoding="utf-8")
        require_block(text)
    except UnicodeDecodeError:
        raise UsageError(f"--readme {readme} is not UTF-8 text") from None
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return text


def run_collisions(args: argparse.Namespace) -> int:
    """Answer every collision question for the user's settings; bad settings, and settings beyond the
    memory and time limits, are usage errors."""
    from pe_verify.collisions import CollisionsRecord, analyse, parse_base
    from pe_verify.properties.analyses.collisions import ANSWERS

    try:
        base = parse_base(args.base)
        with progress_bar(len(ANSWERS), "answering", args.quiet) as bar:

            def done(key: str) -> None:
                bar.set_postfix_str(key)
                bar.update()

            answers = analyse(
                args.d,
                base,
                args.max_pos,
                args.dtype,
                args.scan_values,
                max_bytes=args.max_memory * GIB,
                max_seconds=args.max_minutes * 60,
                on_answer=done,
            )
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    shown_base = base.numerator if base.denominator == 1 else str(base)
    floating = float(base)
    if args.json:
        _print_document(args, CollisionsRecord(shown_base, floating, dict(answers)))
        return EXIT_OK
    rounded = (
        "" if Fraction(floating) == base else f" (float computations use its nearest float64, {floating!r})"
    )
    print(
        f"sinusoidal PE, d = {args.d}, base = {shown_base}{rounded}, positions 0 … {args.max_pos - 1}, "
        f"dtype {args.dtype}"
    )
    for key, answer in answers.items():
        print(f"- {key} [{answer.evidence}]: {answer.summary}")
    return EXIT_OK


def _separation_base(text: str) -> str:
    """The base as the exact decimal text the encoding reads (a ratio such as 3/2 is written out)."""
    from pe_verify.properties.numerics.validation import exact_decimal

    written = exact_decimal(Base().value(text))
    if written is None:
        raise UsageError(f"base must have a finite decimal expansion, got {text.strip()}")
    return written


def run_separation(args: argparse.Namespace) -> int:
    """The certified least ‖PE(p + k) − PE(p)‖ over the user's range of offsets, in one search or in chunks
    (local processes, a Dask cluster) merged once their certificates check; bad settings and settings beyond
    the memory or time limit are usage errors, and so is a Dask cluster that cannot take the chunks (its
    address, its workers' self-check: `ClusterError`), named by its address. Chunks whose workers are lost
    past retrying end the run with one line and status 3 (`WorkerLost`, an OSError); Dask's own log shows
    only with --debug. A range of one offset has no other offset to bound."""
    from pe_verify.properties.analyses.separation import (
        certified_separation,
        separation_memory,
        separation_seconds,
    )
    from pe_verify.properties.analyses.separation_chunks import (
        ClusterError,
        chunked_memory,
        chunked_seconds,
        chunked_separation,
        screen_numerics,
        split,
    )
    from pe_verify.properties.encodings.sinusoidal import Sinusoidal

    base = _separation_base(args.base)
    if not args.from_offset < args.max_offset:
        raise UsageError(
            f"offsets must satisfy from-offset < max-offset, got from-offset {args.from_offset} and "
            f"max-offset {args.max_offset}"
        )
    cluster = args.scheduler is not None
    if cluster and args.workers != 1:
        raise UsageError("--workers and --scheduler cannot be combined (the cluster's workers do the work)")
    default_chunks = 16 if cluster else 1 if args.workers == 1 else 4 * args.workers
    chunks = split(args.from_offset, args.max_offset, args.chunks or default_chunks)
    local = 1 if cluster else args.workers
    needed = (
        chunked_memory(args.d, chunks, local)
        if len(chunks) > 1
        else separation_memory(args.d, args.max_offset)
    )
    if needed > args.max_memory * GIB:
        raise UsageError(
            f"the search needs about {needed / GIB:.3g} GiB at d = {args.d} ({local} worker(s)) and the "
            f"limit is {args.max_memory:g} GiB (raise --max-memory)"
        )
    rate, first, end = float(Fraction(base)), args.from_offset, args.max_offset
    if cluster:  # the chunks run on the cluster's time; the check of their certificates here
        seconds, what = separation_seconds(args.d, rate, end, first, check=True), "the certificates' check"
    elif len(chunks) > 1:
        seconds, what = chunked_seconds(args.d, rate, chunks, local), "the search and its certificates' check"
    else:
        seconds, what = separation_seconds(args.d, rate, end, first), "the search"
    if seconds > args.max_minutes * 60:
        raise UsageError(
            f"{what} would take about {seconds / 60:.3g} minutes at d = {args.d} over "
            f"{args.max_offset - args.from_offset} offsets on {local} worker(s) (a rough estimate) and the "
            f"limit is {args.max_minutes:g} minutes (lower --max-offset, add workers or raise --max-minutes)"
        )
    encoding, total = Sinusoidal(args.d, base), args.max_offset - args.from_offset
    runs = ()
    try:
        numerics = screen_numerics(args.backend)
    except ImportError as exc:
        raise UsageError("--backend torch needs torch: pip install 'pe-verify[torch]'") from exc
    with progress_bar(total, "offsets decided", args.quiet) as bar:
        if len(chunks) == 1:
            found = certified_separation(
                encoding, args.max_offset, args.from_offset, on_progress=bar.update, numerics=numerics
            )
        else:
            try:
                merged = chunked_separation(
                    encoding,
                    args.max_offset,
                    args.from_offset,
                    chunks=len(chunks),
                    workers=local,
                    scheduler=args.scheduler,
                    backend=args.backend,
                    on_chunk=lambda run: bar.update(run.chunk.size),
                    dask_log=args.debug,
                )
            except ImportError as exc:
                raise UsageError("--scheduler needs Dask: pip install 'pe-verify[dask]'") from exc
            except ClusterError as exc:
                raise UsageError(f"the Dask cluster at {args.scheduler}: {exc}") from exc
            found, runs = merged.separation, merged.runs
    _print_separation(args, base, found, runs)
    return EXIT_OK


def _print_separation(args: argparse.Namespace, base: str, found, runs) -> None:
    from pe_verify.properties.analyses.separation import decimal_floor

    digits = 50
    others = found.next_lower_bound
    report = records.SeparationRecord(
        base=base,
        minimum_distance=found.minimum.str(digits, radius=False),
        argmin_offsets=list(found.argmin_offsets),
        lower_bound=decimal_floor(found.lower_bound, digits),
        next_lower_bound=None if others is None else decimal_floor(others, 12),
        certified=found.certified,
        reason=found.reason,
        decided=records.Decided(found.by_bounds, found.by_screen, found.by_points, found.candidates),
        phase_seconds={key: round(value, 3) for key, value in found.seconds.items()},
        seconds=round(sum(found.seconds.values()), 3),
        chunks=[
            records.ChunkRecord(
                from_offset=run.chunk.from_offset,
                max_offset=run.chunk.max_offset,
                argmin_offsets=list(run.separation.argmin_offsets),
                seeded=run.separation.seed is not None,
                seconds=round(run.seconds, 3),
            )
            for run in runs
        ],
    )
    if args.json:
        _print_document(args, report)
        return
    offsets = ", ".join(str(k) for k in found.argmin_offsets)
    state = "certified" if found.certified else f"NOT certified: {found.reason}"
    print(
        f"sinusoidal PE, d = {args.d}, base = {base}: min over {args.from_offset} ≤ k < {args.max_offset} of "
        f"‖PE(p + k) − PE(p)‖ (every p)"
    )
    print(f"- minimum {report.minimum_distance} at k = {offsets} ({state})")
    print(f"- every offset of the range: distance ≥ {report.lower_bound}")
    if others is None:
        print("- every other offset: none in the range")
    else:
        print(f"- every other offset: distance ≥ {report.next_lower_bound}")
    decided, seconds = report.decided, report.phase_seconds
    print(
        f"- decided by interval bounds: {decided.by_interval_bounds} offsets ({seconds['bounds']} s); by "
        f"the float32 block screen: {decided.by_block_screen} ({seconds['screen']} s); one by one: "
        f"{decided.by_single_offsets}, and {decided.in_ball_arithmetic} in ball arithmetic at "
        f"{digits} digits ({seconds['points']} s)"
    )
    if runs:
        times = sorted(run.seconds for run in runs)
        print(
            f"- {len(runs)} chunks, each certified apart and merged once their certificates checked; seconds "
            f"per chunk: {times[0]:.3g} to {times[-1]:.3g} (median {times[len(times) // 2]:.3g}), "
            f"{sum(times):.3g} in all"
        )


def run_model(args: argparse.Namespace) -> int:
    """The setup, answers, findings and cross-check of one model's config; a config with an unusable key
    gets every answer that does not need it, then exit status 2 naming the key."""
    from pe_verify import models

    if args.json and args.markdown:
        raise UsageError("--json and --markdown cannot be combined")
    if args.list:
        if args.path is not None:
            raise UsageError(
                f"--list lists the bundled models and takes no SOURCE, got {inputs.shown(args.path)}"
            )
        from pe_verify.properties.encodings.model_config import bundled_models

        for name, bundled in bundled_models().items():
            print(f"{name:<26} {bundled.model} — {bundled.source}")
        return EXIT_OK
    if args.list_runtimes:
        if args.path is not None:
            raise UsageError(
                "--list-runtimes lists the runtime profiles and takes no SOURCE, got "
                f"{inputs.shown(args.path)}"
            )
        from pe_verify.properties.encodings.runtimes import PROFILES

        for profile in PROFILES:
            tested = f"; tested against {profile.tested}" if profile.tested else "; from source only"
            read = f"read at {profile.read_at}{tested}"
            print(f"{profile.name:<24} {profile.runtime} {profile.versions} ({read})")
        return EXIT_OK
    if args.path is None:
        raise UsageError(
            "name a config.json, a folder holding one, or a bundled model (pe-verify model --list)"
        )
    try:
        with progress_bar(0, "answering", args.quiet) as bar:

            def done(key: str) -> None:
                bar.set_postfix_str(key)
                bar.update()

            def total(count: int) -> None:
                bar.reset(total=count)

            record = models.analyse_model(
                args.path,
                args.context,
                cross_check=not args.no_cross_check,
                on_answer=done,
                on_total=total,
                max_seconds=args.max_minutes * 60,
                max_bytes=args.max_memory * GIB,
                runtimes=None if args.runtimes is None else [n for n in args.runtimes.split(",") if n],
                gguf=args.gguf,
            )
    except models.ModelInputError as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        _print_document(args, record)
    else:
        from pe_verify.reporting.models import model_markdown, model_text

        print(model_markdown(record) if args.markdown else model_text(record), end="")
    problems = record["problems"]
    if problems:
        first = problems[0]
        more = f" (and {len(problems) - 1} more problems)" if len(problems) > 1 else ""
        raise UsageError(f"config key {first['key']}: {first['message']}{more}")
    errors = [f for f in models.findings(record) if f["severity"] == "error"]
    if errors:
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        print(
            f"pe-verify: finding [error] {errors[0]['label']}: {errors[0]['message']}{more}", file=sys.stderr
        )
        return EXIT_CHANGED
    return EXIT_OK


#: The least time one Hypothesis example of a property takes: a correct numpy target took 0.5 ms an example
#: (sinusoidal) and 0.85 ms (rope) on a 2-core machine, beyond the battery's fixed cost.
SECONDS_PER_EXAMPLE = 1e-4


def run_check(args: argparse.Namespace) -> int:
    """Run a family's battery on the user's callable, in a child process (`isolated`): exit 0 when every
    property holds, 1 when one fails; a Hypothesis budget beyond --max-minutes at SECONDS_PER_EXAMPLE is a
    usage error."""
    from pe_verify import isolated

    if args.json and args.markdown:
        raise UsageError("--json and --markdown cannot be combined")
    saved = None
    if args.rerun is not None:
        saved, args = _saved_check(args)
    missing = [name for name, value in (("TARGET", args.target), ("--family", args.family)) if value is None]
    if missing:
        raise UsageError(f"check needs {' and '.join(missing)} (or --rerun FILE, a saved check --json)")
    isolated.start()  # its fork server imports the battery while this process does
    from pe_verify import check
    from pe_verify.properties.battery import Settings, expected, properties_of

    if args.expect is not None:
        try:
            check.require_expectable(args.family, args.expect)
        except check.TargetError as exc:
            raise UsageError(str(exc)) from None
    base = float(Base(float64=True).value(args.base))
    limits = isolated.Limits(args.timeout, args.target_memory)
    if (args.convention or args.dtype) and check.family_record(args.family).detect is None:
        option = "--convention" if args.convention else "--dtype"
        raise UsageError(f"{option} applies to the rope family; {args.family} has one contract")
    settings = Settings(
        ds=tuple(args.d or ()),
        base=base,
        max_pos=args.max_pos,
        seed=args.seed,
        examples=args.examples,
        convention=args.convention or "",
        dtype=args.dtype or "",
    )
    if args.heads:
        settings = dataclasses.replace(settings, heads=tuple(args.heads))
    steps = len(properties_of(args.family)) + 1
    minutes = (steps - 1) * args.examples * SECONDS_PER_EXAMPLE / 60
    if minutes > args.max_minutes:
        raise UsageError(
            f"--examples {args.examples} asks Hypothesis for up to {args.examples} examples for each of "
            f"{steps - 1} properties: at {SECONDS_PER_EXAMPLE * 1e3:g} ms an example (the least one takes) "
            f"that is {minutes:.3g} minutes, and the limit is {args.max_minutes:g} minutes (lower --examples "
            "or raise --max-minutes)"
        )
    try:
        with progress_bar(steps, f"checking {args.family}", args.quiet) as bar:

            def done(step: str) -> None:
                bar.set_postfix_str(step)
                bar.update()

            report = check.check(args.family, args.target, settings, args.backend, done, limits)
    except check.TargetError as exc:
        raise UsageError(str(exc)) from None
    matched = None
    if args.expect:
        matched = expected(report, args.expect)
        report = dataclasses.replace(report, properties=(*report.properties, matched))
    result = report.as_json() | {
        "expected": None if matched is None else {"variant": args.expect, "matched": matched.passed}
    }
    if args.json:
        _print_document(args, result, check.echoed(args, report.settings))
    elif args.markdown:
        print(check.markdown(report), end="")
    else:
        print(check.text(report))
    status = EXIT_OK if report.passed else EXIT_CHANGED
    if saved is None:
        return status
    before, after = _check_verdict(saved.report), _check_verdict(records.parsed(records.CheckReport, result))
    if before == after:
        if not args.quiet:
            print(f"pe-verify: rerun of {args.rerun}: the saved verdict again ({after})", file=sys.stderr)
        return status
    return max(status, _verdict_status([f"{args.rerun}: saved {before}, this run {after}"]))


def _check_verdict(report: records.CheckReport) -> str:
    """A check's verdict in words: whether it passes, the properties that fail and the findings that are
    errors."""
    from pe_verify.properties.battery import ERRORS

    failed = [o.name for o in report.properties if not o.passed]
    failed += [f"finding {f.label}" for f in report.findings if f.label in ERRORS]
    return ("passes" if report.passed else "fails") + (f": {', '.join(failed)}" if failed else "")


def _saved_check(args: argparse.Namespace) -> tuple[records.CheckDocument, argparse.Namespace]:
    """The saved `check --json` document that --rerun names, and the arguments its settings stand for (with
    this command line's --json, --markdown, --quiet and --debug, and --rerun); a usage error for a file that
    is no such document (of this `documents.SCHEMA_VERSION`), and for a setting given beside --rerun."""
    from pe_verify import documents

    parser = args.commands["check"]
    given = [
        action.option_strings[-1] if action.option_strings else action.dest.upper()
        for action in parser._actions
        if action.dest not in _PRESENTATION and getattr(args, action.dest) != parser.get_default(action.dest)
    ]
    where = f"--rerun {inputs.shown(args.rerun)}"
    if given:
        raise UsageError(f"{where} takes every setting from the saved document; drop {given[0]}")
    path = Path(args.rerun)
    if not path.is_file():
        raise UsageError(f"{where}: {'not a regular file' if os.path.exists(path) else 'no such file'}")
    try:
        size = path.stat().st_size
        if size > MAX_SAVED_BYTES:
            limit = f"a saved check document holds at most {MAX_SAVED_BYTES}"
            raise UsageError(f"{where} has {size} bytes; {limit}")
        found = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise UsageError(f"{where} is not UTF-8 text") from None
    except (ValueError, RecursionError):
        raise UsageError(f"{where} is not JSON") from None
    except OSError as exc:
        raise UsageError(f"{where} cannot be read: {exc.strerror or exc}") from None
    command = found.get("command") if isinstance(found, dict) else None
    if command != "check":
        whose = f" but a {inputs.shown(command)} one" if isinstance(command, str) else ""
        raise UsageError(f"{where} is not a saved check --json document{whose}")
    if found.get("schema_version") != documents.SCHEMA_VERSION:
        raise UsageError(
            f"{where} has schema_version {inputs.shown(str(found.get('schema_version')))}; this pe-verify "
            f"reruns version {documents.SCHEMA_VERSION}"
        )
    try:
        saved = records.parsed(records.CheckDocument, found, "the document")
    except records.RecordError as exc:
        raise UsageError(f"{where} is not a saved check --json document: {exc}") from None
    try:
        again = _parser().parse_args(["check", *_argv(parser, saved.settings)])
    except UsageError as exc:
        raise UsageError(f"{where}: its settings: {exc}") from None
    for name in ("json", "markdown", "quiet", "debug", "rerun"):
        setattr(again, name, getattr(args, name))
    return saved, again


def _argv(parser: argparse.ArgumentParser, settings: dict[str, object]) -> list[str]:
    """The arguments of `parser`'s command that `settings` (as `--json` echoes them, `_settings`) stand for:
    a positional argument as its value, an option under its name, repeated for a list, given alone for
    true; left out for null and false. A name the command does not take is a usage error."""
    actions = {
        action.option_strings[-1].removeprefix("--") if action.option_strings else action.dest: action
        for action in parser._actions
        if action.dest not in _PRESENTATION
    }
    argv: list[str] = []
    for name, value in settings.items():
        if name not in actions:
            raise UsageError(f"{parser.prog} has no option --{name}")
        action = actions[name]
        if value is None or value is False:
            continue
        if not action.option_strings:
            argv.insert(0, str(value))
        elif value is True:
            argv.append(action.option_strings[-1])
        else:
            for item in value if isinstance(value, list) else [value]:
                argv += [action.option_strings[-1], str(item)]
    return argv


def run_atlas(args: argparse.Namespace) -> int:
    """Run the atlas (`pe_verify.atlas`) and print its record, or write it to --record: exit 0 once done,
    whatever the libraries' findings; 2 when a library is missing or not at its pinned version, or
    --record names something other than an atlas record (refused before the run and again before writing)."""
    from pe_verify import atlas, check

    path = None if args.record is None else Path(args.record)

    def require_replaceable() -> None:
        if path is not None and not atlas.replaceable(path):
            raise UsageError(
                f"--record {inputs.shown(args.record)} is not an atlas record, which is all this command "
                "replaces (move it away or name another path)"
            )

    require_replaceable()
    if path is not None and not path.parent.is_dir():
        raise UsageError(f"--record {inputs.shown(args.record)}: no folder {inputs.shown(str(path.parent))}")
    try:
        with progress_bar(len(atlas.IMPLEMENTATIONS), "checking libraries", args.quiet) as bar:

            def done(target: str) -> None:
                bar.set_postfix_str(target)
                bar.update()

            record = atlas.run_atlas(check.load_target, done)
    except atlas.AtlasError as exc:
        raise UsageError(str(exc)) from None
    if path is None:
        print(atlas.record_text(record, ascii_only=json_ascii()), end="")
        return EXIT_OK
    require_replaceable()
    atlas.write_record(path, atlas.record_text(record))
    count = len(record["implementations"])
    print(f"wrote {path}: {count} implementations of {len(record['libraries'])} libraries")
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; the exit status is one of those `EXIT_STATUSES` describes. What the command printed
    is flushed before the status is chosen: output that could not all be written (a closed stdout, a full
    disk) makes it 3, with one line saying so, or 141 when the reader of a pipe left, whatever the command
    decided (but Ctrl-C). A message that stderr cannot take changes nothing (`terminal.prepare_streams`)."""
    prepare_streams()
    status, message = _outcome(argv)
    error = flush_stdout()
    if error is not None and status != EXIT_INTERRUPTED:
        if isinstance(error, BrokenPipeError):
            status, message = EXIT_BROKEN_PIPE, None
        else:
            status, message = EXIT_FAILURE, f"cannot write to stdout: {error.strerror or error}"
    if message is not None:
        _fail(message)
    return status


def _outcome(argv: Sequence[str] | None) -> tuple[int, str | None]:
    """Parse `argv` and run its command: the exit status and the one-line message for stderr (None for
    none). `--help` and `--version` are status 0 once printed; a closed pipe (`pe-verify list | head`) stops
    quietly with 141."""
    debug = False
    try:
        try:
            args = _parser().parse_args(argv)
        except SystemExit as exc:  # argparse printed the help or the version (status 0)
            code = exc.code
            return (EXIT_OK if code is None else code if isinstance(code, int) else EXIT_USAGE), None
        debug = args.debug
        return _run(args), None
    except UsageError as exc:
        return EXIT_USAGE, str(exc)
    except BrokenPipeError:
        discard_stdout()
        return EXIT_BROKEN_PIPE, None
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED, "interrupted"
    except Exception as exc:
        if isinstance(exc, OSError) and exc.errno == errno.ENAMETOOLONG:  # only a path given can be that long
            return EXIT_USAGE, _describe(exc)
        if debug:
            traceback.print_exc()
            return EXIT_FAILURE, None
        return EXIT_FAILURE, f"{_describe(exc)} (--debug shows the traceback)"


def console() -> int:
    """The `pe-verify` program: `main` with the files Hypothesis keeps (its constants and examples) in the
    results cache's folder instead of a `.hypothesis` folder in the current one, unless
    HYPOTHESIS_STORAGE_DIRECTORY chooses a folder."""
    from pe_verify.cache import directory

    os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY", str(directory() / "hypothesis"))
    return main()


def _describe(exc: Exception) -> str:
    """A failure that is not the user's mistake, in words: the system's reason for I/O, else the error."""
    if isinstance(exc, OSError) and exc.strerror:
        names = " -> ".join(str(name) for name in (exc.filename, exc.filename2) if name is not None)
        return f"{exc.strerror}: {names}" if names else exc.strerror
    if isinstance(exc, MemoryError):
        return "out of memory"
    return f"internal error: {type(exc).__name__}: {exc}"


def _fail(message: str) -> None:
    """Print `message` as one line on stderr."""
    line = " ".join(_cut_long_words(message).split())
    print(f"pe-verify: error: {line}", file=sys.stderr)


def _run(args: argparse.Namespace) -> int:
    if args.run is None:
        *others, last = args.commands
        raise UsageError(f"a command is required: {', '.join(others)} or {last} (see pe-verify --help)")
    return args.run(args)


if __name__ == "__main__":
    sys.exit(console())
