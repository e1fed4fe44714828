"""BuiltinOperator: an AotOperator that renders a Mako template and calls the C kernel library.

A built-in operator declares the kernel families it calls (``KERNELS``) and the template of its
``.c`` file (``TEMPLATE``, in this package's ``templates/``). The template inherits
``_operator.c.mako``, which writes the includes; the operator's ``compute_values`` supplies the
numbers. Op modules under ``ops/`` end with ``REGISTRATIONS``, which the plugin collects.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from helia_aot.air import AirTensor, c_comment
from helia_aot.aot.operators import AotOperator
from helia_aot.codegen import c_bool, c_float, c_float_list, c_int_list, render_template

from helia_aot_ops_builtin import kernels

TEMPLATE_DIR = Path(__file__).resolve().parent / "templates"


@dataclass(frozen=True, slots=True)
class OpRegistration:
    """One operator type: its key, parser, options class and operator class.

    ``parser_keys`` are the LiteRT keys the parser handles (default: ``key`` alone), for builtins
    that several LiteRT codes lower into.
    """

    key: str
    parser: Callable[..., Any]
    options: type | None
    operator: type[AotOperator]
    parser_keys: tuple[str, ...] = ()

    @property
    def litert_keys(self) -> tuple[str, ...]:
        return self.parser_keys or (self.key,)


class BuiltinOperator(AotOperator):
    """Base of every built-in operator: template emission over the shared kernel library."""

    KERNELS: tuple[str, ...] = ()
    """Kernel families (``kernels/hk_<family>.h``) the emitted C calls."""
    TEMPLATE: str | None = None
    """Mako template of the operator's ``.c`` file, in ``helia_aot_ops_builtin/templates``."""
    TEMPLATE_DIRS: Sequence[Path] = (TEMPLATE_DIR,)

    @property
    def has_init(self) -> bool:
        return False

    def kernel_families(self) -> tuple[str, ...]:
        """Families this instance calls; override when they depend on dtype."""
        return self.KERNELS

    def kernel_sources(self) -> list[Path]:
        return kernels.kernel_sources(*self.kernel_families())

    def kernel_calls(self) -> dict[str, str] | None:
        return {}

    # -- template helpers ----------------------------------------------------------------------
    def ptr(self, tensor: AirTensor, *, const: bool = False, ctype: str | None = None) -> str:
        """A typed C expression for ``tensor``'s data: ``(const int8_t *)ctx->tensor_ptrs[...]``."""
        qualifier = "const " if const else ""
        return f"({qualifier}{ctype or tensor.ctype} *)ctx->tensor_ptrs[{self.tensor_enum(tensor)}]"

    def template_values(self) -> dict[str, Any]:
        """Standard values every built-in template sees, plus ``compute_values()``."""
        families = self.kernel_families()
        values: dict[str, Any] = {
            "op": self,
            "prefix": self.prefix,
            "stem": self.stem,
            "k": f"{self.prefix}_hk_",
            "kernel_headers": [f"{self.prefix}_hk_{f}.h" for f in families],
            "comment": c_comment(f"{self.op.op_type} operator {self.op.id}"),
            "ptr": self.ptr,
            "cf": c_float,
            "cfl": c_float_list,
            "cil": c_int_list,
            "cb": c_bool,
            "has_init": self.has_init,
        }
        values.update(self.compute_values())
        return values

    def emit(self, save_path: Path) -> None:
        if self.TEMPLATE is None:
            raise NotImplementedError(f"{type(self).__name__} sets no TEMPLATE")
        values = self.template_values()
        header = render_template("_operator.h.mako", self.TEMPLATE_DIRS, **values)
        source = render_template(self.TEMPLATE, self.TEMPLATE_DIRS, **values)
        (save_path / "includes-api" / f"{self.stem}.h").write_text(header, encoding="utf-8", newline="\n")
        (save_path / "src" / f"{self.stem}.c").write_text(source, encoding="utf-8", newline="\n")
