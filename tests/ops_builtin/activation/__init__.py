"""Tests of the activation family: activations, their lookup tables, SOFTMAX and the row
normalizations."""
