"""The recurrent family: LSTM, GRU, RNN and SVDF."""
