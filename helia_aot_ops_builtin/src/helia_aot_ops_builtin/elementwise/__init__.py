"""The elementwise family: binary and unary arithmetic, comparisons, logical operators, CAST."""
