"""The migrations, one module per schema revision, oldest first (``0001``, ``0002``, ...)."""
