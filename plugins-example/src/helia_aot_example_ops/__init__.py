"""helia-aot-example-ops: a third-party operator pack for helia-aot.

Two LiteRT custom operators: ``custom-noop`` (``CUSTOM_NOOP``, the starter of the custom-operator
guide, on the ``helia_aot.pack`` surface) and ``example-gain-clip`` (``EXAMPLE_GAIN_CLIP``, a
saturating int8 gain-and-clip with FlexBuffers options, a required ``gain`` attribute and its own
C kernel). Both import only the API manifest's modules and ``helia_aot.pack``.
``override`` shows how to replace a built-in operator class deliberately.
"""

__version__ = "0.1.0"
