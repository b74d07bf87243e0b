"""gapgrid: the Montana family of solitaire games, as PySolFC deals them.

This module is the public face of gapgrid for plugin authors.
"""
