"""Sweeps on a Dask cluster: a ``distributed.Client`` connected to a scheduler address, whose
executor :func:`helia_aot.sweep` submits the points to.

A sweep over many models and configurations outgrows one machine; Dask's ``Client.get_executor()``
is a ``concurrent.futures.Executor``, so the sweep itself needs nothing Dask-specific. What this
module adds is the connection with typed failures: ``dask[distributed]`` is an optional extra
(``pip install "helia-aot[distributed]"``), and a scheduler that does not answer should say so
in one line (exit status 2), not in a traceback from the networking layer.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from helia_aot.errors import ClusterUnavailableError

INSTALL_HINT = 'install the extra: pip install "helia-aot[distributed]" (it brings dask[distributed])'

DEFAULT_TIMEOUT_S = 10.0
"""Seconds to wait for the scheduler before giving up."""


def _distributed() -> Any:
    try:
        return importlib.import_module("distributed")
    except ImportError as error:
        raise ClusterUnavailableError(
            "a sweep on a Dask cluster needs the 'distributed' package, which is not installed",
            hint=INSTALL_HINT,
        ) from error


@contextmanager
def dask_client(address: str, timeout_s: float | None = None) -> Iterator[Any]:
    """A ``distributed.Client`` connected to the scheduler at ``address`` (``tcp://host:8786``),
    closed on exit; ClusterUnavailableError when the extra is missing or nothing answers within
    ``timeout_s`` seconds (default :data:`DEFAULT_TIMEOUT_S`)."""
    distributed = _distributed()
    wait = DEFAULT_TIMEOUT_S if timeout_s is None else timeout_s
    try:
        client = distributed.Client(address, timeout=wait, set_as_default=False)
    except (OSError, TimeoutError, ValueError, TypeError) as error:
        raise ClusterUnavailableError(
            f"no Dask scheduler answers at {address!r} ({type(error).__name__}: {error})",
            hint="start one (dask scheduler; dask worker ADDRESS) and pass the address it prints, "
            "e.g. --dask tcp://127.0.0.1:8786",
        ) from error
    try:
        yield client
    finally:
        client.close()


@contextmanager
def dask_executor(address: str, timeout_s: float | None = None) -> Iterator[Any]:
    """The ``concurrent.futures.Executor`` of a client connected to ``address``, for
    ``helia_aot.sweep(..., executor=...)``; the client is closed on exit."""
    with dask_client(address, timeout_s) as client:
        yield client.get_executor()


__all__ = ["DEFAULT_TIMEOUT_S", "INSTALL_HINT", "dask_client", "dask_executor"]
