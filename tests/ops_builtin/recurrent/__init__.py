"""Tests of the recurrent family: LSTM, GRU, RNN and SVDF."""
