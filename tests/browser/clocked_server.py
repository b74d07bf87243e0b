"""The real app under the real waitress server (:func:`gapgrid.api.server.build_server`),
on a clock the browser tests move: ``python -m tests.browser.clocked_server PORT FILE``.

The clock is the UTC time written in FILE (ISO 8601), moving on in real time from the
moment it was written: the only way to have a server whose day ends on demand (midnight,
a game's late hour) while a page is open. The app takes the clock as the API tests give
it theirs; everything else is ``gapgrid serve``'s, from the environment.
"""

from __future__ import annotations

import datetime
import os
import sys
from pathlib import Path

from gapgrid.api.app import create_app
from gapgrid.api.config import Settings
from gapgrid.api.server import build_server


def file_clock(path: Path) -> datetime.datetime:
    """The time set in ``path``, plus the real time since it was set (the text and its time
    read from one open file: a new one put in its place meanwhile is not half read)."""
    with path.open() as written:
        set_when = os.fstat(written.fileno()).st_mtime
        set_at = datetime.datetime.fromisoformat(written.read().strip())
    since = datetime.datetime.now(datetime.UTC).timestamp() - set_when
    return set_at + datetime.timedelta(seconds=since)


def main() -> None:
    """Serve on 127.0.0.1:PORT until stopped."""
    port, path = int(sys.argv[1]), Path(sys.argv[2])
    settings = Settings.from_environment(create_secret=True)
    app = create_app(settings, clock=lambda: file_clock(path))
    build_server(app, settings, host="127.0.0.1", port=port, threads=8).run()


if __name__ == "__main__":
    main()
