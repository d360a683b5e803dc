"""The ``cardenvs`` command (``cardenvs --help``)."""
