"""``python -m gapgrid ...``: the same command line as ``gapgrid ...``."""

from gapgrid.api.cli import run

if __name__ == "__main__":
    run()
