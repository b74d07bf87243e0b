"""The database: one schema (:mod:`.schema`) and its versioned migrations (Alembic, in
``migrations/``) for both back ends, SQLite (embedded, the default) and PostgreSQL
(several servers on one database); :mod:`.engine` opens either and upgrades it,
:mod:`.legacy` brings SQLite databases from before Alembic to its first revision, and
:mod:`.queries` holds the statements the store runs and the tallies that rank."""
