"""Alembic's environment: runs the migrations on the connection :mod:`..engine` hands it.

gapgrid never lets Alembic open a database of its own: :func:`..engine.upgrade`
opens the transaction (and, on PostgreSQL, takes the advisory lock) and
passes its connection in ``config.attributes["connection"]``, so the whole
upgrade is one transaction under that lock.
"""

from __future__ import annotations

from alembic import context

from gapgrid.api.db.schema import metadata

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata,
                  render_as_batch=True)  # SQLite alters tables by copying them
with context.begin_transaction():  # the caller's transaction: nothing is begun here
    context.run_migrations()
