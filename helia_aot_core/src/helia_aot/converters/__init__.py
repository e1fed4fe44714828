"""Front ends that turn model files into AIR."""
