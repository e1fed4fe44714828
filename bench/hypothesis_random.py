"""Run the property tests with fresh random cases and a bigger budget than CI's.

CI runs every Hypothesis test derandomized (the "ci" profile in tests/conftest.py), so it explores
the same cases every time; this script is how new cases get explored. It runs the test files that
use ``@given`` under the "random" profile, each test's max_examples multiplied by ``--scale``, with
only the property tests selected, and prints a summary: passed/failed per file, the slowest
tests, and the seed that repeats the run. A failure prints Hypothesis's falsifying example and its
``@reproduce_failure`` blob; put the example into the test (``@example``) or a regression file.

    python bench/hypothesis_random.py [--scale 4] [--seed N] [--workers 2] [--match conv] [-m "not cross"]

Runs in a few minutes on two cores with the defaults (about four times the suite's property-test
time).
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def property_test_files(match: str | None) -> list[Path]:
    """Test files under tests/ that use @given, optionally only those whose path contains ``match``."""
    files = [p for p in sorted((ROOT / "tests").rglob("test_*.py")) if "@given" in p.read_text()]
    return [p for p in files if match is None or match in str(p.relative_to(ROOT))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=4, help="multiplier of each test's max_examples")
    parser.add_argument("--seed", type=int, default=None, help="repeat a run (default: a fresh seed)")
    parser.add_argument("--workers", default="2", help="pytest-xdist workers (0: in process)")
    parser.add_argument("--match", default=None, help="only test files whose path contains this")
    parser.add_argument("-m", dest="markers", default="not cross", help="pytest marker expression")
    args = parser.parse_args()
    if args.scale < 1:
        parser.error("--scale must be >= 1")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    files = property_test_files(args.match)
    if not files:
        parser.error(f"no property-test file matches {args.match!r}")

    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "junit.xml"
        env = dict(
            os.environ,
            HELIA_AOT_HYPOTHESIS="random",
            HELIA_AOT_HYPOTHESIS_SCALE=str(args.scale),
            HELIA_AOT_HYPOTHESIS_ONLY="1",
        )
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--hypothesis-seed={seed}"]
        cmd += ["-n", args.workers, "-m", args.markers, f"--junitxml={report}"]
        cmd += [str(p.relative_to(ROOT)) for p in files]
        print(f"hypothesis random profile: {len(files)} files, budget x{args.scale}, seed {seed}")
        start = time.monotonic()
        proc = subprocess.run(cmd, cwd=ROOT, env=env)
        elapsed = time.monotonic() - start
        if not report.exists():
            print("pytest wrote no report; see its output above")
            return proc.returncode or 1
        cases = ET.parse(report).getroot().iter("testcase")
        rows = []
        for case in cases:
            outcome = "passed"
            for tag in ("failure", "error", "skipped"):
                if case.find(tag) is not None:
                    outcome = {"failure": "failed"}.get(tag, tag)
            rows.append(
                (
                    case.get("classname", ""),
                    case.get("name"),
                    outcome,
                    float(case.get("time", 0)),
                )
            )

    print(f"\n{'file':60} {'passed':>7} {'failed':>7} {'other':>6} {'seconds':>8}")
    per_file: dict[str, Counter] = {}
    seconds: Counter = Counter()
    for file, _, outcome, t in rows:
        per_file.setdefault(file, Counter())[outcome] += 1
        seconds[file] += t
    for file, counts in sorted(per_file.items()):
        other = sum(n for k, n in counts.items() if k not in ("passed", "failed"))
        print(f"{file:60} {counts['passed']:7} {counts['failed']:7} {other:6} {seconds[file]:8.1f}")
    print("\nslowest property tests:")
    for file, name, _, t in sorted(rows, key=lambda r: -r[3])[:8]:
        print(f"  {t:7.1f}s  {file}::{name}")
    failed = [r for r in rows if r[2] in ("failed", "error")]
    total = Counter(r[2] for r in rows)
    print(
        f"\n{len(rows)} property tests: {total['passed']} passed, {len(failed)} failed; "
        f"{elapsed:.0f}s wall; seed {seed}"
    )
    if failed:
        print(f"repeat with: python bench/hypothesis_random.py --scale {args.scale} --seed {seed}")
    return 1 if failed else proc.returncode


if __name__ == "__main__":
    sys.exit(main())
