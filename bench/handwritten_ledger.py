"""The ledger of hand-written speed: each piece written by hand where a library does the same job,
timed against that library in one run (not a test).

docs/architecture.md ("Hand-written where a library exists") lists the pieces, the test that pins
each one's equivalence with its library, and how to delete it; this script gives the figure the
ledger's "gain" column quotes. Every piece was written to save start-up or conversion time, so
each is timed the way a conversion meets it:

- ``cli/direct.py`` against typer/click: a fresh interpreter imports what parsing a plain
  ``convert`` line needs and parses it (direct: ``convert_parameters``; library: the typer app's
  ``convert`` command, ``make_context``, as tests/core/test_cli_direct.py compares them).
- the flatbuffer table reader (``converters/litert/unpack.py`` with ``litert/schema_tables.py``)
  against the generated object API (``schema_py_generated``): a fresh interpreter imports the
  reader and unpacks one model (KWS, and a chain of 1,000 convolutions).
- ``codegen/json_text.py`` against ``json.dumps(value, indent=2)``: the text of the JSON records a
  conversion writes (KWS, and the 1,000-convolution chain), in one process.
- the plugin loader's read of a distribution's name and version from METADATA's two header
  lines (``plugins/manager.py``, ``_name_and_version``) against one ``dist.metadata`` parse per
  distribution (the email parser): a fresh interpreter names the ``helia_aot`` plugins'
  distributions, the entry points found before the clock starts.

The loader's own selection of ``entry_points.txt`` files was timed here too against
``importlib.metadata.entry_points(group=...)`` (1.95 against 1.42 ms of CPU, 0.5 ms saved, 0.2% of
a KWS conversion) and deleted for the library's; the ledger keeps its figures.

Each figure is the median of ``--repeat`` runs, library and ours alternating, in CPU time of the
process (``time.process_time``: on a shared machine wall time mostly measures the neighbours),
taken inside the interpreter (its own start-up is the same for both and is left out). Compare the
ratios of one run, not figures from different runs.

    .venv/bin/python bench/handwritten_ledger.py [--repeat 7]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "models"
KWS = DATA / "mlperf_kws_dscnn_int8.tflite"

# Each snippet prints the seconds its work took; {argv} and {model} are filled in.
CLI_OURS = """
import time
t = time.process_time()
from helia_aot.cli.direct import convert_parameters
params = convert_parameters({argv!r})
assert params is not None
print(time.process_time() - t)
"""
CLI_LIBRARY = """
import time
t = time.process_time()
import importlib
import typer
app = importlib.import_module("helia_aot.cli.app").app
command = typer.main.get_command(app).commands["convert"]
params = dict(command.make_context("convert", {argv!r}[1:]).params)
print(time.process_time() - t)
"""
READER_OURS = """
import time
from pathlib import Path
data = Path({model!r}).read_bytes()
t = time.process_time()
from helia_aot.converters.litert.unpack import unpack_model
model = unpack_model(data)
print(time.process_time() - t)
"""
READER_LIBRARY = """
import time
from pathlib import Path
data = Path({model!r}).read_bytes()
t = time.process_time()
import helia_aot.litert.schema_py_generated as generated
model = generated.ModelT.InitFromPackedBuf(data, 0)
print(time.process_time() - t)
"""
NAMES_OURS = """
import time
from importlib import metadata
from helia_aot.plugins import manager
dists = [ep.dist for ep in metadata.entry_points(group="helia_aot") if ep.dist]
t = time.process_time()
names = [manager._name_and_version(dist) for dist in dists]
print(time.process_time() - t)
"""
NAMES_LIBRARY = """
import time
from importlib import metadata
from helia_aot.plugins import manager
dists = [ep.dist for ep in metadata.entry_points(group="helia_aot") if ep.dist]
t = time.process_time()
names = [(fields["Name"], fields["Version"]) for fields in (dist.metadata for dist in dists)]
print(time.process_time() - t)
"""
CONVERSION = """
import sys, time
t = time.process_time()
sys.argv = ["helia-aot", *{argv!r}]
from helia_aot.cli import main
try:
    main()
except SystemExit as e:
    assert not e.code, e.code
