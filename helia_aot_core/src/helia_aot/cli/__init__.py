"""The ``helia-aot`` command line: a thin layer over ConvertArgs and AotConverter."""

from helia_aot.cli.app import app, core_version, main

__all__ = ["app", "core_version", "main"]
