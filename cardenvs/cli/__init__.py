"""The ``cardenvs`` command (``cardenvs --help``): ``main`` parses and dispatches; one module
per command family (``catalog``: list and rules, ``play`` with the person's ``console``,
``evaluate``, ``warmup``, ``soak``, ``train``); ``common`` holds what they share."""
