"""Hash the module every corpus model converts to, so a refactor can prove its output unchanged (not a test).

Converted: every ``.tflite`` under tests/data (the corpus of tests/data/manifest.json, as
bench/corpus_coverage.py converts it, and the regression, recurrent and streaming models) with its
default configuration, plus each MLPerf Tiny int8 model (bench/goal_bench.py's list) at each
optimization goal on ``apollo510_evb`` and ``apollo4p_evb``. Each output folder is hashed as a tree
(relative path and bytes of every file, sorted); a model the converter refuses is recorded by its
error type and message, so a change in what is refused shows too. The output is one line per case,
``<case> <sha256>``, sorted; comparing two runs is ``diff`` (or ``--compare``).

Used by issue 28's family layout (scripts/family_layout.py): run on main before the move and on the
moved tree, both files must be equal::

    .venv/bin/python bench/module_hashes.py --out /tmp/before.txt      # on the old tree
    .venv/bin/python bench/module_hashes.py --out /tmp/after.txt --compare /tmp/before.txt
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import tempfile
from collections.abc import Iterator
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
PLATFORMS = ("apollo510_evb", "apollo4p_evb")
GOALS = ("latency", "balanced", "size")
MLPERF = (
    "mlperf_kws_dscnn_int8",
    "mlperf_ic_resnet8_int8",
    "mlperf_vww_mobilenetv1_025_int8",
    "mlperf_ad_fc_autoencoder_int8",
    "mlperf_vww_trained_int8",
)


def tree_hash(folder: Path, exclude: tuple[str, ...] = ()) -> str:
    """sha256 over every file below ``folder`` whose name matches no ``exclude`` pattern: its
    relative path, its length and its bytes."""
    digest = hashlib.sha256()
    files = (p for p in folder.rglob("*") if p.is_file() and not any(fnmatch(p.name, x) for x in exclude))
    for path in sorted(files):
        data = path.read_bytes()
        digest.update(f"{path.relative_to(folder).as_posix()}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def cases() -> Iterator[tuple[str, Path, dict[str, Any]]]:
    """(case name, model file, configuration beyond model and module) for every conversion."""
    for model in sorted(DATA.rglob("*.tflite")):
        yield model.relative_to(DATA).as_posix(), model, {}
    for stem in MLPERF:
        model = DATA / "models" / f"{stem}.tflite"
        for platform in PLATFORMS:
            for goal in GOALS:
                extra = {"platform": platform, "optimization": {"goal": goal}}
                yield f"{stem}@{platform}@{goal}", model, extra


def convert_hash(model: Path, extra: dict[str, Any], work: Path, exclude: tuple[str, ...] = ()) -> str:
    """The tree hash of ``model``'s module, or ``refused:<sha256 of error type and message>``."""
    from helia_aot import AotConverter, ConvertArgs
    from helia_aot.errors import HeliaAotError

    module = {"path": str(work), "name": "module"}
    config = {"model": {"path": str(model)}, "module": module, "verbose": 0, **extra}
    try:
        AotConverter(ConvertArgs.model_validate(config)).convert()
    except HeliaAotError as error:
        text = f"{type(error).__name__}: {error}".replace(str(work), "<out>")
        return "refused:" + hashlib.sha256(text.encode()).hexdigest()
    return tree_hash(work, exclude)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="file to write '<case> <hash>' lines to")
    parser.add_argument("--compare", type=Path, help="an earlier --out file: report every difference")
    parser.add_argument("--only", default="", help="only cases whose name contains this text")
    parser.add_argument(
        "--exclude",
        action="append",
        default=[],
        help="leave files whose name matches this pattern out of each hash (repeatable), e.g. "
        "'*_report.*' when a change adds report fields on purpose and the C must stay the same",
    )
    args = parser.parse_args(argv)
    lines = []
    with tempfile.TemporaryDirectory(prefix="helia_aot_hashes_") as scratch:
        for index, (name, model, extra) in enumerate(cases()):
            if args.only and args.only not in name:
                continue
            lines.append(
                f"{name} {convert_hash(model, extra, Path(scratch) / str(index), tuple(args.exclude))}"
            )
            print(lines[-1], flush=True)
    args.out.write_text("\n".join(sorted(lines)) + "\n")
    converted = sum(1 for line in lines if " refused:" not in line)
    print(f"{len(lines)} cases, {converted} modules, {len(lines) - converted} refused -> {args.out}")
    if args.compare is None:
        return 0
    before = dict(line.split(" ", 1) for line in args.compare.read_text().splitlines() if line)
    after = dict(line.split(" ", 1) for line in lines)
    differ = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    for key in differ:
        print(f"DIFFERS {key}: {before.get(key)} -> {after.get(key)}")
    print(f"compared {len(before.keys() & after.keys())} cases: {len(differ)} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
