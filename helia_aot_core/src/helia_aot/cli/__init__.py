"""The ``helia-aot`` command line: a thin layer over ConvertArgs and AotConverter."""

import os
import sys

BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "1")
"""The command's BLAS thread count unless the environment sets one. A conversion does no large
linear algebra, yet numpy's OpenBLAS starts a worker thread per core while it is imported; on a
small machine that was a visible part of a conversion's start-up. Set here, before the command's
imports reach numpy; a process that imported numpy already keeps what it has."""

PYDANTIC_PLUGINS = ("PYDANTIC_DISABLE_PLUGINS", "__all__")
"""Pydantic's plugins off for the command unless the environment names its own choice (an empty
value turns them all back on). Pydantic looks for plugins when it builds its first model by reading
the entry points of every installed distribution (measured: 20 ms of a KWS conversion); they are
observability hooks on validation, and the command validates only its own configuration."""

if "numpy" not in sys.modules:
    os.environ.setdefault(*BLAS_THREADS)
if "pydantic" not in sys.modules:
    os.environ.setdefault(*PYDANTIC_PLUGINS)

from helia_aot.pipeline.collector import collector_paused  # noqa: E402 - after the environment is set

# The command's imports make few cycles and live as long as the process (helia_aot.pipeline.collector).
with collector_paused(keep=True):
    from helia_aot.cli.app import app, core_version, main

__all__ = ["BLAS_THREADS", "PYDANTIC_PLUGINS", "app", "core_version", "main"]
