"""Float16 support shared by the built-in operators: the restriction sentence and kernel naming.

Float16 operators run the ``*_f16`` kernel families (``_Float16`` arithmetic; Helium f16 vectors
on the Cortex-M55). Every built-in operator declares that float16 needs the FP16 platform
capability (``BuiltinOperator.DTYPE_PLATFORM_CAPABILITIES``), and the core's Resolve stage
refuses a declared need the platform lacks (``helia_aot.pipeline.resolve.capability_problem``),
naming the platforms that have it; this sentence is what each operator's RESTRICTIONS says.
docs/float16.md states the arithmetic and the tolerance the tests hold it to.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from helia_aot.air import AirTensor

FLOAT16_RESTRICTION = (
    "float16: every operand (activations, weights, bias) float16, on an FP16-capable platform "
    "(Cortex-M55, e.g. apollo510_evb)."
)


def is_half(tensor: AirTensor) -> bool:
    """Whether ``tensor`` holds float16 elements."""
    return tensor.dtype.numpy == np.dtype(np.float16)


F16_ACCUMULATION = ("precise", "fast")
"""The ``accumulation`` values float16 CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED offer,
preferred first: ``precise`` sums the exact float16 products in float on every core; ``fast``
(approximate: only with ``optimization.allow_approximate``) keeps float16 partial sums in
Helium's eight f16 lanes (vfmaq_f16), and sums in float on a core without MVE-F."""


def f16_accumulation_fields(op: Any) -> list[tuple[str, str]]:
    """The params field that makes the kernel run what the plan records for ``accumulation``."""
    return [("fast_accumulation", "true" if op.knob("accumulation", "precise") == "fast" else "false")]
