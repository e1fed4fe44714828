"""``helia-aot validate``: the module against LiteRT on a dataset, with error metrics per output.

:func:`validate` converts, runs the module (host, or a Cortex-M55 / M4 under QEMU) and both LiteRT
interpreters (reference kernels: the exactness claim; optimized: what ``Interpreter()`` gives) on
the user's samples or generated ones, and returns a :class:`ValidationReport`.
"""

from helia_aot.validation.inputs import InputSource, InputSpec
from helia_aot.validation.metrics import OutputMetrics
from helia_aot.validation.report import OutputResult, ValidationReport
from helia_aot.validation.run import DEFAULT_SAMPLES, TARGETS, validate

__all__ = [
    "DEFAULT_SAMPLES",
    "TARGETS",
    "InputSource",
    "InputSpec",
    "OutputMetrics",
    "OutputResult",
    "ValidationReport",
    "validate",
]
