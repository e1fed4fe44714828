"""AOT lowering: operator classes and their plugin surface."""
