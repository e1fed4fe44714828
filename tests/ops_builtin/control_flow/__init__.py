"""Tests of the control flow family: IF, WHILE, resource variables and custom (Ethos-U) operators."""
