"""The tallies spread over 8 rows each (``shard``: submission id % 8), so that concurrent
submissions of one puzzle do not queue on one row's lock; they are counts of stored rows,
so they are made again from the submissions and keys.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

SHARDS = 8
BUCKET_CHARACTERS = 50
SORT_KEY = sa.String().with_variant(sa.String(collation="C"), "postgresql")  # byte order


def upgrade() -> None:
    """Drop the tallies of 0003 and count again, by shard."""
    op.drop_table("ranking_buckets")
    op.drop_table("puzzle_players")
    puzzle_players = op.create_table(
        "puzzle_players",
        sa.Column("puzzle_id", sa.String, nullable=False),
        sa.Column("shard", sa.Integer, nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("puzzle_id", "shard", name="puzzle_players_pkey"),
        sa.ForeignKeyConstraint(["puzzle_id"], ["puzzles.id"],
                                name="puzzle_players_puzzle_id_fkey"))
    ranking_buckets = op.create_table(
        "ranking_buckets",
        sa.Column("puzzle_id", sa.String, nullable=False),
        sa.Column("scheme", sa.String, nullable=False),
        sa.Column("bucket", SORT_KEY, nullable=False),
        sa.Column("shard", sa.Integer, nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("puzzle_id", "scheme", "bucket", "shard",
                                name="ranking_buckets_pkey"),
        sa.ForeignKeyConstraint(["puzzle_id"], ["puzzles.id"],
                                name="ranking_buckets_puzzle_id_fkey"))
    submissions = sa.table("submissions", sa.column("id", sa.Integer),
                           sa.column("puzzle_id", sa.String))
    keys = sa.table("ranking_keys", sa.column("submission_id", sa.Integer),
                    sa.column("puzzle_id", sa.String), sa.column("scheme", sa.String),
                    sa.column("sort_key", sa.String))
    shard = submissions.c.id % SHARDS
    op.execute(puzzle_players.insert().from_select(
        ["puzzle_id", "shard", "players"],
        sa.select(submissions.c.puzzle_id, shard, sa.func.count())
        .group_by(submissions.c.puzzle_id, shard)))
    bucket = sa.func.substr(keys.c.sort_key, 1, BUCKET_CHARACTERS)
    key_shard = keys.c.submission_id % SHARDS
    op.execute(ranking_buckets.insert().from_select(
        ["puzzle_id", "scheme", "bucket", "shard", "players"],
        sa.select(keys.c.puzzle_id, keys.c.scheme, bucket, key_shard, sa.func.count())
        .group_by(keys.c.puzzle_id, keys.c.scheme, bucket, key_shard)))


def downgrade() -> None:
    """Back to one row a tally."""
    raise NotImplementedError("the tallies of 0003 are not made again; restore a backup")
