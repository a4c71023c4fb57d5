"""Figures of the proof reports, drawn from what the suite computes: the sinusoidal encoding, its wavelengths,
the distance between encodings against their offset, the nearest cross-dimension values against the number of
positions, where finite precision makes positions and rows collide, and RoFormer's long-term decay curve.

Drawing uses matplotlib's Agg canvas directly (no pyplot, no window) under matplotlib's default style, at a
fixed size and dpi, and the PNG carries no version or time stamp: the bytes depend only on the data and on the
matplotlib/freetype version. Each caption states what was computed, at which precision and over which range.
Each PNG carries a content digest (`Plot.content`: this module's source, the file name, the title and the
caption), so a figure drawn by another matplotlib version can be recognised as the same figure.

Captions print numbers as `claims.numbers` allows: a float64 measurement only as the digits its a-priori error
bound certifies, everything else exact or at a stated precision. The float32 and narrower tables behind the
last figure are computed with correctly rounded operations, so its curves are properties of the dtypes.
"""

from __future__ import annotations

import functools
import hashlib
import io
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
from matplotlib import style
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from pe_verify.claims.catalog import ILLUSTRATES
from pe_verify.claims.numbers import UNCERTIFIED, ball_text, certain_signs, certified
from pe_verify.properties.analyses import finite_precision as fp
from pe_verify.properties.analyses import near_collision as nc
from pe_verify.properties.analyses.collisions import exact_coincidence_mask
from pe_verify.properties.checks.long_term_decay import (
    BALL_BITS,
    ball_midpoints,
    decay_profile,
    relative_upper_bound_arb,
)
from pe_verify.properties.encodings.sinusoidal import Sinusoidal, frequencies, pair_index, sinusoidal_encoding
from pe_verify.properties.numerics.checking import EPS64, angle_tolerance
from pe_verify.properties.numerics.dtypes import DTYPES

BASE = 10000.0
DPI = 100
SIZE = (9.0, 4.5)  # inches: 900 × 450 pixels

#: Digits of the high-precision values quoted in captions.
DPS = 50

#: Text chunk written into every PNG drawn here; only files carrying it are ever removed as stale.
MARKER = "pe-verify proof report"
#: Text chunk holding a figure's content digest.
CONTENT = "Content"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@dataclass(frozen=True)
class Scales:
    """How much each figure computes: sizes, dimensions and the numbers of positions scanned."""

    heatmap_d: int = 64
    heatmap_positions: int = 128
    wavelength_d: int = 512
    offset_ds: tuple[int, ...] = (6, 512)
    max_offset: int = 100_000
    gap_scans: tuple[tuple[int, tuple[int, ...]], ...] = (
        (6, (10**2, 10**3, 10**4, 10**5, 10**6)),
        (512, (10**2, 10**3, 10**4)),
    )
    dtype_d: int = 512
    dtype_positions: int = 10_000
    decay_d: int = 128
    decay_distances: int = 256


#: What `report.write_reports` draws.
SCALES = Scales()


@dataclass(frozen=True)
class Plot:
    """A figure: file name, title, a markdown caption of what was computed, the claims it illustrates, the
    content digest its PNG carries and how to draw that PNG (drawn once, when first asked for: a page needs
    only the caption, and figures kept from another matplotlib version are never drawn)."""

    name: str
    title: str
    caption: str
    claims: tuple[str, ...]
    content: str
    draw: Callable[[], bytes] = field(repr=False, compare=False)

    @functools.cached_property
    def png(self) -> bytes:
        """The PNG bytes."""
        return self.draw()


def content_digest(name: str, title: str, caption: str, code: bytes = b"") -> str:
    """SHA-256 of this module's source, a figure's file name, title and caption (and the source `code` of the
    module that draws it, when that is another): the same on every machine and at every matplotlib version
    (captions print only certified numbers), new when the figure code or anything the caption states
    changes."""
    digest = hashlib.sha256(Path(__file__).read_bytes() + code)
    for text in (name, title, caption):
        digest.update(b"\0" + text.encode())
    return digest.hexdigest()


