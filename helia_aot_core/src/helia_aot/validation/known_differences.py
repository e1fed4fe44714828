"""Why LiteRT's optimized interpreter gives other integer outputs than its reference kernels.

helia-aot's claim is bit-exactness with the reference kernels (``OpResolverType.BUILTIN_REF``).
What a user gets from ``Interpreter(model_path=...)`` is the default resolver: optimized kernels
plus the XNNPACK delegate, which computes some int8 operators with other rounding. The notes below
say which, from running every int8 and int16x8 model of the test corpus through both (ai-edge-litert
2.3.0, three samples each); a module that matches the reference differs from the optimized
interpreter exactly where the two interpreters differ from each other.
"""

from __future__ import annotations

from collections.abc import Iterable

_REQUANTIZE = (
    "the optimized path (XNNPACK) requantizes its accumulators in float32 where the reference uses "
    "an integer multiplier and shift, so a value on a rounding boundary can land one step away: "
    "expect an off-by-one in a few elements"
)

KNOWN_DIFFERENCES: dict[str, str] = {
    "CONV_2D": _REQUANTIZE,
    "DEPTHWISE_CONV_2D": _REQUANTIZE,
    "TRANSPOSE_CONV": _REQUANTIZE,
    "MUL": "the optimized kernel rescales the product with other rounding: expect an off-by-one",
    "LEAKY_RELU": "the optimized kernel rescales both slopes with other rounding: expect an off-by-one",
    "HARD_SWISH": "the optimized kernel's fixed-point steps round differently: expect an off-by-one",
    "RESIZE_BILINEAR": "the optimized kernel interpolates with other rounding: expect an off-by-one",
}
"""Operator (LiteRT name) -> why its optimized int8 output can differ from the reference's (with
the default XNNPACK delegate; without it, FULLY_CONNECTED also rounds one step away at times)."""

REFERENCE_BUGS: dict[str, str] = {
    "SUM": (
        "LiteRT's reference int8 SUM kernel reads the signed values as unsigned (LiteRT issue "
        "#4079), so its outputs are off by up to a hundred steps or more; the module computes the "
        "exactly requantized sum, which the optimized column matches within a step: a mismatch "
        "against the reference on an int8 SUM is the reference's"
    ),
}
"""Operator -> a known fault of LiteRT's reference kernel that a correct module cannot match."""

COMPOUNDING = (
    "a step of difference early in a network changes what later layers see, so the last output "
    "can differ by a few steps (the corpus's ResNet-8: 5)"
)
"""Why a deep model differs by more than one step although each operator differs by one."""

FLOAT_NOTE = (
    "float outputs: the optimized kernels and XNNPACK sum in another order (and may fuse multiply-"
    "adds), so float values differ from the reference in their last bits; the module is checked "
    "against the reference within test.tolerance"
)


def known_differences(operators: Iterable[str]) -> list[tuple[str, str]]:
    """The ``(operator, note)`` pairs of the known differences among ``operators`` (LiteRT names),
    each operator once, in the order of :data:`KNOWN_DIFFERENCES`."""
    present = set(operators)
    return [(op, note) for op, note in KNOWN_DIFFERENCES.items() if op in present]


def reference_bugs(operators: Iterable[str]) -> list[tuple[str, str]]:
    """The ``(operator, note)`` pairs of :data:`REFERENCE_BUGS` among ``operators``."""
    present = set(operators)
    return [(op, note) for op, note in REFERENCE_BUGS.items() if op in present]


__all__ = [
    "COMPOUNDING",
    "FLOAT_NOTE",
    "KNOWN_DIFFERENCES",
    "REFERENCE_BUGS",
    "known_differences",
    "reference_bugs",
]
