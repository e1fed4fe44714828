"""The six stages of a conversion, one module each: load, transform, resolve, plan, emit, export."""

STAGES = ("load", "transform", "resolve", "plan", "emit", "export")