def png_bytes(figure: Figure, content: str) -> bytes:
    """The figure as PNG at the fixed dpi, with the marker and content chunks and no software or time stamp
    (byte-identical on redraw)."""
    buffer = io.BytesIO()
    FigureCanvasAgg(figure)
    metadata = {"Software": None, "Source": MARKER, CONTENT: content}
    figure.savefig(buffer, format="png", dpi=DPI, metadata=metadata)
    return buffer.getvalue()


def png_text(png: bytes) -> dict[str, str]:
    """The tEXt chunks of PNG bytes, keyword → text (empty for bytes that are no PNG)."""
    if not png.startswith(PNG_SIGNATURE):
        return {}
    found, at = {}, len(PNG_SIGNATURE)
    while at + 8 <= len(png):
        length, kind = int.from_bytes(png[at : at + 4], "big"), png[at + 4 : at + 8]
        if kind == b"IEND":
            break
        if kind == b"tEXt":
            keyword, _, text = png[at + 8 : at + 8 + length].partition(b"\0")
            found[keyword.decode("latin-1")] = text.decode("latin-1")
        at += 12 + length
    return found


def is_ours(png: bytes) -> bool:
    """Whether PNG bytes carry the marker text chunk written by `png_bytes`."""
    return png_text(png).get("Source") == MARKER


def plot(name: str, title: str, caption: str, build: Callable[[Figure], None], code: bytes = b"") -> Plot:
    """The figure `build` draws on a fresh figure in matplotlib's default style (a user's matplotlibrc changes
    nothing), drawn when its PNG is first asked for; `code` is the source of the module drawing it, when
    that is not this one (`content_digest`)."""
    content = content_digest(name, title, caption, code)

    def draw() -> bytes:
        with style.context("default"):
            figure = Figure(figsize=SIZE, dpi=DPI, layout="constrained")
            build(figure)
            return png_bytes(figure, content)

    return Plot(name, title, caption, ILLUSTRATES[name], content, draw)


def _power_of_ten(n: int) -> str:
    exponent = round(math.log10(n))
    return f"10^{exponent}" if 10**exponent == n else f"{n}"


def count_below(values: np.ndarray, bounds: np.ndarray | float, threshold: float) -> str:
    """How many exact values lie below `threshold`, from `values` each within its `bounds` of the exact one;
    marked `UNCERTIFIED` (with the range) when a value lies too close to the threshold for its bound."""
    surely = int(np.count_nonzero(values + bounds < threshold))
    possibly = int(np.count_nonzero(values - bounds < threshold))
    if surely == possibly:
        return f"{surely}"
    return f"{surely} to {possibly} ({UNCERTIFIED}: values within their error bound of {threshold:g})"


def _mean_text(counts: np.ndarray, spec: str) -> str:
    """The exact mean of integer counts, rounded by `spec` ('.2f'); its float64 value is one rounding off."""
    mean = float(Fraction(int(counts.sum()), counts.size))
    return certified(mean, mean * EPS64, spec)


# ------------------------------------------------------------------------------------------------ encoding


def encoding_heatmap(scales: Scales) -> Plot:
    """PE(p, j) for 0 ≤ p < P and 0 ≤ j < d in float64: fast dims on the left, slow dims on the right."""
    d, n = scales.heatmap_d, scales.heatmap_positions
    table = sinusoidal_encoding(np.arange(n), d, BASE)

    def build(figure: Figure) -> None:
        axes = figure.add_subplot()
        image = axes.imshow(table, cmap="RdBu_r", vmin=-1, vmax=1, aspect="auto", interpolation="nearest")
        axes.set_xlabel("dimension j (even: sin, odd: cos)")
        axes.set_ylabel("position p")
        axes.set_title(f"Sinusoidal encoding PE(p, j), d = {d}, base {BASE:g}")
        figure.colorbar(image, ax=axes, label="value")

    spread = np.ptp(table, axis=0)
    # Each entry is within angle_tolerance of the exact value; max − min adds that twice and one rounding.
    bound = 2 * angle_tolerance(n - 1, base=BASE) + EPS64 * spread
    caption = (
        f"The float64 encoding table for positions 0–{n - 1} and d = {d} (base {BASE:g}). Over these "
        f"positions dim 0 spans {certified(spread[0], bound[0], '.4f')} (max − min) and dim {d - 1} spans "
        f"{certified(spread[-1], bound[-1], '.2e')}; {count_below(spread, bound, 0.1)} of the {d} dims "
        "span less than 0.1."
    )
    return plot("encoding-heatmap.png", "The encoding as a heatmap", caption, build)


