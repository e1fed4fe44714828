"""Long fuzzing run over the corpus models (not a test): the suite's mutator, many more cases.

Each case picks a corpus model and a list of mutations from ``random.Random`` seeded by the case
number, so case ``N`` of seed ``S`` is the same file on every machine. Workers convert cases in
parallel, each under an address-space limit (a memory blow-up shows as MemoryError) and a per-case
alarm (a hang shows as a timeout); both count as untyped failures. An untyped failure is shrunk to
its fewest mutations and the file written to ``--crash-dir`` for a regression test.

    .venv/bin/python bench/fuzz_models.py                 # 2,000 cases
    .venv/bin/python bench/fuzz_models.py --long          # 20,000 cases
    .venv/bin/python bench/fuzz_models.py --cases 500 --seed 7 --json figures.json
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import resource
import shutil
import signal
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from hardening.fuzz_target import TIME_LIMIT_S, Outcome, classify, new_workdir, run_case  # noqa: E402
from hardening.mutation_apply import apply_mutations, minimize  # noqa: E402
from hardening.mutator import draw_mutations  # noqa: E402

CORPUS = ROOT / "tests" / "data" / "models"
LONG_CASES = 20_000
MEMORY_LIMIT = 4 << 30

_worker: dict = {}


class CaseTimeout(BaseException):
    """Raised by the alarm inside a case that ran past the time limit (a hang)."""


def _on_alarm(signum, frame):
    raise CaseTimeout(f"case ran past {TIME_LIMIT_S} s")


def _init_worker(models: dict[str, bytes], scratch: str) -> None:
    from helia_aot.converters.litert.reader import parse_model
    from helia_aot.registry import build_default_registry_context

    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = MEMORY_LIMIT if hard == resource.RLIM_INFINITY else min(MEMORY_LIMIT, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    signal.signal(signal.SIGALRM, _on_alarm)
    workdir = Path(tempfile.mkdtemp(dir=scratch))
    tempfile.tempdir = str(workdir)  # the conversions' own work folders go there too
    _worker.update(
        models=models,
        parsed={k: parse_model(v) for k, v in models.items()},
        context=build_default_registry_context(),
        workdir=workdir,
    )


def case_file(seed: int, number: int) -> tuple[str, list, bytes]:
    """The model, mutations and bytes of case ``number`` under ``seed`` (in a worker)."""
    rng = random.Random(seed * 1_000_003 + number)
    name = rng.choice(sorted(_worker["models"]))
    mutations = draw_mutations(rng, _worker["parsed"][name])
    return name, mutations, apply_mutations(_worker["models"][name], mutations, _worker["parsed"][name])


def _run(data: bytes) -> Outcome:
    signal.alarm(int(TIME_LIMIT_S) + 1)
    start = time.perf_counter()
    try:
        return run_case(data, _worker["workdir"], _worker["context"])
    except CaseTimeout as exc:
        return Outcome("untyped", "Timeout", str(exc), time.perf_counter() - start)
    except MemoryError as exc:  # raised outside the converter's own handlers
        return classify(exc, time.perf_counter() - start)
    finally:
        signal.alarm(0)


def run_one(job: tuple[int, int, str | None]) -> dict:
    seed, number, crash_dir = job
    name, mutations, data = case_file(seed, number)
    outcome = _run(data)
    row = {
        "case": number,
        "model": name,
        "status": outcome.status,
        "error": outcome.error,
        "seconds": outcome.seconds,
    }
    if outcome.status == "untyped" or outcome.seconds > TIME_LIMIT_S:
        row.update(
            mutations=[m.describe() for m in mutations], message=outcome.message, trace=outcome.trace[-3000:]
        )
        if crash_dir:
            row["file"] = _save_minimized(name, mutations, outcome, Path(crash_dir), seed, number)
    return row


def _save_minimized(
    name: str, mutations: list, outcome: Outcome, crash_dir: Path, seed: int, number: int
) -> str:
    original, parsed = _worker["models"][name], _worker["parsed"][name]

    def fails(data: bytes) -> bool:
        again = _run(data)
        return again.status == "untyped" and again.error == outcome.error

    smallest = minimize(original, mutations, fails)
    crash_dir.mkdir(parents=True, exist_ok=True)
    path = crash_dir / f"fuzz_s{seed}_c{number}_{Path(name).stem}.tflite"
    path.write_bytes(apply_mutations(original, smallest, parsed))
    # The record tests/data/regressions/index.json keeps; "error" and "message" are filled in
    # with the typed error the file raises once the crash is fixed.
    path.with_suffix(".json").write_text(
        json.dumps(
            {
                "file": path.name,
                "from": name,
                "seed": seed,
                "case": number,
                "mutations": [m.describe() for m in smallest],
                "crashed_with": f"{outcome.error}: {(outcome.message.splitlines() or [''])[0][:300]}",
            },
            indent=1,
        )
        + "\n"
    )
    return str(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--long", action="store_true", help=f"run {LONG_CASES} cases")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument(
        "--crash-dir",
        default=str(ROOT / "bench" / "fuzz_crashes"),
        help="where minimized crashing files are written",
    )
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    cases = LONG_CASES if args.long else args.cases
    models = {p.name: p.read_bytes() for p in sorted(CORPUS.glob("*.tflite"))}

    start = time.perf_counter()
    rows = []
    jobs = [(args.seed, n, args.crash_dir) for n in range(cases)]
    scratch = new_workdir()
    try:
        pool = multiprocessing.get_context("fork").Pool(args.jobs, _init_worker, (models, str(scratch)))
        with pool:
            for i, row in enumerate(pool.imap_unordered(run_one, jobs, chunksize=16), 1):
                rows.append(row)
                if i % 1000 == 0:
                    print(f"{i}/{cases} cases, {time.perf_counter() - start:.0f} s", file=sys.stderr)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    wall = time.perf_counter() - start
    summary = summarize(rows, wall, args, len(models))
    print(json.dumps(summary, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=1) + "\n")
    sys.exit(1 if summary["untyped"] else 0)


def summarize(rows: list[dict], wall: float, args: argparse.Namespace, models: int) -> dict:
    typed = Counter(r["error"] for r in rows if r["status"] == "typed")
    slowest = max(rows, key=lambda r: r["seconds"])
    failures = [r for r in rows if r["status"] == "untyped" or r["seconds"] > TIME_LIMIT_S]
    return {
        "cases": len(rows),
        "seed": args.seed,
        "models": models,
        "successes": sum(r["status"] == "ok" for r in rows),
        "typed_errors": dict(typed.most_common()),
        "untyped": len(failures),
        "untyped_cases": failures[:20],
        "slowest_case_s": round(slowest["seconds"], 3),
        "slowest_case": f"{slowest['case']} ({slowest['model']})",
        "mean_case_s": round(sum(r["seconds"] for r in rows) / max(1, len(rows)), 4),
        "wall_s": round(wall, 1),
        "jobs": args.jobs,
    }


if __name__ == "__main__":
    main()
