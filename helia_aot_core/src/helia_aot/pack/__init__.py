"""The authoring surface of an operator pack: every name a pack needs beyond the API manifest.

A pack imports the manifest's names where the manifest lists them (``AotOperator`` and
``OperatorAttributes`` from ``helia_aot.aot.operators``, ``AirOperator``, ``AirOperatorOptions``
and ``custom_code_to_op_key`` from ``helia_aot.air``, ``RegistryContext`` from
``helia_aot.registry``, errors from ``helia_aot.errors``) and everything else from here:

- :class:`OperatorRecord` and :func:`register_operators`: what a pack registers for one operator
  (key, LiteRT keys, parser, options class, operator class, kernel files and the
  :class:`Arity`, how many inputs and outputs its LiteRT kernel accepts, which Load checks before
  the parser reads a node) and the function that
  registers a list of them from the ``helia_aot_register`` hook or a customizer;
  :func:`register_operator_modules` registers the records of every module of a package, each
  module imported only when a conversion first looks up one of its keys;
- :class:`TemplateOperator`, the operator base class that renders Mako templates inside the core's
  header/source frame and copies kernel files, and :class:`KernelLibrary`, a folder of ``hk_*``
  kernel families;
- :func:`register_knob_values`, which makes a knob (``kernel``, ``accumulation``) reach the
  pack's operator type, whose kernel variants the resolved value then picks;
- ``hookimpl``, which marks the hook;
- the code-generation helpers (``render_template`` and the C literal formatters);
- the LiteRT accessors a parser reads a node through, the LiteRT object-API module (``litert``)
  and ``LiteRTModelBuilder``, which writes models for a pack's examples and tests;
- :class:`LiteRTParser` and :class:`LiteRTModelHook`, the types of a parser and of a model hook
  (a parser annotated ``(op_id: int, model: litert.ModelT, subgraph: litert.SubGraphT,
  air_model: AirModel) -> AirOperator`` is one, and a type checker checks what it reads).

The surface is provisional like the operator classes: pin the ``helia-aot-core`` release a pack is
tested with. docs/plugin-author-guide.md shows it in use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from helia_aot.codegen import c_bool, c_float, c_float_list, c_hex_bytes, c_int_list, render_template
from helia_aot.converters.litert.parser_types import LiteRTModelHook, LiteRTParser
from helia_aot.converters.litert.schema_access import (
    builtin_options_of,
    custom_options_of,
    input_ids_of,
    input_tensor,
    inputs_of,
    int_list,
    operator_at,
    output_ids_of,
    output_tensor,
    outputs_of,
    tensor_at,
)
from helia_aot.converters.litert.view import Arity
from helia_aot.lazy_names import WHOLE_MODULE, lazy_names
from helia_aot.pack.deferred import register_operator_modules
from helia_aot.pack.kernel_library import KernelLibrary
from helia_aot.pack.knob_support import register_knob_values
from helia_aot.pack.record import OperatorRecord, recorded_operators, register_operators
from helia_aot.pack.template_operator import HEADER_TEMPLATE, TemplateOperator
from helia_aot.plugins import hookimpl

if TYPE_CHECKING:  # the real names for type checkers; at run time __getattr__ imports them on use
    from helia_aot.litert import schema_py_generated as litert
    from helia_aot.litert.builder import LiteRTModelBuilder

__all__ = [
    "HEADER_TEMPLATE",
    "Arity",
    "KernelLibrary",
    "LiteRTModelBuilder",
    "LiteRTModelHook",
    "LiteRTParser",
    "OperatorRecord",
    "TemplateOperator",
    "builtin_options_of",
    "c_bool",
    "c_float",
    "c_float_list",
    "c_hex_bytes",
    "c_int_list",
    "custom_options_of",
    "hookimpl",
    "input_ids_of",
    "input_tensor",
    "inputs_of",
    "int_list",
    "litert",
    "operator_at",
    "output_ids_of",
    "output_tensor",
    "outputs_of",
    "recorded_operators",
    "register_knob_values",
    "register_operator_modules",
    "register_operators",
    "render_template",
    "tensor_at",
]


# The model builder is for a pack's examples and tests, not for a conversion: every conversion
# imports this module (the packs' operator modules do), so the builder and its dataclasses wait for
# first use, and so do the flatc bindings (1 MB of bytecode; a conversion reads models without them).
__getattr__, __dir__ = lazy_names(
    __name__,
    {
        "LiteRTModelBuilder": ("helia_aot.litert.builder", "LiteRTModelBuilder"),
        "litert": ("helia_aot.litert.schema_py_generated", WHOLE_MODULE),
    },
    globals(),
)
