"""Find the measured figures quoted in docs/ and the ``<!-- fig: name -->`` markers that claim them.

A *figure* is a number a measurement produced: one with a thousands separator (``16,896``), one
with a unit of bytes, instructions, time or work (``8,640 B``, ``14 instructions``, ``10-15 ms``,
``936,192 extra MACs``, ``6.6 KB``, ``1.1 KiB``, ``2.90 M``), a percentage (``12.5%``), a ratio
(``1.07x``, or ``0.59`` alone in a table cell) or a ``used (bound)`` table cell. Version numbers,
exit codes and other small integers alone in a cell, shapes (``3x3``, ``16 -> 32``) and
configuration values are not figures; sizes fixed by the hardware or the code are listed in
``NOT_FIGURES`` with their reason. Text in inline code spans and
in code blocks other than ``text`` is not scanned: python, C and shell blocks run under
tests/docs/test_docs.py, so what they print is asserted where it is printed.

A marker claims every figure before it in its paragraph, back to the previous marker; a marker on
a line of its own just before a fenced ``text`` block claims the figures of that block. A table
row is claimed by a marker in its last cell (``| 0.73 <!-- fig: name --> |``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
NOT_SCANNED = {
    "operators.md": "generated from the operator records; tests/ops_builtin/test_operator_docs.py",
    "operator-index.md": "generated from the records and files; tests/ops_builtin/test_operator_index.py",
    "platforms.md": "generated from the platform records; tests/platforms_apollo/test_apollo_platforms.py",
    "figures.md": "describes the markers; its examples are not figures",
}
"""Pages not scanned, with the reason: generated specifications a test re-runs, and this
mechanism's own page."""

NOT_FIGURES: dict[str, dict[str, str]] = {
    "architecture.md": {
        "1,000-layer": "the size of a test model, not a measurement",
        "past the 64-byte chunk": "the DSP chunk loop's step, 16 words of 4 bytes",
        "whole 16-byte": "Helium's vector width",
        "at byte 64 k + 16 p": "an address in a layout",
    },
    "reports.md": {
        "above 1.02x of the fewest bytes": "the planner's slack (SPILL_SLACK), a constant of the code",
    },
    "memory.md": {
        "beyond 20,000 such sets": "the planner's search limit, a constant of the code",
        "layouts within 1.02x of the": "the planner's slack (SPILL_SLACK), a constant of the code",
        "against 1.02x the tensors' peak": "the planner's slack (SPILL_SLACK), a constant of the code",
        "from what 1.02x leaves above": "the planner's slack (SPILL_SLACK), a constant of the code",
        "no larger one saves 32 cycles per byte": (
            "goal latency's price of a byte (LATENCY_CYCLES_PER_BYTE), a constant of the code"
        ),
        "16 bytes per vector move": "Helium's vector width",
        "4 bytes per channel": "an int32 per channel",
        "(256 bytes;": "64 channels of 4 bytes, the array the code declares",
        "K = 1,024 B": "the picture's unit",
        "64-byte window columns and 128 bytes of per-channel offset terms in a 256-byte array": (
            "the arrays hk_conv_s8_unfolded_im2col declares on its stack"
        ),
        "512-byte table": "the table hk_conv_s8_unfolded_im2col declares on its stack",
        "the larger, 512 bytes,": "the same table",
    },
    "cycles.md": {
        "32-byte lines, 4 ways, 512 sets, 64 KiB": "the data cache's geometry in the M55 timing table",
        "= 16 cycles from MRAM": "the line fill the rule gives, a worked example",
        "64 KiB, 4-way, 32-byte lines, in front": "the data cache's geometry in the M55 timing table",
        "(4-way, 32-byte lines, 0 to 64 KiB); Apollo510: 64 KiB": "the cache sizes the sources document",
        "ns are 1.5 cycles, so 2 cycles, 1 wait state, and an MRAM line fill takes 8 cycles instead of 16.": (
            "the clock-scaling rule worked through, not a measurement"
        ),
        "a 16-cycle line fill": "the line fill the rule gives",
        "The 128 KiB weight matrix": "the benchmark's shape, 512 x 256 bytes",
        "each of its 4,096": "the lines of that matrix, 128 KiB / 32 B",
        "the convolution's 36 KiB of weights": "the benchmark's shape, 3 x 3 x 64 x 64 bytes",
        "stay in the 64 KiB cache": "the data cache's size",
        "issue's 15%": "issue 30's target, not a measurement",
    },
    "on-target-testing.md": {
        "ITCM 512 KiB": "the emulated board's memory map",
        "DTCM 512 KiB": "the emulated board's memory map",
        "The main stack is 128 KiB": "the harness's default stack",
        "whole 16-byte vectors": "Helium's vector width",
        "chain of 100 and 1,000 int8": "the sizes of the bench's chains",
        "an error of 1% of the output's range": "what tolerance 0.01 means, an example",
    },
    "optimization.md": {
        "4 B per output channel": "an int32 per channel",
        "4 B per output,": "an int32 per output",
        "Helium's 16-byte": "Helium's vector width",
        "own 256-byte stack": "the array the kernel declares",
        "512-byte table": "the table the kernel declares",
        "3 to 9 bytes": "one to three channels by three taps",
        "at most 8 bytes": "half a Helium vector",
        "16-byte chunk": "Helium's vector width",
        "64-byte runs": "the assembly loop's unit",
        "128-byte runs read eight 16-byte chunks": "the assembly loop's unit",
        "depth at most 1,008": "a limit of the code",
        "at most 1,024 bytes": "what the immediate offsets reach",
        "4 bytes per unit": "an int32 per unit",
    },
    "safety.md": {
        "at least 8 bytes": "a limit the loader enforces",
        "runs 20,000 cases": "a bench option's default",
    },
}
"""Per page: phrases whose numbers are sizes fixed by the hardware or the code, or test sizes
(the reason beside each). They are not figures; each phrase must still occur on its page."""