print(time.process_time() - t)
"""


# Bytecode is written as on a user's machine (pip compiles what it installs), even where the
# environment turns it off: compiling the 1 MB bindings from source would be most of their cost.
_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def fresh_seconds(snippet: str) -> float:
    run = subprocess.run(
        [sys.executable, "-c", snippet], capture_output=True, text=True, check=True, env=_ENV
    )
    return float(run.stdout.strip().splitlines()[-1])


def paired(library: str, ours: str, repeat: int) -> tuple[float, float]:
    """Median seconds of each snippet in fresh interpreters, alternating, after one warm-up each
    (bytecode caches written, files in the page cache)."""
    fresh_seconds(library)
    fresh_seconds(ours)
    lib, own = [], []
    for _ in range(repeat):
        lib.append(fresh_seconds(library))
        own.append(fresh_seconds(ours))
    return statistics.median(lib), statistics.median(own)


def written_records(model: Path, out: Path) -> tuple[list[object], float]:
    """The JSON records a conversion of ``model`` writes, loaded back, and the conversion's CPU
    seconds (in this process, so after the first conversion's imports)."""
    from helia_aot import AotConverter, ConvertArgs

    config = {"model": {"path": str(model)}, "module": {"path": str(out)}, "verbose": 0}
    started = time.process_time()
    AotConverter(ConvertArgs.model_validate(config)).convert()
    seconds = time.process_time() - started
    return [json.loads(p.read_text()) for p in sorted(out.rglob("*.json"))], seconds


def json_times(values: list[object], repeat: int) -> tuple[float, float]:
    from helia_aot.codegen.json_text import dumps_indented

    lib, own = [], []
    for _ in range(repeat):
        t = time.process_time()
        library_text = [json.dumps(v, indent=2) for v in values]
        lib.append(time.process_time() - t)
        t = time.process_time()
        our_text = [dumps_indented(v) for v in values]
        own.append(time.process_time() - t)
        assert our_text == library_text
    return statistics.median(lib), statistics.median(own)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    repeat = parser.parse_args().repeat
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        argv = ["convert", "--model.path", str(KWS), "--module.path", str(folder / "o"), "--force"]
        rows.append(
            (
                "cli/direct.py",
                "typer + click",
                *paired(CLI_LIBRARY.format(argv=argv), CLI_OURS.format(argv=argv), repeat),
            )
        )
        from helia_aot.testing.conv_chain import conv_chain_model

        chain = conv_chain_model(1000, folder / "chain.tflite")
        kws_values, _ = written_records(KWS, folder / "kws")
        values, chain_seconds = written_records(chain, folder / "chain")
        for name, model in (("KWS", KWS), ("chain of 1,000", chain)):
            lib, own = paired(
                READER_LIBRARY.format(model=str(model)), READER_OURS.format(model=str(model)), repeat
            )
            rows.append((f"table reader ({name})", "schema_py_generated", lib, own))
        names = paired(NAMES_LIBRARY, NAMES_OURS, repeat)
        rows.append(("plugin names (METADATA header lines)", "dist.metadata", *names))
        rows.append(
            ("codegen/json_text.py (KWS records)", "json.dumps(indent=2)", *json_times(kws_values, repeat))
        )
        rows.append(
            ("codegen/json_text.py (chain records)", "json.dumps(indent=2)", *json_times(values, repeat))
        )
        fresh_seconds(CONVERSION.format(argv=argv))
        kws = statistics.median(fresh_seconds(CONVERSION.format(argv=argv)) for _ in range(repeat))
    print(f"CPU time, median of {repeat} runs; library and ours alternating")
    print(f"a KWS command-line conversion (helia-aot convert, fresh process): {kws * 1e3:.1f} ms")
    print(f"a conversion of the chain of 1,000 (in process, after KWS's): {chain_seconds * 1e3:.1f} ms")
    header = f"{'library ms':>10} {'ours ms':>8} {'saved ms':>9} {'ours/lib':>8} {'saved/KWS':>9}"
    print(f"{'piece':48} {'library':22} {header}")
    for piece, library, lib, own in rows:
        figures = f"{lib * 1e3:10.2f} {own * 1e3:8.2f} {(lib - own) * 1e3:9.2f} {own / lib:8.2f}"
        print(f"{piece:48} {library:22} {figures} {(lib - own) / kws:9.1%}")


if __name__ == "__main__":
    main()
