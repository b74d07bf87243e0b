"""Start tokens belong to one player after midnight (schema version 7): ``start_tokens``
keeps, for each puzzle and start token (by its digest), the player whose submission came
with it first, so that a game's late submission, which its start token allows, is taken
from that player only. Submissions stored before keep no token: none had one recorded.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``start_tokens``, empty."""
    op.create_table(
        "start_tokens",
        sa.Column("puzzle_id", sa.String, nullable=False),
        sa.Column("token_digest", sa.String, nullable=False),
        sa.Column("player_key", sa.String, nullable=False),
        sa.Column("created_at", sa.String, nullable=False),
        sa.PrimaryKeyConstraint("puzzle_id", "token_digest", name="start_tokens_pkey"),
        sa.ForeignKeyConstraint(["puzzle_id"], ["puzzles.id"],
                                name="start_tokens_puzzle_id_fkey"))


def downgrade() -> None:
    """Drop ``start_tokens``."""
    op.drop_table("start_tokens")
