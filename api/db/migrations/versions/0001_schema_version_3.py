"""The schema gapgrid wrote before Alembic (SQLite ``user_version`` 3): puzzles,
submissions and their ranking keys, certificates, leases and hints.

A SQLite database from before Alembic is brought to this revision by
:mod:`gapgrid.api.db.legacy` and stamped with it; a new database of either
back end starts here.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

IDENTIFIER = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
SORT_KEY = sa.String().with_variant(sa.String(collation="C"), "postgresql")  # byte order


def upgrade() -> None:
    """Create the tables of schema version 3."""
    op.create_table(
        "puzzles",
        sa.Column("id", sa.String, primary_key=True),
        sa.Column("date", sa.String, nullable=False),
        sa.Column("slug", sa.String, nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("created_at", sa.String, nullable=False),
        sa.PrimaryKeyConstraint("id", name="puzzles_pkey"),
        sa.UniqueConstraint("date", "slug", name="puzzles_date_slug_key"))
    op.create_table(
        "submissions",
        sa.Column("id", IDENTIFIER, autoincrement=True),
        sa.Column("puzzle_id", sa.String, nullable=False),
        sa.Column("player", sa.String, nullable=False),
        sa.Column("player_key", sa.String, nullable=False),
        sa.Column("moves_digest", sa.String, nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("created_at", sa.String, nullable=False),
        sa.PrimaryKeyConstraint("id", name="submissions_pkey"),
        sa.ForeignKeyConstraint(["puzzle_id"], ["puzzles.id"],
                                name="submissions_puzzle_id_fkey"),
        sa.UniqueConstraint("puzzle_id", "player_key", name="submissions_puzzle_id_player_key_key"),
        sqlite_autoincrement=True)
    op.create_table(
        "ranking_keys",
        sa.Column("submission_id", IDENTIFIER, nullable=False),
        sa.Column("puzzle_id", sa.String, nullable=False),
        sa.Column("scheme", sa.String, nullable=False),
        sa.Column("sort_key", SORT_KEY, nullable=False),
        sa.Column("total", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("submission_id", "scheme", name="ranking_keys_pkey"),
        sa.ForeignKeyConstraint(["submission_id"], ["submissions.id"],
                                name="ranking_keys_submission_id_fkey"))
    op.create_index("ranking_keys_order", "ranking_keys",
                    ["puzzle_id", "scheme", "sort_key", "submission_id"])
    op.create_table(
        "certificates",
        sa.Column("puzzle_id", sa.String, nullable=False),
        sa.Column("deal", sa.String, nullable=False),
        sa.Column("certified", sa.Boolean, nullable=False),
        sa.Column("line", sa.Text, nullable=False),
        sa.Column("par", sa.Integer),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("created_at", sa.String, nullable=False),
        sa.Column("updated_at", sa.String, nullable=False),
        sa.PrimaryKeyConstraint("puzzle_id", name="certificates_pkey"),
        sa.ForeignKeyConstraint(["puzzle_id"], ["puzzles.id"],
                                name="certificates_puzzle_id_fkey"))
    op.create_index("certificates_by_deal", "certificates", ["deal"])
    op.create_table(
        "leases",
        sa.Column("name", sa.String, nullable=False),
        sa.Column("owner", sa.String, nullable=False),
        sa.Column("expires_at", sa.Float, nullable=False),
        sa.PrimaryKeyConstraint("name", name="leases_pkey"))
    op.create_table(
        "hints",
        sa.Column("id", IDENTIFIER, autoincrement=True),
        sa.Column("puzzle_id", sa.String, nullable=False),
        sa.Column("token_digest", sa.String, nullable=False),
        sa.Column("moves", sa.Integer, nullable=False),
        sa.Column("asked_at", sa.String, nullable=False),
        sa.PrimaryKeyConstraint("id", name="hints_pkey"),
        sqlite_autoincrement=True)
    op.create_index("hints_by_token", "hints", ["token_digest"])


def downgrade() -> None:
    """Drop every table (nothing came before this revision)."""
    for table in ("hints", "leases", "certificates", "ranking_keys", "submissions", "puzzles"):
        op.drop_table(table)
