"""``python -m helia_aot.cli``: the same command as the ``helia-aot`` console script."""

from helia_aot.cli import main

main()
