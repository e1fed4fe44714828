"""Corpus coverage benchmark: which corpus models convert and match, and what blocks the rest (not a test).

Every model in tests/data/manifest.json is converted with the installed operator packs. The first
table counts, per dtype and category (the manifest's ``dtype`` and ``category``), the models in
total, those converting, and with ``--check`` those matching the reference: built on the host
under ASan/UBSan and run through the golden self-test exactly as tests/e2e/test_corpus.py does
(same expected outputs, relabelled reference and extreme samples). ``--check`` is optional because
it compiles every module and takes minutes. The second table lists the operators still refused,
with how many models each blocks and the reason the UnsupportedModelError gives (one line each),
so the list of what is left to write comes from the converter itself rather than from a hand-kept
list. Every figure comes from one run of this script; ``--json`` also writes the rows for tools.

    .venv/bin/python bench/corpus_coverage.py [--check] [--json coverage.json]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from helia_aot import AotConverter, ConvertArgs
from helia_aot.errors import HeliaAotError, UnsupportedModelError
from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"

_REFUSED_OPERATOR = re.compile(r"#\d+ ([A-Z][A-Z0-9_]*): (.*)")


def _without_hint(text: str) -> str:
    """The reason without its ``(hint: ...)`` tail, which is the same advice on every row."""
    return text.split(" (hint:", 1)[0].strip()


def refusals(error: UnsupportedModelError) -> dict[str, str]:
    """Blocker -> reason, read from the error: one entry per refused operator, or, when the model
    is refused before any operator is looked at (a tensor type), that tensor type and the
    message's first line."""
    message = str(error)
    found = {m.group(1): _without_hint(m.group(2)) for m in _REFUSED_OPERATOR.finditer(message)}
    if found:
        return found
    first = _without_hint(message.splitlines()[0])
    kind = re.search(r"tensor type \w+", first)
    return {kind.group(0) if kind else "(whole model)": first}


def convert(entry: dict[str, Any], work: Path, check: bool) -> Any:
    """Convert one model into ``work``; with ``check``, with the self-test test_corpus.py builds."""
    config: dict[str, Any] = {
        "model": {"path": str(DATA / entry["file"])},
        "module": {"path": str(work / "out"), "name": "module"},
        "verbose": 0,
    }
    if check:
        from e2e.corpus_golden import golden_test_settings

        config["test"] = golden_test_settings(entry, work)
    return AotConverter(ConvertArgs.model_validate(config)).convert()


def measure(entry: dict[str, Any], check: bool) -> dict[str, Any]:
    """One row: did the model convert, did it match (``None`` unless checked), what refused it."""
    row: dict[str, Any] = {
        "name": entry["name"],
        "dtype": entry["dtype"],
        "category": entry["category"],
        "converts": False,
        "matches": None,
        "error": None,
        "refused": {},
    }
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        try:
            result = convert(entry, work, check)
        except UnsupportedModelError as error:
            row["error"] = type(error).__name__
            row["refused"] = refusals(error)
            return row
        except HeliaAotError as error:
            row["error"] = f"{type(error).__name__}: {_without_hint(str(error).splitlines()[0])}"
            return row
        row["converts"] = True
        if check:
            from helia_aot.testing import run_module_test_case

            run = run_module_test_case(result.output, work / "build", prefix=result.prefix)
            row["matches"] = run.passed
    return row


def coverage_table(rows: list[dict[str, Any]], check: bool) -> Table:
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        groups[(row["dtype"], row["category"])].append(row)
    table = Table(title="Corpus coverage" + (" (converting and matching)" if check else " (converting)"))
    columns = ["dtype", "category", "models", "converting"] + (["matching"] if check else [])
    for column in columns:
        table.add_column(column, justify="left" if column in ("dtype", "category") else "right")
    for (dtype, category), members in sorted(groups.items()) + [(("all", ""), rows)]:
        figures = [str(len(members)), str(sum(r["converts"] for r in members))]
        if check:
            figures.append(str(sum(bool(r["matches"]) for r in members)))
        if dtype == "all":
            table.add_section()
        table.add_row(dtype, category, *figures)
    return table


def refused_table(rows: list[dict[str, Any]]) -> Table:
    blocked: dict[str, list[str]] = defaultdict(list)
    reasons: dict[str, str] = {}
    for row in rows:
        for blocker, reason in row["refused"].items():
            blocked[blocker].append(row["name"])
            reasons.setdefault(blocker, reason)
    table = Table(title="Operators still refused")
    for column in ("operator", "models blocked", "reason"):
        table.add_column(column, justify="right" if column == "models blocked" else "left")
    for blocker in sorted(blocked, key=lambda b: (-len(blocked[b]), b)):
        table.add_row(blocker, str(len(blocked[blocker])), reasons[blocker])
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", action="store_true", help="also build and run each module's golden self-test"
    )
    parser.add_argument("--json", type=Path, help="write the per-model rows to this file")
    args = parser.parse_args()
    if args.check:
        sys.path.insert(0, str(ROOT / "tests"))  # the corpus test's golden helpers (package e2e)
    manifest = json.loads((DATA / "manifest.json").read_text())
    start = time.perf_counter()
    rows = [measure(entry, args.check) for entry in manifest]
    seconds = time.perf_counter() - start
    console = Console(width=160)
    console.print(coverage_table(rows, args.check))
    console.print(refused_table(rows))
    other = [r for r in rows if r["error"] and not r["refused"]]
    for row in other:
        console.print(f"[red]{row['name']}[/]: {row['error']}")
    if args.check:
        for row in rows:
            if row["converts"] and not row["matches"]:
                console.print(f"[red]{row['name']}[/]: does not match the reference")
    console.print(f"{len(rows)} models in {seconds:.1f} s")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
