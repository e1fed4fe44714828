"""Code generation helpers shared by the core and operator packs: templates and C literals."""

from helia_aot.codegen.cformat import c_bool, c_float, c_float_list, c_hex_bytes, c_int_list
from helia_aot.codegen.templates import TemplateRenderer, render_template

__all__ = [
    "TemplateRenderer",
    "c_bool",
    "c_float",
    "c_float_list",
    "c_hex_bytes",
    "c_int_list",
    "render_template",
]
