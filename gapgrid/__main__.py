"""``python -m gapgrid ...`` and the ``gapgrid`` command: the command line
(:mod:`gapgrid.api.cli`) loaded, then run.

Loading it takes a good part of a second (Flask, SQLAlchemy, the service layer); a
Ctrl-C in that time ends the command with status 130, as a Ctrl-C later does, rather
than with Python's traceback of the module being loaded.
"""

import signal
import sys

EXIT_INTERRUPTED = 128 + signal.SIGINT
"""128 plus SIGINT's number, as the command line exits after any other Ctrl-C
(``cli_support.EXIT_INTERRUPTED``, not imported here: that would load what it waits for)."""


def main() -> None:
    """Load the command line and run it."""
    try:
        from gapgrid.api.cli import run
    except KeyboardInterrupt:
        sys.exit(EXIT_INTERRUPTED)
    run()


if __name__ == "__main__":
    main()
