"""gapgrid's interfaces: the ``gapgrid`` command line, the Flask puzzle API, and PySolFC."""
