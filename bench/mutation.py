"""Mutation score of the numerics: how many deliberate small bugs the suite's fast tests catch.

Each row of ``bench/mutation_table.toml`` is one mutant: a comparison flipped or moved by one, a
constant off by one, a shift off by one, a rounding mode changed or two operands swapped, in the
requantization and fixed-point helpers (hk_requant.h, hk_fixedpoint.h, hk_common.h), the arena
placement's conflict check (memory/placement.py) or the liveness computation (memory/liveness.py).
For each, the bench writes the mutant into a private copy of the tree, checks that it still
compiles (host gcc, and the Cortex-M55 and Cortex-M4 cross compilers for the kernels), runs the
tests its row names with that copy first on PYTHONPATH, and calls it killed when a test fails.
The working tree is never written.

Rows marked ``equivalent`` carry the reason no test can tell them from the original; they run too
(a killed "equivalent" mutant means the reason is wrong, and is reported as an error) but leave
the score. The last line reads ``M mutants: K killed, S survived, E equivalent (score X%)`` with
the score K / (M - E). The whole table took 1,941 s on two cores shared with other work:

    python bench/mutation.py [--only SUBSTRING,...] [--timeout 300] [--list]

Exit status: 0 when every non-equivalent mutant is killed, 1 when some survive, 2 when the table
is stale (a snippet no longer found, a mutant that does not compile, an "equivalent" one killed)
or the unmutated tests fail.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TABLE = Path(__file__).resolve().with_name("mutation_table.toml")
SOURCE_DIRS = ("helia_aot_core/src", "helia_aot_ops_builtin/src", "helia_aot_platforms_apollo/src")
KINDS = frozenset({"comparison", "constant", "shift", "rounding", "swap"})
C_SUFFIXES = frozenset({".h", ".c"})

# Every kernel header is checked where each of its code paths compiles: the host (portable),
# Cortex-M55 (Helium) and Cortex-M4 (DSP extension), with the warnings the tests' builds use.
SYNTAX_CHECKS = (
    ("gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-fsyntax-only"),
    ("arm-none-eabi-gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-fsyntax-only")
    + ("-mcpu=cortex-m55", "-mfloat-abi=hard", "-mthumb"),
    ("arm-none-eabi-gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-fsyntax-only")
    + ("-mcpu=cortex-m4", "-mfpu=fpv4-sp-d16", "-mfloat-abi=hard", "-mthumb"),
)


class TableError(Exception):
    """The mutation table does not match the sources (or is malformed)."""


@dataclass(frozen=True, slots=True)
class Mutant:
    """One row of the table, with its file and test group resolved."""

    name: str
    kind: str
    path: str  # relative to the repository root
    scope: str
    original: str
    replacement: str
    occurrence: int
    tests: tuple[str, ...]
    equivalent: str | None


def load_table(path: Path = TABLE) -> list[Mutant]:
    """The table's rows in order; TableError for a malformed row (unknown key, file or group)."""
    data = tomllib.loads(path.read_text())
    files, groups = data["files"], data["groups"]
    allowed = {"name", "kind", "file", "scope", "original", "replacement", "occurrence", "tests"}
    allowed.add("equivalent")
    rows, names = [], set()
    for row in data["mutant"]:
        name = row.get("name", "?")
        unknown = set(row) - allowed
        if unknown:
            raise TableError(f"mutant {name}: unknown keys {sorted(unknown)}")
        if name in names:
            raise TableError(f"mutant {name} appears twice")
        names.add(name)
        if row["kind"] not in KINDS:
            raise TableError(f"mutant {name}: kind {row['kind']!r} is not one of {sorted(KINDS)}")
        if row["file"] not in files or row["tests"] not in groups:
            raise TableError(f"mutant {name}: unknown file {row['file']!r} or test group {row['tests']!r}")
        if row["original"] == row["replacement"]:
            raise TableError(f"mutant {name}: the replacement equals the original")
        rows.append(
            Mutant(
                name=name,
                kind=row["kind"],
                path=files[row["file"]],
                scope=row["scope"],
                original=row["original"],
                replacement=row["replacement"],
                occurrence=int(row.get("occurrence", 1)),
                tests=tuple(groups[row["tests"]]),
                equivalent=row.get("equivalent"),
            )
        )
    return rows


