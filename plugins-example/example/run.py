"""Convert the example model, build the module with the host compiler and run its golden self test.

    python run.py                 # the installed pack, found through its entry point
    python run.py --customizer    # the same operators passed as a customizer (the notebook route)

Both routes produce the same module. The second disables the installed plugin first: registering
the same keys twice is a DuplicateRegistrationError, by design.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from helia_aot import AotConverter, ConvertArgs
from helia_aot.errors import HeliaAotError
from helia_aot.registry import build_default_registry_context
from helia_aot.testing import run_module_test_case
from helia_aot_example_ops.plugin import customize_registry

HERE = Path(__file__).resolve().parent
PLUGIN_NAME = "example_ops"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, default=HERE / "convert.yaml")
    parser.add_argument(
        "--customizer",
        action="store_true",
        help="pass the pack's customizer instead of loading the installed plugin",
    )
    args = parser.parse_args()
    # The configuration's relative paths resolve from the working directory: run from its folder.
    os.chdir(args.config.resolve().parent)
    config = ConvertArgs.from_yaml(args.config.name)
    registry_context = None
    if args.customizer:
        registry_context = build_default_registry_context(
            customizers=[customize_registry], plugins={"disabled": [PLUGIN_NAME]}
        )
    try:
        result = AotConverter(config, registry_context=registry_context).convert()
    except HeliaAotError as error:
        print(f"Error: {error.message}\nhint: {error.hint}", file=sys.stderr)
        return error.exit_code
    print(f"module written to {result.output}")
    with tempfile.TemporaryDirectory() as build:
        run = run_module_test_case(result.output, Path(build), prefix=result.prefix)
    print(run.stdout.rstrip())
    if not run.passed:
        print(run.stderr[-2000:], file=sys.stderr)
        return 1
    print("match: the module's outputs equal the golden data bit for bit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