MARKER = re.compile(r"<!--\s*fig:\s*([a-z0-9_.\-]+)\s*-->")
_NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_UNIT = (
    r"(?:\s|-)(?:B|bytes?|KB|KiB|MB|instructions?|cycles?|ms|extra MACs|MACs)(?![\w-])"
    r"|(?<=\d)\s(?:M|k)(?![\w-])|%|x(?![\w])"
)
FIGURE = re.compile(
    rf"(?<![\w.,/+-])(?P<range>(?:{_NUMBER})-)?(?P<number>{_NUMBER})(?P<unit>{_UNIT})?(?![\w.]\d|,\d)"
)
_CELL_NUMBER = r"\d{1,3}(?:,\d{3})+|\d+\.\d+"
CELL_FIGURE = re.compile(rf"^\s*(?:(?:{_CELL_NUMBER})|(?:{_NUMBER})\s*\((?:{_NUMBER})\))\s*$")
"""A table cell holding only a figure: thousands, a ratio, or ``used (bound)``; small integers
alone in a cell are codes and counts (exit codes, ids), not measurements."""
FENCE = re.compile(r"^```(\w*)")
CODE_SPAN = re.compile(r"`[^`\n]*`")
LINK_TARGET = re.compile(r"\]\([^)]*\)")


@dataclass(slots=True)
class Figure:
    """One figure as written, where it stands, and the marker that claims it (None: unclaimed)."""

    page: str
    line: int
    text: str
    value: float
    marker: str | None = None


@dataclass(slots=True)
class Segment:
    """The figures one marker claims, in the order the page quotes them."""

    page: str
    line: int
    name: str
    figures: list[Figure] = field(default_factory=list)


def parse_number(text: str) -> float:
    """``16,896`` -> 16896.0, ``0.59`` -> 0.59."""
    return float(text.replace(",", ""))


def _blank(match: re.Match[str]) -> str:
    return " " * len(match.group())