def scope_span(text: str, scope: str) -> tuple[int, int]:
    """Character span of the block starting at the one line that contains ``scope``.

    The block runs to the first later line, other than a blank line, a preprocessor line, a lone
    ``{`` or a line starting with ``)`` (continued signatures), indented no deeper than the scope's
    line; a closing ``}`` there belongs to the block, anything else does not.
    """
    lines = text.splitlines(keepends=True)
    hits = [i for i, line in enumerate(lines) if scope in line]
    if len(hits) != 1:
        raise TableError(f"scope {scope!r} is on {len(hits)} lines, expected exactly one")
    start = hits[0]
    indent = len(lines[start]) - len(lines[start].lstrip())
    end = len(lines)
    for i in range(start + 1, len(lines)):
        stripped = lines[i].strip()
        if not stripped or stripped.startswith("#") or stripped == "{" or stripped.startswith(")"):
            continue
        if len(lines[i]) - len(lines[i].lstrip()) <= indent:
            end = i + 1 if stripped.startswith("}") else i
            break
    offset = sum(len(line) for line in lines[:start])
    return offset, offset + sum(len(line) for line in lines[start:end])


def mutate(text: str, mutant: Mutant) -> str:
    """``text`` with the mutant applied; TableError when its snippet is not where the row says."""
    begin, end = scope_span(text, mutant.scope)
    at = begin - 1
    for _ in range(mutant.occurrence):
        at = text.find(mutant.original, at + 1, end)
        if at < 0:
            raise TableError(
                f"mutant {mutant.name}: {mutant.original!r} does not occur {mutant.occurrence} time(s) "
                f"in the scope {mutant.scope!r} of {mutant.path}"
            )
    return text[:at] + mutant.replacement + text[at + len(mutant.original) :]


def copy_tree(dest: Path) -> None:
    """The files git tracks or would track (untracked but not ignored), as they are now."""
    listing = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout.decode()
    for rel in filter(None, listing.split("\0")):
        src = ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)


def test_env(tree: Path) -> dict[str, str]:
    """The copy's packages first on the path; CI set so a missing tool fails instead of skipping."""
    env = {k: v for k, v in os.environ.items() if k != "HELIA_AOT_OBJECT_CACHE"}
    env["PYTHONPATH"] = os.pathsep.join(str(tree / d) for d in SOURCE_DIRS)
    env["CI"] = "true"
    env["HELIA_AOT_HYPOTHESIS"] = "ci"
    return env


def check_copy_is_imported(tree: Path, env: dict[str, str]) -> None:
    probe = (
        "import helia_aot, helia_aot_ops_builtin.families as k; print(helia_aot.__file__, k.KERNEL_PATH[0])"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=tree, env=env, check=True, capture_output=True, text=True
    ).stdout
    if out.count(str(tree)) != 2:
        raise SystemExit(f"the copy's packages are not the ones imported: {out.strip()}")


def compile_check(tree: Path, mutant: Mutant) -> str | None:
    """None when the mutated kernel headers compile on every target, else the first error."""
    if Path(mutant.path).suffix not in C_SUFFIXES:
        source = (tree / mutant.path).read_text()
        try:
            compile(source, mutant.path, "exec")
        except SyntaxError as error:
            return str(error)
        return None
    kernel_dir = (tree / mutant.path).parent
    with tempfile.TemporaryDirectory() as work:
        probe = Path(work) / "probe.c"
        probe.write_text('#include "hk_requant.h"\n#include "hk_fixedpoint.h"\nint probe(void);\n')
        for command in SYNTAX_CHECKS:
            if shutil.which(command[0]) is None:
                return f"{command[0]} is not on PATH"
            run = subprocess.run(
                [*command, "-I", str(kernel_dir), str(probe)], capture_output=True, text=True
            )
            if run.returncode != 0:
                return f"{' '.join(command[:1] + command[-3:])}: {run.stderr.strip().splitlines()[0]}"
    return None


