"""Tallies that rank without walking a puzzle (issue 15): ``puzzle_players`` counts each
puzzle's players, ``ranking_buckets`` the keys of each puzzle and scheme by their first
three parts; both are filled from the stored submissions and keys.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

BUCKET_CHARACTERS = 50
"""Three parts of 16 hex digits and their two dots, as the store counts them then."""

SORT_KEY = sa.String().with_variant(sa.String(collation="C"), "postgresql")  # byte order


def upgrade() -> None:
    """Create the tallies and count what is stored."""
    puzzle_players = op.create_table(
        "puzzle_players",
        sa.Column("puzzle_id", sa.String, nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("puzzle_id", name="puzzle_players_pkey"),
        sa.ForeignKeyConstraint(["puzzle_id"], ["puzzles.id"],
                                name="puzzle_players_puzzle_id_fkey"))
    ranking_buckets = op.create_table(
        "ranking_buckets",
        sa.Column("puzzle_id", sa.String, nullable=False),
        sa.Column("scheme", sa.String, nullable=False),
        sa.Column("bucket", SORT_KEY, nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("puzzle_id", "scheme", "bucket", name="ranking_buckets_pkey"),
        sa.ForeignKeyConstraint(["puzzle_id"], ["puzzles.id"],
                                name="ranking_buckets_puzzle_id_fkey"))
    submissions = sa.table("submissions", sa.column("puzzle_id", sa.String))
    keys = sa.table("ranking_keys", sa.column("puzzle_id", sa.String),
                    sa.column("scheme", sa.String), sa.column("sort_key", sa.String))
    op.execute(puzzle_players.insert().from_select(
        ["puzzle_id", "players"],
        sa.select(submissions.c.puzzle_id, sa.func.count()).group_by(submissions.c.puzzle_id)))
    bucket = sa.func.substr(keys.c.sort_key, 1, BUCKET_CHARACTERS)
    op.execute(ranking_buckets.insert().from_select(
        ["puzzle_id", "scheme", "bucket", "players"],
        sa.select(keys.c.puzzle_id, keys.c.scheme, bucket, sa.func.count())
        .group_by(keys.c.puzzle_id, keys.c.scheme, bucket)))


def downgrade() -> None:
    """Drop the tallies."""
    op.drop_table("ranking_buckets")
    op.drop_table("puzzle_players")
