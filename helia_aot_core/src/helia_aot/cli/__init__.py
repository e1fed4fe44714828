"""The ``helia-aot`` command line: a thin layer over ConvertArgs and AotConverter."""

import os
import sys

BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "1")
"""The command's BLAS thread count unless the environment sets one. A conversion does no large
linear algebra, yet numpy's OpenBLAS starts a worker thread per core while it is imported; on a
small machine that was a visible part of a conversion's start-up. Set here, before the command's
imports reach numpy; a process that imported numpy already keeps what it has."""

if "numpy" not in sys.modules:
    os.environ.setdefault(*BLAS_THREADS)

from helia_aot.pipeline.collector import collector_paused  # noqa: E402 - after the environment is set

with collector_paused():  # the command's imports make few cycles (see helia_aot.pipeline.collector)
    from helia_aot.cli.app import app, core_version, main

__all__ = ["BLAS_THREADS", "app", "core_version", "main"]
