"""CAST: every element converted to the output's type, as LiteRT's reference ``static_cast`` does.

Between bool, int8, uint8, int16, int32, int64 and float32 (every pair LiteRT's reference kernel
has among the types this pack stores): narrowing integers keep the low bits, anything to bool is
``value != 0``, bool to a number is 0 or 1, float32 to an integer truncates towards zero, integers
to float32 round to nearest. One kernel (``hk_cast``) serves every pair, switching on type codes
fixed at conversion, since a cast is a single memory pass whose cost is the loads and stores.
Quantization parameters play no part: CAST converts stored values, never real ones.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from helia_aot.air import AirTensor, AirTensorType
from helia_aot.pack import Arity, OperatorRecord

from helia_aot_ops_builtin.common.base import label
from helia_aot_ops_builtin.common.kernel_call import KernelCall, KernelCallOperator
from helia_aot_ops_builtin.common.parsing import simple_parser

CAST_CODES = {
    AirTensorType.BOOL: 0,
    AirTensorType.INT8: 1,
    AirTensorType.UINT8: 2,
    AirTensorType.INT16: 3,
    AirTensorType.INT32: 4,
    AirTensorType.INT64: 5,
    AirTensorType.FLOAT32: 6,
}
"""``hk_cast_type_t`` of each element type the kernel converts."""

CAST_TYPES = "The input and output must be bool, int8, uint8, int16, int32, int64 or float32."
SAME_SIZE = "The input and output must have the same number of elements."

parse_cast = simple_parser("CAST")


class CastOperator(KernelCallOperator):
    """CAST: a type conversion of stored values, element by element."""

    TYPE = "CAST"
    KERNELS = ("cast",)
    SUPPORTED_DTYPES = (np.bool_, np.int8, np.uint8, np.int16, np.int32, np.int64, np.float32)
    RESTRICTIONS = (CAST_TYPES, SAME_SIZE)

    @property
    def source(self) -> AirTensor:
        return self.input_tensors[0]

    @property
    def target(self) -> AirTensor:
        return self.output_tensors[0]

    def check(self) -> Iterable[str]:
        if len(self.input_tensors) != 1 or len(self.output_tensors) != 1:
            return [
                f"expects 1 input and 1 output, has {len(self.input_tensors)} and {len(self.output_tensors)}"
            ]
        problems = [
            f"the {role} {label(t)} is {t.dtype}; CAST converts bool, int8, uint8, int16, int32, "
            "int64 and float32"
            for role, t in (("input", self.source), ("output", self.target))
            if t.dtype not in CAST_CODES
        ]
        if self.source.size != self.target.size:
            problems.append(f"the input has {self.source.size} elements but the output {self.target.size}")
        return problems

    def kernel(self) -> KernelCall:
        src, dst = self.source, self.target
        return KernelCall(
            "cast",
            [f"(const void *){self.ptr(src, const=True)}", f"(void *){self.ptr(dst)}"],
            "cast_params_t",
            {"size": dst.size, "from": CAST_CODES[src.dtype], "to": CAST_CODES[dst.dtype]},
        )


REGISTRATIONS = [OperatorRecord("CAST", parse_cast, None, CastOperator, arity=Arity(1, 1))]
