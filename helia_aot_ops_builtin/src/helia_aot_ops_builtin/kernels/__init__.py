"""The C kernels (being moved into the family folders; see ``helia_aot_ops_builtin.families``)."""
