"""``python -m helia_aot``: the ``helia-aot`` command, with the same output and exit codes."""

from helia_aot.cli import main

main()
