"""KernelCallOperator: the base of every built-in operator whose run is one kernel call with one
parameter struct (convolutions, fully connected, pooling, binary, reduction, (de)quantize, the
activations, softmax and the row normalizations, the recurrent cells and the index operators
among them).

The struct's values are computed once at conversion time, as LiteRT's Prepare computes them. The
operator describes its call as a :class:`KernelCall`; ``kernel_call.c.mako`` renders it. The
struct goes either into the operator's ``.c`` file as a ``static const`` designated initializer
(the default), or is built at the top of the run function (``params_in_run``: the convolution
family's templates copy and patch that local struct per row or band, and their fields point at
the operator's constant tables).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from helia_aot.air import AirTensor
from helia_aot.codegen import c_bool, c_float

from helia_aot_ops_builtin.common.base import KERNEL_STATUS_BASE, BuiltinOperator


def c_value(value: Any) -> str:
    """One initializer value: mappings become designated structs, sequences brace lists."""
    # Exact ints and strings (most fields) first, by type identity: a struct field spelled through
    # the isinstance chain below cost six calls (the Mapping check is an ABC's), and a 1x1
    # convolution has some fifty (tests/core/test_conversion_scaling.py counts them).
    kind = type(value)
    if kind is int:
        return str(value)
    if kind is str:
        return str(value)  # that same str, typed
    if isinstance(value, Mapping):
        return designated_init(value)
    if isinstance(value, (list, tuple)):
        return "{" + ", ".join([c_value(v) for v in value]) + "}"
    if isinstance(value, (bool, np.bool_)):
        return c_bool(bool(value))
    if isinstance(value, (float, np.floating)):
        return c_float(float(value))
    if isinstance(value, str):
        return value
    return str(int(value))


def designated_init(fields: Mapping[str, Any], *, multiline: bool = False) -> str:
    """``{.a = 1, .b = {.c = 2.0f}}`` for ``{"a": 1, "b": {"c": 2.0}}`` (floats as float32);
    ``multiline`` puts each top-level field on its own line."""
    items = [f".{name} = {c_value(value)}" for name, value in fields.items()]
    if multiline:
        return "{\n" + "".join(f"    {item},\n" for item in items) + "}"
    return "{" + ", ".join(items) + "}"


# Never compared or printed: no generated __eq__/__repr__ (each costs start-up time).
@dataclass(slots=True, eq=False, repr=False)
class CTable:
    """A ``static const`` array the operator's ``.c`` file defines (``<stem>_<name>``)."""

    name: str
    ctype: str
    values: list[str]
    comment: str


@dataclass(slots=True)
class KernelCall:
    """What the run function does: ``hk_<function>(&params, *leading_args, *data_args)``."""

    function: str
    """The kernel entry point without ``hk_``."""
    data_args: Sequence[str]
    params_type: str | None = None
    """The params struct type without ``hk_``; None for a kernel that takes no struct."""
    params: Mapping[str, Any] | str | None = None
    """Field -> value (see :func:`c_value`), in the struct's order; or the initializer already
    written (the activations' positional ``{...}``,
    :func:`helia_aot_ops_builtin.common.c_struct.struct_init`)."""
    leading_args: Sequence[str] = field(default_factory=tuple)
    """Arguments between the struct and the data pointers (an element count, a table)."""
    tables: Sequence[CTable] = field(default_factory=tuple)
    """Constant arrays the fields point at (:meth:`KernelCallOperator.table_ref`)."""
    params_in_run: bool = False
    """Build the struct as a local of the run function instead of a ``static const``."""
    includes: Sequence[str] = field(default_factory=tuple)
    """System headers the ``.c`` file includes (``math.h`` for an ``INFINITY`` field)."""


class KernelCallOperator(BuiltinOperator):
    """A built-in operator rendered as one kernel call with conversion-time parameters.

    Subclasses implement :meth:`kernel`. ``kernel_calls`` (the records' kernel per role) names
    :meth:`kernel_function` under :meth:`call_role`; an operator whose entry point is cheaper to
    name than its whole call is to build overrides :meth:`kernel_function`.
    """

    TEMPLATE = "kernel_call.c.mako"
    PARAMS_COMMENT = "{op_type} parameters, as LiteRT's Prepare computes them"
    """The comment above a ``static const`` struct."""

    def kernel(self) -> KernelCall:
        """The call to emit; only called after ``check`` passed."""
        raise NotImplementedError

    def kernel_function(self) -> str:
        """The kernel entry point without ``hk_``."""
        return self.kernel().function

    def call_role(self) -> str:
        """The key of the call in ``kernel_calls``: the operator's first kernel family."""
        return self.kernel_families()[0]

    def kernel_calls(self) -> dict[str, str]:
        return {self.call_role(): "hk_" + self.kernel_function()}

    def compute_values(self) -> dict[str, Any]:
        """The template's values. ``args`` are the arguments after the struct; ``fields`` the
        struct's (name, C value) pairs when it is built in the run function, else None."""
        call = self.kernel()
        fields: list[tuple[str, str]] | None = None
        static: str | None = None
        if isinstance(call.params, str):
            static = call.params
        elif call.params is not None and call.params_in_run:
            fields = [(name, c_value(value)) for name, value in call.params.items()]
        elif call.params is not None:
            static = designated_init(call.params, multiline=True)
        return {
            "function": call.function,
            "params_type": call.params_type,
            "fields": fields,
            "params": static,
            "params_comment": self.PARAMS_COMMENT.format(op_type=self.op.op_type),
            "args": [*call.leading_args, *call.data_args],
            "tables": list(call.tables),
            "includes": list(call.includes),
            "status_base": KERNEL_STATUS_BASE,
        }

    def table_ref(self, table: CTable) -> str:
        return f"{self.stem}_{table.name}"

    def data_ptr(self, tensor: AirTensor | None, *, const: bool = True) -> str:
        """A kernel data argument: the tensor's pointer, or NULL for an absent optional input."""
        return "NULL" if tensor is None else self.ptr(tensor, const=const)