def _figures_in(text: str, page: str, line: int, in_table: bool) -> list[Figure]:
    """Every figure of one line of prose or table; code spans, link targets and the page's
    ``NOT_FIGURES`` phrases left out."""
    for phrase in sorted(NOT_FIGURES.get(page, {}), key=len, reverse=True):
        text = text.replace(phrase, " " * len(phrase))
    text = LINK_TARGET.sub("]()", CODE_SPAN.sub(_blank, text))
    text = MARKER.sub(_blank, text)
    found: list[tuple[int, Figure]] = []
    if in_table:
        for cell in text.strip().strip("|").split("|"):
            if CELL_FIGURE.match(cell):
                for number in re.findall(_NUMBER, cell):
                    found.append((text.find(cell), Figure(page, line, number, parse_number(number))))
    for match in FIGURE.finditer(text):
        number, unit = match.group("number"), match.group("unit")
        thousands = "," in number
        if not (unit or thousands):
            continue
        if in_table and CELL_FIGURE.match(_cell_at(text, match.start()) or ""):
            continue  # counted as a cell above
        if match.group("range"):
            low = match.group("range")[:-1]
            found.append((match.start(), Figure(page, line, low, parse_number(low))))
        found.append((match.start("number"), Figure(page, line, number, parse_number(number))))
    return [figure for _, figure in sorted(found, key=lambda item: item[0])]


def _cell_at(text: str, position: int) -> str | None:
    start = text.rfind("|", 0, position)
    end = text.find("|", position)
    if start < 0 or end < 0:
        return None
    return text[start + 1 : end]


def scan(page: Path) -> tuple[list[Figure], list[Segment]]:
    """The figures of one page and the segments its markers claim."""
    name = page.name
    figures: list[Figure] = []
    segments: list[Segment] = []
    pending: list[Figure] = []  # figures since the previous marker or paragraph start
    block_marker: tuple[str, int] | None = None
    fence: str | None = None
    lines = page.read_text(encoding="utf-8").splitlines()
    for number, raw in enumerate(lines, start=1):
        opening = FENCE.match(raw)
        if fence is not None:
            if raw.startswith("```"):
                if block_marker is not None:
                    segments.append(Segment(name, block_marker[1], block_marker[0], pending))
                    for figure in pending:
                        figure.marker = block_marker[0]
                fence, pending, block_marker = None, [], None
            elif fence == "text":
                found = _figures_in(raw, name, number, in_table=False)
                figures.extend(found)
                pending.extend(found)
            continue
        if opening:
            fence = opening.group(1)
            pending = []
            continue
        if not raw.strip():
            pending = []
            continue
        alone = MARKER.fullmatch(raw.strip())
        if alone and number < len(lines) and lines[number].startswith("```"):
            block_marker = (alone.group(1), number)
            pending = []
            continue
        if raw.lstrip().startswith("|"):
            # A table row: its figures are its own, claimed by the marker in its last cell.
            found = _figures_in(raw, name, number, in_table=True)
            figures.extend(found)
            markers = MARKER.findall(raw)
            if markers:
                for figure in found:
                    figure.marker = markers[-1]
                segments.append(Segment(name, number, markers[-1], found))
            pending = []
            continue
        # Split the line at its markers: each marker claims what precedes it.
        position = 0
        for match in MARKER.finditer(raw):
            found = _figures_in(raw[position : match.start()], name, number, in_table=False)
            figures.extend(found)
            pending.extend(found)
            for figure in pending:
                figure.marker = match.group(1)
            segments.append(Segment(name, number, match.group(1), pending))
            pending = []
            position = match.end()
        found = _figures_in(raw[position:], name, number, in_table=False)
        figures.extend(found)
        pending.extend(found)
    return figures, segments


def scan_docs() -> tuple[list[Figure], list[Segment]]:
    """Every page but those ``NOT_SCANNED``."""
    figures: list[Figure] = []
    segments: list[Segment] = []
    for page in PAGES:
        if page.name in NOT_SCANNED:
            continue
        found, claimed = scan(page)
        figures.extend(found)
        segments.extend(claimed)
    return figures, segments


if __name__ == "__main__":
    all_figures, _ = scan_docs()
    for fig in all_figures:
        if fig.marker is None:
            print(f"{fig.page}:{fig.line}: {fig.text}")
