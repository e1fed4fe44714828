"""Built-in operator modules; each ends with REGISTRATIONS (collected by the plugin)."""
