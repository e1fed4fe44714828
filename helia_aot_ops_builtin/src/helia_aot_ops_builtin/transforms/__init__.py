"""Graph transforms the built-in pack registers (run by the core's transform stage, by ``ORDER``)."""