def run_tests(tree: Path, env: dict[str, str], tests: tuple[str, ...], timeout: float) -> tuple[str, str]:
    """("pass" | "fail" | "timeout" | "error", the last lines of pytest's output)."""
    command = [sys.executable, "-m", "pytest", "-n", "0", "-q", "-x", "-p", "no:cacheprovider", *tests]
    try:
        run = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", f"no result after {timeout:.0f} s"
    tail = "\n".join((run.stdout + run.stderr).strip().splitlines()[-3:])
    if run.returncode == 0:
        return "pass", tail
    return ("fail" if run.returncode == 1 else "error"), tail


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="run only the mutants whose name contains one of these (a,b,...)")
    parser.add_argument("--timeout", type=float, default=300, help="seconds per mutant's tests")
    parser.add_argument("--list", action="store_true", help="print the table and stop")
    args = parser.parse_args()

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    from rich.table import Table

    console = Console()
    try:
        mutants = load_table()
        for m in mutants:
            mutate((ROOT / m.path).read_text(), m)
    except TableError as error:
        console.print(f"[red]stale mutation table:[/] {error}")
        return 2
    if args.only:
        wanted = args.only.split(",")
        mutants = [m for m in mutants if any(w in m.name for w in wanted)]
    if args.list:
        for m in mutants:
            tag = " (equivalent)" if m.equivalent else ""
            console.print(f"{m.name:40} {m.kind:10} {m.path}: {m.original!r} -> {m.replacement!r}{tag}")
        return 0

    killed: list[Mutant] = []
    survived: list[Mutant] = []
    equivalent: list[Mutant] = []
    problems: list[str] = []
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="helia-aot-mutation-") as work:
        tree = Path(work)
        copy_tree(tree)
        env = test_env(tree)
        check_copy_is_imported(tree, env)
        for group in sorted({m.tests for m in mutants}):
            outcome, tail = run_tests(tree, env, group, args.timeout * 2)
            if outcome != "pass":
                console.print(f"[red]the unmutated tests do not pass[/] ({' '.join(group)}):\n{tail}")
                return 2
        console.print(f"unmutated tests pass ({len({m.tests for m in mutants})} groups)")
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        with Progress(*columns, console=console) as progress:
            task = progress.add_task("mutants", total=len(mutants))
            for m in mutants:
                progress.update(task, description=m.name)
                target = tree / m.path
                pristine = target.read_text()
                try:
                    target.write_text(mutate(pristine, m))
                    error = compile_check(tree, m)
                    if error is not None:
                        problems.append(f"{m.name} does not compile: {error}")
                        outcome, tail = "error", error
                    else:
                        outcome, tail = run_tests(tree, env, m.tests, args.timeout)
                finally:
                    target.write_text(pristine)
                if outcome == "error":
                    problems.append(f"{m.name}: the tests could not run: {tail}")
                    verdict = "[red]error[/]"
                elif m.equivalent:
                    equivalent.append(m)
                    verdict = "[cyan]equivalent[/]"
                    if outcome != "pass":
                        problems.append(f"{m.name} is marked equivalent but a test kills it: {tail}")
                        verdict = "[red]equivalent, but killed[/]"
                elif outcome == "pass":
                    survived.append(m)
                    verdict = "[yellow]survived[/]"
                else:
                    killed.append(m)
                    verdict = "[green]killed[/]" + (" (timeout)" if outcome == "timeout" else "")
                progress.console.print(f"{verdict:>28}  {m.name}")
                progress.advance(task)

    if survived or equivalent:
        table = Table(title="Survivors and equivalent mutants")
        for column in ("mutant", "file", "change", "why it survives"):
            table.add_column(column)
        for m in survived + equivalent:
            reason = m.equivalent or "[yellow]no test fails[/]"
            table.add_row(m.name, Path(m.path).name, f"{m.original!r} -> {m.replacement!r}", reason)
        console.print(table)
    for problem in problems:
        console.print(f"[red]{problem}[/]")
    scored = len(killed) + len(survived)
    score = 100.0 * len(killed) / scored if scored else 100.0
    console.print(f"run time {time.monotonic() - started:.0f} s")
    print(
        f"{len(mutants)} mutants: {len(killed)} killed, {len(survived)} survived, "
        f"{len(equivalent)} equivalent (score {score:.1f}%)"
    )
    if problems:
        return 2
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main())
