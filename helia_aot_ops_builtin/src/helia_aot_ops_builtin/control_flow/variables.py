"""READ_VARIABLE and ASSIGN_VARIABLE: copies out of and into a variable's persistent storage.

By the time a parser sees them, the resource-variable hook (``resource_variables.py``) has turned
each variable into a persistent tensor (LiteRT ``is_variable``), so READ_VARIABLE reads that
tensor into its output and ASSIGN_VARIABLE (inputs: the variable, the value; no outputs) writes
the value over it. LiteRT's kernels copy the bytes (ASSIGN_VARIABLE keeps the variable's size and
type, READ_VARIABLE hands out the stored value), so both are a byte copy here.

A READ's output may also share the variable's storage (no copy at all) when nothing can change
the variable while the output is live: the FOLD_INVARIANT_VARIABLES transform and the planner use
:func:`read_may_alias` for that.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from helia_aot.air import AirModel, AirTensorKind
from helia_aot.pack import OperatorRecord

from helia_aot_ops_builtin.common.base import KERNEL_STATUS_BASE, BuiltinOperator
from helia_aot_ops_builtin.common.parsing import simple_parser
from helia_aot_ops_builtin.data_movement.movers import ANY_DTYPE

READ_VARIABLE = "READ_VARIABLE"
ASSIGN_VARIABLE = "ASSIGN_VARIABLE"

SAME_BYTES = "The value must have the variable's element type and number of elements."
IS_STATE = "The variable must be persistent state: a resource variable (VAR_HANDLE) or a variable tensor."

parse_read_variable = simple_parser(READ_VARIABLE)
parse_assign_variable = simple_parser(ASSIGN_VARIABLE)


def _same_bytes(variable: Any, value: Any) -> list[str]:
    if variable.dtype != value.dtype or variable.size != value.size:
        return [
            f"the variable {variable.source_name or variable.name!r} holds {variable.dtype}"
            f"[{variable.size}] but the value {value.source_name or value.name!r} is "
            f"{value.dtype}[{value.size}]"
        ]
    return []


class _VariableCopy(BuiltinOperator):
    SUPPORTED_DTYPES = ANY_DTYPE
    KERNELS = ("copy",)
    TEMPLATE = "reshape.c.mako"
    MOVES_DATA_ONLY = True

    def kernel_calls(self) -> dict[str, str]:
        return {"copy": "hk_copy_bytes"}

    def endpoints(self) -> tuple[Any, Any]:
        """(source, destination) tensors of the copy."""
        raise NotImplementedError

    def check(self) -> Iterable[str]:
        variable = self.input_tensors[0]
        problems = []
        if variable.kind is not AirTensorKind.PERSISTENT:
            problems.append(f"input 0 ({variable.source_name or variable.name!r}) is not persistent state")
        source, target = self.endpoints()
        return problems + _same_bytes(variable, target if source is variable else source)

    def compute_values(self) -> dict[str, Any]:
        source, target = self.endpoints()
        return {
            "src": f"ctx->tensor_ptrs[{self.tensor_enum(source)}]",
            "dst": f"ctx->tensor_ptrs[{self.tensor_enum(target)}]",
            "nbytes": target.nbytes,
            "status_base": KERNEL_STATUS_BASE,
        }


class ReadVariableOperator(_VariableCopy):
    """READ_VARIABLE: the variable's current value into the output (nothing moves when the
    planner gave the output the variable's storage)."""

    TYPE = READ_VARIABLE
    RESTRICTIONS = (IS_STATE, SAME_BYTES)

    def endpoints(self) -> tuple[Any, Any]:
        return self.input_tensors[0], self.output_tensors[0]


class AssignVariableOperator(_VariableCopy):
    """ASSIGN_VARIABLE: the value (input 1) over the variable (input 0); it persists to the next run."""

    TYPE = ASSIGN_VARIABLE
    RESTRICTIONS = (IS_STATE, SAME_BYTES)

    def endpoints(self) -> tuple[Any, Any]:
        return self.input_tensors[1], self.input_tensors[0]


def assigned_variables(model: AirModel) -> set[str]:
    """Ids of the tensors some ASSIGN_VARIABLE writes."""
    return {op.input_ids[0] for op in model.operators if op.op_type == ASSIGN_VARIABLE and op.input_ids}


REGISTRATIONS = [
    OperatorRecord(READ_VARIABLE, parse_read_variable, None, ReadVariableOperator),
    OperatorRecord(ASSIGN_VARIABLE, parse_assign_variable, None, AssignVariableOperator),
]
