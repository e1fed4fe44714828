"""The main job on the bundled example: convert KWS int8, build it with gcc, check it against LiteRT.

Run through ``scripts/setup.sh example``. The model is the DS-CNN probe (every layer's output is
also a model output: with untrained weights the class scores alone hardly depend on the input, so
only the layers' outputs make a wrong layer visible). The golden data is the LiteRT reference
interpreter's output on three recorded inputs (examples/kws/kws_int8_probe_golden.npz); the
module's own self test compares all twelve outputs with them bit for bit.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from helia_aot import AotConverter, ConvertArgs
from helia_aot.errors import HeliaAotError
from helia_aot.testing import run_module_test_case
from rich.console import Console

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "kws"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="module folder's parent (default: the repository's out/)")
    args = parser.parse_args(argv)
    console = Console()
    # Relative paths in a configuration resolve from the working directory (as heliaAOT 1.1 does),
    # so the example runs from its own folder, where convert.yaml names its model and golden data.
    os.chdir(EXAMPLE)
    overrides = {} if args.out is None else {"module.path": str(args.out.resolve())}
    try:
        config = ConvertArgs.from_yaml(EXAMPLE / "convert.yaml", overrides=overrides)
        result = AotConverter(config).convert()
    except HeliaAotError as error:
        console.print(f"[red]Error:[/] {error.message}\nhint: {error.hint}")
        return error.exit_code
    console.print(f"module written to [bold]{result.output.resolve()}[/]")
    for arena in result.arenas:
        bound = f" (planner lower bound {arena['peak_live']} B)" if arena["peak_live"] is not None else ""
        console.print(
            f"  arena {arena['region']} {arena['role']:<10} {arena['memory']:<5} {arena['used']:>8} B{bound}"
        )
    with tempfile.TemporaryDirectory() as build:
        try:
            run = run_module_test_case(result.output, Path(build), prefix=result.prefix)
        except subprocess.CalledProcessError as error:
            console.print(f"[red]the module did not compile:[/]\n{error.stderr[-3000:]}")
            return 1
    console.print(run.stdout.rstrip())
    if run.passed:
        console.print("[green]match:[/] the C module's outputs equal the LiteRT reference bit for bit")
        return 0
    console.print(f"[red]mismatch[/]\n{run.stderr[-2000:]}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
