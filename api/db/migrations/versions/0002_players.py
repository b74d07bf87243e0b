"""Players own their names (schema version 4): ``players`` keeps each name under its key
(the rule of :mod:`gapgrid.api.names`: ``Bob``, ``bob`` and ``Ｂob`` share one), the name
as first registered and the SHA-256 digest of the player's token.

Upgrading gives each submission's player its key under that rule and
registers every name found, as first submitted, with no token: the first
later submission under such a name (or ``POST /v1/players``) claims it and
gets its token. Two submissions of one puzzle whose names only now become
one player (``Ann Lee`` and ``Ann  Lee``) are both kept: the later keeps its
old key, so it stays on its leaderboard and nobody can submit under it again.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from gapgrid.api.names import player_key

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``players``, key the stored submissions by the name rule, register their
    names without tokens."""
    players = op.create_table(
        "players",
        sa.Column("player_key", sa.String, nullable=False),
        sa.Column("name", sa.String, nullable=False),
        # NULL for a name registered by this upgrade, not claimed yet
        sa.Column("token_digest", sa.String),
        sa.Column("created_at", sa.String, nullable=False),
        sa.PrimaryKeyConstraint("player_key", name="players_pkey"))
    submissions = sa.table("submissions", sa.column("id", sa.Integer),
                           sa.column("puzzle_id", sa.String), sa.column("player", sa.String),
                           sa.column("player_key", sa.String),
                           sa.column("created_at", sa.String))
    connection = op.get_bind()
    rows = connection.execute(sa.select(
        submissions.c.id, submissions.c.puzzle_id, submissions.c.player,
        submissions.c.player_key, submissions.c.created_at).order_by(submissions.c.id)).all()
    taken = {(puzzle, key) for _, puzzle, _, key, _ in rows}
    registered: dict[str, dict[str, str | None]] = {}
    for submission_id, puzzle, name, old_key, created_at in rows:
        key = player_key(name)
        if key != old_key:
            if (puzzle, key) in taken:
                key = old_key  # another submission of the puzzle has the key: keep both
            else:
                taken.discard((puzzle, old_key))
                taken.add((puzzle, key))
                connection.execute(submissions.update().where(
                    submissions.c.id == submission_id).values(player_key=key))
        registered.setdefault(key, {"player_key": key, "name": name, "token_digest": None,
                                    "created_at": created_at})
    if registered:
        op.bulk_insert(players, list(registered.values()))


def downgrade() -> None:
    """Forget the players (the submissions keep their new keys)."""
    op.drop_table("players")
