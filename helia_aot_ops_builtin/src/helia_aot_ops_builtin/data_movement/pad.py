"""PAD and PADV2: the input surrounded by a constant value.

The output is first filled with the pad value (``hk_fill_pattern``), then the input is copied
into its interior with one ``hk_strided_copy``. The pad value follows LiteRT: PAD uses 0 for
float tensors and the output zero point for quantized ones; PADV2 uses its ``constant_values``
input, which LiteRT requires to share the output's quantization; the kernel reads that value
from the tensor's storage, whether it is a constant or computed at run time.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from helia_aot.air import AirOpType, AirTensor
from helia_aot.pack import Arity, OperatorRecord

from helia_aot_ops_builtin.common.parsing import simple_parser
from helia_aot_ops_builtin.data_movement.layout import embed_copy
from helia_aot_ops_builtin.data_movement.movers import (
    SAME_QUANTIZATION,
    CopyPlanOperator,
    CopyStep,
    FillStep,
    constant_ints,
)

parse_pad = simple_parser(AirOpType.PAD.value)
parse_padv2 = simple_parser(AirOpType.PADV2.value)


class PadOperator(CopyPlanOperator):
    """PAD: fill with zero (the output zero point when quantized), copy the input inside."""

    TYPE = AirOpType.PAD.value
    RESTRICTIONS: tuple[str, ...] = (
        SAME_QUANTIZATION,
        "The paddings must be a constant [rank, 2] tensor of non-negative values.",
    )

    def paddings(self) -> list[tuple[int, int]]:
        values = constant_ints(self.input_or_none(1), "paddings")
        rank = len(self.input_tensors[0].shape)
        if len(values) != 2 * rank:
            raise ValueError(f"the paddings hold {len(values)} values, not 2 x rank {rank}")
        pairs = [(values[2 * k], values[2 * k + 1]) for k in range(rank)]
        if any(a < 0 or b < 0 for a, b in pairs):
            raise ValueError(f"paddings {pairs} include a negative value")
        return pairs

    def geometry_problems(self) -> Iterable[str]:
        try:
            pairs = self.paddings()
        except ValueError as exc:
            yield str(exc)
            return
        shape = self.input_tensors[0].shape
        target = self.output_tensors[0]
        expected = tuple(d + a + b for d, (a, b) in zip(shape, pairs))
        if tuple(target.shape) != expected:
            yield f"the output shape {target.shape} is not the padded {expected}"
        if target.dtype.is_integer and self.pad_value_tensor() is None:
            info = np.iinfo(target.dtype.numpy)
            if not info.min <= target.zero_point() <= info.max:
                yield f"the output zero point {target.zero_point()} does not fit {target.dtype}"

    def pad_value_tensor(self) -> AirTensor | None:
        return None

    def fill_step(self) -> FillStep | None:
        source, target = self.input_tensors[0], self.output_tensors[0]
        if target.size == source.size:
            return None  # nothing to pad: the copy writes every element
        value_tensor = self.pad_value_tensor()
        if value_tensor is None:
            return FillStep(target, value=np.asarray(target.zero_point()))
        # Read from the tensor's own storage, constant or not: any value (NaN included) and
        # any element type is then passed through bit for bit.
        return FillStep(target, source=value_tensor)

    def copy_steps(self) -> list[CopyStep]:
        source, target = self.input_tensors[0], self.output_tensors[0]
        starts = [a for a, _ in self.paddings()]
        return [CopyStep(source, target, embed_copy(source.shape, target.shape, starts))]


class PadV2Operator(PadOperator):
    """PADV2: as PAD, with the pad value from the ``constant_values`` input."""

    TYPE = AirOpType.PADV2.value
    RESTRICTIONS = PadOperator.RESTRICTIONS + ("constant_values must hold one element of the input's type.",)

    def pad_value_tensor(self) -> AirTensor | None:
        return self.input_or_none(2)

    def data_tensors(self) -> list[AirTensor]:
        tensors = super().data_tensors()
        value = self.pad_value_tensor()
        return tensors + ([value] if value is not None else [])

    def geometry_problems(self) -> Iterable[str]:
        yield from super().geometry_problems()
        value = self.pad_value_tensor()
        if value is not None and value.size != 1:
            yield f"constant_values holds {value.size} elements, not 1"


REGISTRATIONS = [
    OperatorRecord(AirOpType.PAD.value, parse_pad, None, PadOperator, arity=Arity(2, 2)),
    OperatorRecord(AirOpType.PADV2.value, parse_padv2, None, PadV2Operator, arity=Arity(2, 3, optional=(2,))),
]
