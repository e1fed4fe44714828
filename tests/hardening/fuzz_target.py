"""Running one mutated model through the whole conversion and classifying what happened.

The contract under test: a conversion either writes a module or raises a typed
:class:`~helia_aot.errors.HeliaAotError` of an expected class with a non-empty message and its exit
code; anything else (a stray ``IndexError``, ``MemoryError``, a hang) is an *untyped* failure.
"""

from __future__ import annotations

import os
import tempfile
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from helia_aot import AotConverter, ConvertArgs
from helia_aot.errors import (
    ConfigValueError,
    HeliaAotError,
    InvalidConfigError,
    MissingQuantizationError,
    ModelLoadError,
    UnsupportedModelError,
)

EXPECTED_ERRORS = (
    ModelLoadError,
    UnsupportedModelError,
    MissingQuantizationError,
    InvalidConfigError,
    ConfigValueError,
)
"""Typed errors a hostile model may legitimately end in: a malformed file (ModelLoadError), a
well-formed model the compiler cannot convert (UnsupportedModelError, MissingQuantizationError,
ConfigValueError), or one too large for the target's memories (InvalidConfigError). Another typed
class (TemplateRenderError, OperatorOrderError, PluginError) means a stage broke on its input."""

TIME_LIMIT_S = 10.0
"""Bound on one case: a conversion of a corpus-sized model that takes longer than this has hung."""


@dataclass(slots=True)
class Outcome:
    """How one case ended: ``status`` is ``ok``, ``typed`` or ``untyped``."""

    status: str
    error: str | None
    message: str
    seconds: float
    trace: str = ""

    @property
    def acceptable(self) -> bool:
        return self.status in ("ok", "typed") and self.seconds <= TIME_LIMIT_S


def scratch_root() -> Path | None:
    """A RAM-backed folder for the many small module writes when there is one (far faster)."""
    shm = Path("/dev/shm")
    return shm if shm.is_dir() and os.access(shm, os.W_OK | os.X_OK) else None


def classify(exc: BaseException | None, seconds: float) -> Outcome:
    if exc is None:
        return Outcome("ok", None, "", seconds)
    if (
        isinstance(exc, EXPECTED_ERRORS)
        and isinstance(exc.exit_code, int)
        and exc.exit_code > 0
        and str(exc).strip()
    ):
        return Outcome("typed", type(exc).__name__, str(exc), seconds)
    trace = "".join(traceback.format_exception(exc))
    kind = type(exc).__name__ if not isinstance(exc, HeliaAotError) else f"{type(exc).__name__}(typed)"
    return Outcome("untyped", kind, str(exc), seconds, trace)


def run_case(data: bytes, workdir: Path, context: Any) -> Outcome:
    """Convert ``data`` as a model file in ``workdir`` (default target, no test case)."""
    model = workdir / "model.tflite"
    model.write_bytes(data)
    config = ConvertArgs.model_validate(
        {
            "model": {"path": str(model)},
            "module": {"path": str(workdir / "out"), "name": "module"},
            "force": True,
        }
    )
    start = time.perf_counter()
    try:
        AotConverter(config, context).convert()
    except Exception as exc:  # the point is to see every exception class a conversion can raise
        return classify(exc, time.perf_counter() - start)
    return classify(None, time.perf_counter() - start)


def new_workdir() -> Path:
    return Path(tempfile.mkdtemp(prefix="helia_fuzz_", dir=scratch_root()))


__all__ = [
    "EXPECTED_ERRORS",
    "Outcome",
    "TIME_LIMIT_S",
    "classify",
    "new_workdir",
    "run_case",
    "scratch_root",
]