def wavelengths(scales: Scales) -> Plot:
    """λ_j = 2π/ω_⌊j/2⌋ per dimension in float64, on a log scale: from 2π up to below 2π·base."""
    d = scales.wavelength_d
    wave = 2 * np.pi / frequencies(d, BASE)[pair_index(d)]

    def build(figure: Figure) -> None:
        axes = figure.add_subplot()
        axes.semilogy(np.arange(d), wave, ".", markersize=3, label=r"$2\pi/\omega_{\lfloor j/2\rfloor}$")
        axes.axhline(2 * np.pi, color="grey", linestyle=":", label=r"$2\pi$")
        axes.axhline(2 * np.pi * BASE, color="grey", linestyle="--", label=rf"$2\pi\cdot{BASE:g}$")
        axes.set_xlabel("dimension j")
        axes.set_ylabel("wavelength (positions)")
        axes.set_title(f"Wavelength per dimension, d = {d}, base {BASE:g}")
        axes.legend(loc="center right")

    omegas, index = nc.frequencies_mp(d, BASE), pair_index(d)
    with mpmath.workdps(DPS):
        exact = {j: 2 * mpmath.pi / omegas[index[j]] for j in (0, 1, d - 2, d - 1)}
        longest = 1 / (omegas[index[d - 1]] * BASE)
    shown = ", ".join(f"dim {j}: {mpmath.nstr(value, 6)}" for j, value in exact.items())
    caption = (
        f"Wavelength 2π/ω of every dimension at d = {d}, plotted in float64; the exact values, to 6 digits: "
        f"{shown}. Dims 2i and 2i+1 share one frequency; the longest wavelength is "
        f"{mpmath.nstr(longest, 6)} × 2π·{BASE:g}."
    )
    return plot("wavelengths.png", "Wavelength per dimension", caption, build)


# ------------------------------------------------------------------------------------- distance by offset


@functools.cache
def _offsets(d: int, n: int) -> tuple[np.ndarray, nc.NearRepeats]:
    """S(k) = ‖PE(p+k) − PE(p)‖² for 0 ≤ k < n (float64), and the closest offset re-ranked at 50 digits."""
    squared = nc.offset_squared_distances(n, nc.frequencies_mp(d, BASE))
    return squared, nc.nearest_vector_offsets(Sinusoidal(d, BASE), n, count=1)


def first_decrease(squared: np.ndarray, bound: float, exact: Callable[[int], object]) -> int | None:
    """The first k with S(k+1) < S(k) for the exact S, from float64 values `squared` each within `bound`.

    A step whose float64 change exceeds 2·bound (and the subtraction's rounding) goes the way of its sign;
    every other step is decided by `exact(k)`, S(k) at high precision.
    """
    steps = np.diff(squared)
    margin = 2 * bound * (1 + EPS64)
    for k in np.flatnonzero(steps < margin).tolist():
        if steps[k] < -margin or exact(k + 1) < exact(k):
            return k
    return None


def _describe_offsets(d: int, n: int) -> str:
    squared, nearest = _offsets(d, n)
    bound = nc.offset_error_bound(d)
    omegas = nc.frequencies_mp(d, BASE)

    @functools.cache
    def exact(k: int) -> mpmath.mpf:
        with mpmath.workdps(DPS):
            return nc.offset_squared_distance_mp(k, omegas)

    first = first_decrease(squared, bound, exact)
    closest = nearest.repeats[0]
    if first is None:
        drop = "never decreases"
    else:
        with mpmath.workdps(DPS):
            before, after = (float(mpmath.sqrt(exact(k))) for k in (first, first + 1))
        values = f"{before:.6f} → {after:.6f} at {DPS} digits"
        drop = f"first decreases from k = {first} to k = {first + 1} ({values})"
    return (
        f"d = {d} (squared distances within {bound:.1e}): the distance {drop}; the closest offset "
        f"1 ≤ k < {_power_of_ten(n)} is k = {closest.offset} at distance {mpmath.nstr(closest.distance, 12)} "
        f"(re-ranked at {nearest.dps} digits: {nearest.evidence})"
    )


