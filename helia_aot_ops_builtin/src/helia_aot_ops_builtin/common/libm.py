"""The C library's float functions (``expf``, ``tanhf``, ``logf``, ``erfcf``, ``expm1f``).

LiteRT's Prepare code calls the float overloads of ``std::exp``, ``std::log`` and friends, which
are the C library's ``expf``/``logf``; a table or a power-of-two test built from numpy's own
float32 functions can differ from them by an ulp, and then the module is not bit-exact. One
module holds them so the activation tables, the elementwise tables and ``checked_log2``
(quantization.py) call the same functions. Where no C library is reachable each falls back to
numpy's float32 function.
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import ctypes

F32 = np.float32


@functools.cache
def _load_libm() -> ctypes.CDLL | None:
    # On first use, not at import: find_library runs ``ldconfig -p`` in a child process, which
    # every conversion paid at start-up although few models have a table built from these.
    import ctypes
    import ctypes.util  # with it: ctypes.util imports subprocess, which a conversion does not need

    name = ctypes.util.find_library("m")
    try:
        lib = ctypes.CDLL(name) if name else ctypes.CDLL(None)
        for fn in ("expf", "tanhf", "logf", "erfcf", "expm1f"):
            getattr(lib, fn).restype = ctypes.c_float
            getattr(lib, fn).argtypes = [ctypes.c_float]
        return lib
    except (OSError, AttributeError):
        return None


def expf(x: float | np.float32) -> np.float32:
    """C ``expf`` (falls back to numpy's float32 exp where no C library is reachable)."""
    return F32(lib.expf(float(x))) if (lib := _load_libm()) else np.exp(F32(x))


def tanhf(x: float | np.float32) -> np.float32:
    """C ``tanhf``."""
    return F32(lib.tanhf(float(x))) if (lib := _load_libm()) else np.tanh(F32(x))


def logf(x: float | np.float32) -> np.float32:
    """C ``logf``."""
    return F32(lib.logf(float(x))) if (lib := _load_libm()) else np.log(F32(x))


def erfcf(x: float | np.float32) -> np.float32:
    """C ``erfcf`` (the float ``std::erfc`` LiteRT's GELU table calls)."""
    return F32(lib.erfcf(float(x))) if (lib := _load_libm()) else F32(math.erfc(float(F32(x))))


def expm1f(x: float | np.float32) -> np.float32:
    """C ``expm1f`` (the float ``std::expm1`` LiteRT's ELU table calls)."""
    return F32(lib.expm1f(float(x))) if (lib := _load_libm()) else F32(math.expm1(float(F32(x))))
