"""TemplateOperator: an AotOperator whose C comes from Mako templates and a kernel library.

Most operators emit the same two files: a header declaring ``<stem>_run`` (and ``<stem>_init``
when the operator has one) inside an ``extern "C"`` guard, and a source that includes the module's
common header, its own header and the kernel headers it calls, then defines the run function. The
core owns that frame (``_operator.h.mako`` and ``_operator.c.mako`` in its templates), so an
operator supplies only the body: a ``TEMPLATE`` that inherits ``_operator.c.mako``, the folders
to find it in (``TEMPLATE_DIRS``) and the numbers it needs (``compute_values``). Kernel files come
from ``KERNEL_LIBRARY``, by family (``KERNELS``). The built-in operators and third-party packs
derive from this one class, so neither re-implements emission.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from helia_aot.air import AirTensor, c_comment
from helia_aot.aot.operators import AotOperator
from helia_aot.codegen import c_bool, c_float, c_float_list, c_int_list, render_template
from helia_aot.codegen.files import write_text_file
from helia_aot.pack.kernel_library import KernelLibrary

HEADER_TEMPLATE = "_operator.h.mako"
"""The core template of every TemplateOperator's header (its ``.c`` template inherits
``_operator.c.mako``)."""


_STEM = "\0stem\0"
_COMMENT = "\0comment\0"
_FRAMES: dict[tuple[tuple[str, ...], str, bool], str | None] = {}
"""The core header rendered once per template folders, prefix and ``has_init``, with
placeholders for the two values that differ between operators (None: a folder overrides it)."""


def operator_header(directories: Sequence[Path], values: dict[str, Any]) -> str:
    """``HEADER_TEMPLATE`` rendered with ``values``: the same text as ``render_template`` gives.

    The core's header reads only ``prefix``, ``has_init``, ``stem`` and ``comment``; a module of a
    thousand operators rendered it a thousand times through Mako for texts that differ in the last
    two alone. So it is rendered once per ``(prefix, has_init)`` with placeholders, which each
    operator's stem and comment then replace. A pack whose ``TEMPLATE_DIRS`` holds its own
    ``_operator.h.mako``, or values that are not one printable line each (the placeholders
    would not stand for them through the template's line clean-up), get a full render.
    """
    stem, comment = values.get("stem"), values.get("comment")
    if not (
        isinstance(stem, str) and isinstance(comment, str) and stem.isprintable() and comment.isprintable()
    ):
        return render_template(HEADER_TEMPLATE, directories, **values)
    key = (tuple(str(d) for d in directories), str(values.get("prefix")), bool(values.get("has_init")))
    if key not in _FRAMES:
        overridden = any(os.path.isfile(os.path.join(d, HEADER_TEMPLATE)) for d in key[0])
        _FRAMES[key] = (
            None
            if overridden
            else render_template(
                HEADER_TEMPLATE, directories, **{**values, "stem": _STEM, "comment": _COMMENT}
            )
        )
    frame = _FRAMES[key]
    if frame is None:
        return render_template(HEADER_TEMPLATE, directories, **values)
    return frame.replace(_STEM.upper(), stem.upper()).replace(_STEM, stem).replace(_COMMENT, comment)


class TemplateOperator(AotOperator):
    """An operator rendered from ``TEMPLATE`` over the standard values of :meth:`template_values`."""

    TEMPLATE: str | None = None
    """Mako template of the operator's ``.c`` file; it inherits ``_operator.c.mako``."""
    TEMPLATE_DIRS: Sequence[Path] = ()
    """Folders searched for templates, in order, before the core's."""
    KERNEL_LIBRARY: KernelLibrary | None = None
    """Where the families of ``KERNELS`` live."""
    KERNELS: tuple[str, ...] = ()
    """Kernel families (``hk_<family>.h`` in ``KERNEL_LIBRARY``) the emitted C calls."""

    @property
    def has_init(self) -> bool:
        """No ``<stem>_init`` by default: the frame declares one only when this is True."""
        return False

    def kernel_families(self) -> tuple[str, ...]:
        """Families this instance calls; override when they depend on dtype or options."""
        return self.KERNELS

    def kernel_sources(self) -> list[Path]:
        families = self.kernel_families()
        if not families:
            return []
        if self.KERNEL_LIBRARY is None:
            raise TypeError(
                f"{type(self).__name__} calls kernel families {families} but sets no KERNEL_LIBRARY"
            )
        return self.KERNEL_LIBRARY.sources(*families)

    def kernel_calls(self) -> dict[str, str] | None:
        return {}

    # -- template helpers ----------------------------------------------------------------------
    def comment(self) -> str:
        """The first line of both files; override to name your pack in it."""
        return f"{self.op.op_type} operator {self.op.id}"

    def ptr(self, tensor: AirTensor, *, const: bool = False, ctype: str | None = None) -> str:
        """A typed C expression for ``tensor``'s data: ``(const int8_t *)ctx->tensor_ptrs[...]``."""
        qualifier = "const " if const else ""
        return f"({qualifier}{ctype or tensor.ctype} *)ctx->tensor_ptrs[{self.tensor_enum(tensor)}]"

    def template_values(self) -> dict[str, Any]:
        """The values every template sees, then ``compute_values()`` (which may override them).

        ``op`` (this operator), ``prefix``, ``stem``, ``k`` (``<prefix>_hk_``, the kernel
        library's renamed prefix), ``kernel_headers``, ``comment``, ``code_placement`` (the ITCM
        macro and a space when the run code goes to ITCM, else empty), ``has_init``, ``ptr``
        (:meth:`ptr`) and the C literal helpers ``cf`` (float), ``cfl`` (float list), ``cil``
        (int list) and ``cb`` (bool).
        """
        families = self.kernel_families()
        values: dict[str, Any] = {
            "op": self,
            "prefix": self.prefix,
            "stem": self.stem,
            "k": f"{self.prefix}_hk_",
            "kernel_headers": [f"{self.prefix}_hk_{f}.h" for f in families],
            "comment": c_comment(self.comment()),
            "code_placement": f"{self.prefix.upper()}_PUT_CODE_IN_ITCM " if self.code_in_itcm else "",
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
        """Render ``includes-api/<stem>.h`` from the core frame and ``src/<stem>.c`` from TEMPLATE."""
        if self.TEMPLATE is None:
            raise NotImplementedError(f"{type(self).__name__} sets no TEMPLATE")
        values = self.template_values()
        header = operator_header(self.TEMPLATE_DIRS, values)
        source = render_template(self.TEMPLATE, self.TEMPLATE_DIRS, **values)
        stem = self.stem
        write_text_file(os.path.join(save_path, "includes-api", f"{stem}.h"), header)
        write_text_file(os.path.join(save_path, "src", f"{stem}.c"), source)