def distance_by_offset(scales: Scales) -> Plot:
    """‖PE(p+k) − PE(p)‖ = (Σ_i 2(1 − cos kω_i))^½ against k, for each d of `scales.offset_ds`."""
    n = scales.max_offset
    k = np.arange(1, n)

    def build(figure: Figure) -> None:
        for column, d in enumerate(scales.offset_ds, start=1):
            axes: Axes = figure.add_subplot(1, len(scales.offset_ds), column)
            axes.semilogx(k, np.sqrt(np.maximum(_offsets(d, n)[0][1:], 0.0)), linewidth=0.4)
            axes.axhline(math.sqrt(2 * d), color="grey", linestyle=":", label=r"$\sqrt{2d}$")
            axes.set_xlabel("offset k")
            axes.set_ylabel(r"$\|PE(p+k) - PE(p)\|$")
            axes.set_title(f"d = {d}")
            axes.legend(loc="upper left")
        figure.suptitle("Distance between encodings against their offset (the same for every p)")

    lines = "; ".join(_describe_offsets(d, n) for d in scales.offset_ds)
    caption = (
        f"‖PE(p+k) − PE(p)‖ = (Σ_i 2(1 − cos kω_i))^½ for 1 ≤ k < {_power_of_ten(n)}, base {BASE:g}, in "
        f"float64 by angle addition (`near_collision.offset_squared_distances`). {lines}."
    )
    return plot("distance-by-offset.png", "Vector distance against offset", caption, build)


# ------------------------------------------------------------------------------- cross-dimension gap by N


@functools.cache
def _exact_coincidences(d: int) -> np.ndarray | None:
    """The dim pairs that take equal values exactly at some positions (left out of the scan), or None."""
    mask = exact_coincidence_mask(d, Fraction(BASE))
    return mask if mask.any() else None


@functools.cache
def _gap_rows(d: int, ns: tuple[int, ...]) -> tuple[nc.GapRow, ...]:
    return tuple(nc.gap_against_n(Sinusoidal(d, BASE), ns, exclude=_exact_coincidences(d)))


def _close_count(row: nc.GapRow) -> str:
    """The exact count of pairs within the row's threshold, marked when some gap equals it to the digits the
    50-digit decision resolves (`near_collision.close_pair_count`: all but GUARD_DIGITS of them)."""
    if not row.close_ties:
        return f"{row.observed_close}"
    digits = DPS - nc.GUARD_DIGITS
    return (
        f"{row.observed_close} ({UNCERTIFIED}: {row.close_ties} gaps equal the threshold to {digits} digits)"
    )


def _gap_row(d: int, row: nc.GapRow) -> str:
    pair = row.nearest.nearest
    return (
        f"| {d} | {_power_of_ten(row.n)} | {mpmath.nstr(pair.gap, 6)} | {row.nearest.evidence} "
        f"| {pair.first} – {pair.second} | {row.predicted:.3e} "
        f"| {_close_count(row)} / {row.expected_close:.1f} |"
    )


def _excluded(d: int) -> str:
    mask = _exact_coincidences(d)
    if mask is None:
        return f"d = {d}: no dim pair coincides exactly"
    return (
        f"d = {d}: the {int(mask.sum()) // 2} dim pairs that coincide exactly at some positions (same kind, "
        "rational frequency ratio) are left out"
    )


