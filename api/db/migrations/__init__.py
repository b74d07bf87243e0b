"""Alembic's environment and the versioned migrations (``versions/``), shipped in the
package so that an installed gapgrid can upgrade its database."""
