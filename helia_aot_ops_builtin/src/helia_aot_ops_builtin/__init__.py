"""helia-aot built-in operators: LiteRT parsers, operator classes, templates and C kernels.

Reaches the core only through the ``helia_aot`` entry point (``helia_aot_ops_builtin.plugin``).
"""

__version__ = "0.1.0"