def gap_by_n(scales: Scales) -> Plot:
    """The smallest |PE(p1, j1) − PE(p2, j2)| (p1 ≠ p2, j1 ≠ j2) over positions < N against N, with the
    arcsine-equidistribution model's expected minimum."""
    scans = [(d, _gap_rows(d, ns)) for d, ns in scales.gap_scans]

    def build(figure: Figure) -> None:
        axes = figure.add_subplot()
        for d, rows in scans:
            ns = [row.n for row in rows]
            line = axes.loglog(ns, [float(row.nearest.nearest.gap) for row in rows], "o-", label=f"d = {d}")
            axes.loglog(
                ns,
                [row.predicted for row in rows],
                "--",
                color=line[0].get_color(),
                label=f"d = {d}: equidistribution model",
            )
        axes.set_xlabel("number of positions N")
        axes.set_ylabel("nearest cross-dimension gap")
        axes.set_title("Closest values in different dimensions at different positions < N")
        axes.legend()

    header = [
        "| d | N | nearest gap (50 digits) | ranking | (p1, j1) – (p2, j2) | model's expected minimum "
        "| pairs closer than 100 × model: seen / model |",
        "|---|---|---|---|---|---|---|",
    ]
    table = [_gap_row(d, row) for d, rows in scans for row in rows]
    caption = (
        f"Over positions 0 ≤ p < N (base {BASE:g}), the smallest |PE(p1, j1) − PE(p2, j2)| with p1 ≠ p2 and "
        f"j1 ≠ j2: every candidate found by a float64 scan (values within 2^−51) is re-ranked at 50 digits "
        f"(`near_collision.gap_against_n`). The dashed lines are the expected minimum if the values were "
        f"independent arcsine-distributed (a model, not a proof; computed with mpmath). Pairs closer than "
        f"100 times it are counted exactly: those within the float64 error of that threshold are decided at "
        f"{DPS} digits. " + "; ".join(_excluded(d) for d, _ in scans) + ".\n\n" + "\n".join(header + table)
    )
    title = "Cross-dimension near collisions against N"
    return plot("near-collision-gap.png", title, caption, build)


# ------------------------------------------------------------------------------------- finite precision


@dataclass(frozen=True)
class StoredSummary:
    """One stored table, named, and what one pass over it finds (duplicate rows, equal neighbours)."""

    label: str
    encoding: Sinusoidal
    scan: fp.TableScan


def _stored_tables(d: int) -> list[tuple[str, Sinusoidal]]:
    """The common code's float32 table stored in each dtype, and with positions first rounded to it."""
    tables = [("float32", fp.common_code_encoding(d, "float32", BASE))]
    tables += [(dtype, fp.common_code_encoding(d, dtype, BASE)) for dtype in ("float16", "bfloat16")]
    tables += [
        (f"{dtype}, positions in {dtype}", fp.common_code_encoding(d, dtype, BASE, positions_in_dtype=True))
        for dtype in ("float16", "bfloat16")
    ]
    return tables


@functools.cache
def _stored_summaries(d: int, n: int) -> tuple[StoredSummary, ...]:
    return tuple(
        StoredSummary(label, encoding, fp.duplicate_rows_and_neighbours(encoding, n))
        for label, encoding in _stored_tables(d)
    )


def _binned(counts: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Mean of `counts` over consecutive windows of `width` positions, at each window's first position."""
    starts = np.arange(0, len(counts), width)
    return starts, np.add.reduceat(counts, starts) / np.diff(np.append(starts, len(counts)))


def _stored_row(summary: StoredSummary) -> str:
    duplicates, neighbours = summary.scan.duplicates, summary.scan.neighbours
    first = "none" if duplicates.first_duplicate is None else f"{duplicates.first_duplicate}"
    over_half = "never" if neighbours.first_over_half is None else f"p = {neighbours.first_over_half}"
    return (
        f"| {summary.encoding.label} | {duplicates.duplicate_rows} | {first} | "
        f"{_mean_text(summary.scan.counts, '.2f')} | {over_half} |"
    )


def dtype_thresholds(scales: Scales) -> Plot:
    """Per dtype: the first integer positions it cannot tell apart (measured, and 2^(m+1)); and, for tables
    computed in float32 and stored in the dtype, how many dims keep their value from p to p+1."""
    collisions = [fp.position_collision(dtype) for dtype in DTYPES]
    d, n = scales.dtype_d, scales.dtype_positions
    summaries = _stored_summaries(d, n)
    width = max(1, n // 100)

    def build(figure: Figure) -> None:
        left, right = figure.subplots(1, 2, width_ratios=(1, 2))
        names = [found.dtype for found in collisions]
        left.bar(names, [math.log2(found.first_collision) for found in collisions], label="measured")
        left.plot(names, [math.log2(found.formula) for found in collisions], "kx", label=r"$2^{m+1}$")
        left.set_ylabel(r"$\log_2$ of the first p with dtype(p) = dtype(p+1)")
        left.set_title("Integer positions collide")
        left.legend()
        for summary in summaries:
            right.plot(*_binned(summary.scan.counts, width), label=summary.label, linewidth=1)
        right.set_xlabel(f"position p (mean over windows of {width})")
        right.set_ylabel(f"dims j with PE(p, j) = PE(p+1, j), of {d}")
        right.set_title(f"Equal neighbouring values, d = {d}")
        right.legend(loc="center right", fontsize="small")

    positions = "; ".join(
        f"{found.dtype} (m = {found.nmant}): p = {found.first_collision} (2^(m+1) = {found.formula})"
        for found in collisions
    )
    header = [
        f"| table (d = {d}, positions 0–{n - 1}) | rows equal to an earlier row | first such pair "
        "| mean dims equal to the next position's | first p with more than d/2 equal |",
        "|---|---|---|---|---|",
    ]
    caption = (
        f"First integer positions p, p+1 that round to the same value, found by casting: {positions}. "
        "Tables as the common PyTorch code computes them (float32, with correctly rounded exp, sin and cos: "
        "a platform's libm may differ by a few ulp) and then stores them in the dtype, or with the "
        "positions themselves first rounded to the dtype, compared value by value.\n\n"
        + "\n".join(header + [_stored_row(summary) for summary in summaries])
    )
    title = "Finite precision: colliding positions and equal neighbours"
    return plot("dtype-thresholds.png", title, caption, build)


# ------------------------------------------------------------------------------------------ long-term decay


def roformer_decay(scales: Scales) -> Plot:
    """RoFormer's relative upper bound B(r) = (1/(d/2))·Σ_{j=1}^{d/2} |S_j(r)| against the relative distance r
    (its Figure 2), computed in ball arithmetic, with the steps where it rises marked."""
    d, last = scales.decay_d, scales.decay_distances
    balls = relative_upper_bound_arb(range(last + 1), d, BASE)
    values, bound = ball_midpoints(balls)
    profile = decay_profile(values, last + 1)
    rises = np.flatnonzero(np.diff(values) > 0) + 1

    def build(figure: Figure) -> None:
        axes = figure.add_subplot()
        axes.plot(np.arange(last + 1), values, linewidth=1, label=r"$B(r)$")
        axes.plot(rises, values[rises], "r.", markersize=3, label=r"$B(r) > B(r - 1)$")
        axes.set_xlabel("relative distance r")
        axes.set_ylabel("relative upper bound")
        axes.set_title(f"RoFormer's long-term decay curve, d = {d}, base {BASE:g}")
        axes.legend(loc="upper right")

    if profile.first_rise_at is None:
        rising = "never rises"
    else:
        first = profile.first_rise_at
        counted = "" if certain_signs(np.diff(values), bound) else f" ({UNCERTIFIED}: signs not all decided)"
        rising = (
            f"rises at {profile.rises} of its {profile.steps} steps (marked){counted}, first from "
            f"r = {first} ({ball_text(balls[first], '.6f')}) to r = {first + 1} "
            f"({ball_text(balls[first + 1], '.6f')})"
        )
    caption = (
        f"B(r) = (1/(d/2))·Σ_{{j=1}}^{{d/2}} |S_j(r)|, S_j(r) = Σ_{{l<j}} e^(i r θ_l), for d = {d}, base "
        f"{BASE:g} and r = 0–{last}, computed in ball arithmetic at {BALL_BITS} bits "
        "(`long_term_decay.relative_upper_bound_arb`) and plotted at the balls' midpoints: RoFormer's "
        f"Figure 2 (arXiv 2104.09864, §3.4.3). B(0) = {ball_text(balls[0], '.6f')} and B({last}) = "
        f"{ball_text(balls[-1], '.6f')}; B {rising}."
    )
    return plot("roformer-decay.png", "RoFormer's long-term decay curve", caption, build)


def draw_figures(scales: Scales) -> tuple[Plot, ...]:
    """Every figure of the report, in the order the dashboard shows them."""
    builders = (encoding_heatmap, wavelengths, distance_by_offset, gap_by_n, dtype_thresholds, roformer_decay)
    return tuple(build(scales) for build in builders)
