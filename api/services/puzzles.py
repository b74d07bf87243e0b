"""Use cases of the daily puzzles: a day's puzzle, start tokens, submissions, leaderboards.

A day's game number comes from an HMAC of the date and the variant under the
server's secret, so nobody can tell tomorrow's puzzle from public data. It
lies where PySolFC draws its own random game numbers (10**16 to 10**20),
so the same puzzle can be played in PySolFC by number. The first time a
puzzle is served it is stored, and from then on the stored puzzle is what
everyone gets, whatever changes in the code later.

:class:`PuzzleService` holds what these use cases share (settings, the
catalogue, the store, the clock) and is the only way the command line and the
HTTP API reach them. Submissions are verified with every scoring scheme and
stored with each scheme's sort key; leaderboards rank by the scheme the
settings name (``GAPGRID_RANKING``).
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

import attrs
from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer

from gapgrid.api.config import ConfigError, Settings
from gapgrid.api.pysolfc.games import in_pysolfc, pysolfc_id_of, pysolfc_name
from gapgrid.api.services import games
from gapgrid.api.services.errors import Fault, ServiceError, invalid
from gapgrid.api.store import NewSubmission, RankingKey, Store, UnrankedSubmission
from gapgrid.core.catalogue import Catalogue
from gapgrid.core.dealnumber import DealNumber
from gapgrid.core.game import new_game
from gapgrid.core.registry import PresetInfo, VariantInfo
from gapgrid.core.rules import UNLIMITED
from gapgrid.core.scoring import GameSummary

RULES_VERSION: Final = "1"
"""Bumped whenever a rule of an existing variant changes; stored with each puzzle."""

LOWEST_NUMBER: Final = 10**16
HIGHEST_NUMBER: Final = 10**20 - 1

MAX_PER_PAGE: Final = 100
"""Most leaderboard lines in one page."""

PLAYER_PATTERN: Final = r"^[A-Za-z0-9](?:[A-Za-z0-9 _.\-]*[A-Za-z0-9_.\-])?$"
"""Player names, as a JSON Schema pattern: letters, digits, spaces, '_', '.', '-';
starting with a letter or digit and not ending with a space."""
PLAYER_NAME: Final = re.compile(PLAYER_PATTERN[1:-1])
"""The same rule for :func:`re.fullmatch`: JSON Schema's ``$`` lets a final newline pass."""

TOKEN_SALT: Final = "gapgrid-start-token"
DATE: Final = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def puzzle_id(date: datetime.date, slug: str) -> str:
    """The id of the puzzle of ``slug`` on ``date``: ``2026-11-30-blue-moon``."""
    return f"{date.isoformat()}-{slug}"


def puzzle_deal(secret: str, date: datetime.date, slug: str) -> DealNumber:
    """The game number of the puzzle of ``slug`` on ``date`` under ``secret``."""
    digest = hmac.new(secret.encode("utf-8"), f"gapgrid-daily|{date.isoformat()}|{slug}".encode(),
                      hashlib.sha256).digest()
    span = HIGHEST_NUMBER - LOWEST_NUMBER + 1
    return DealNumber(LOWEST_NUMBER + int.from_bytes(digest, "big") % span)


def day_bounds(date: datetime.date) -> tuple[datetime.datetime, datetime.datetime]:
    """The UTC day ``date`` spans: from its midnight to the next."""
    start = datetime.datetime.combine(date, datetime.time(), tzinfo=datetime.UTC)
    return start, start + datetime.timedelta(days=1)


def iso(moment: datetime.datetime) -> str:
    """A UTC time as ``2026-11-30T00:00:00Z``."""
    return moment.astimezone(datetime.UTC).isoformat().replace("+00:00", "Z")


def pysolfc_instructions(entry: VariantInfo | PresetInfo, deal: DealNumber) -> str:
    """How to open a puzzle in PySolFC."""
    plugin = "" if in_pysolfc(entry) else (
        ", which `gapgrid pysolfc install` adds to PySolFC,")
    return (f"In PySolFC, choose the game {pysolfc_name(entry)}{plugin} then File > Select "
            f"game by number... and enter {deal.pysolfc_title}.")


def make_puzzle(catalogue: Catalogue, secret: str, date: datetime.date,
                entry: VariantInfo | PresetInfo) -> dict[str, Any]:
    """A new puzzle document for ``entry`` on ``date``."""
    deal = puzzle_deal(secret, date, entry.slug)
    rules = catalogue.rules(entry.slug)
    starts, ends = day_bounds(date)
    return {
        "id": puzzle_id(date, entry.slug),
        "date": date.isoformat(),
        "variant": entry.slug,
        "name": entry.name,
        "options": dict(rules.options),
        "deal": str(deal),
        "rows": new_game(rules, deal).board.to_rows(),
        "starts_at": iso(starts),
        "ends_at": iso(ends),
        "rules_version": RULES_VERSION,
        "pysolfc": {"game_id": pysolfc_id_of(entry), "game_number": deal.pysolfc_title,
                    "how": pysolfc_instructions(entry, deal)},
    }


def utc_now() -> datetime.datetime:
    """The current time, timezone-aware UTC."""
    return datetime.datetime.now(datetime.UTC)


def summary_of_answer(body: Mapping[str, Any]) -> GameSummary:
    """The game summary a stored submission answer describes, to score it with a scheme
    that was not loaded when it was stored (the answer holds every summary term)."""
    result, elapsed = body["result"], body.get("elapsed_seconds")
    scores = result["scores"]
    left = result["redeals_left"]
    return GameSummary(
        won=bool(result["won"]), cards_in_sequence=scores["cards_in_sequence"],
        finished_rows=scores["finished_rows"], rows=len(result["rows"]),
        redeals_allowed=UNLIMITED if left == "unlimited" else result["redeals_used"] + left,
        redeals_used=result["redeals_used"], undos=scores["undos"], moves=scores["moves"],
        elapsed=None if elapsed is None else float(elapsed))


@attrs.frozen
class Served:
    """A puzzle and the day it is for."""

    date: datetime.date
    document: dict[str, Any]


@attrs.frozen
class Submitted:
    """The answer to a submission, and whether it was stored now."""

    document: dict[str, Any]
    created: bool
    """True when stored by this request; False when stored before, or not stored at all
    (a move was refused: ``document["stored"]`` is false)."""


@attrs.frozen
class PuzzleService:
    """The daily puzzles' use cases, over one configuration, catalogue and database."""

    settings: Settings
    catalogue: Catalogue
    store: Store
    clock: Callable[[], datetime.datetime]
    """Returns the current time, timezone-aware UTC (replaceable in tests)."""

    tokens: URLSafeTimedSerializer

    @classmethod
    def open(cls, settings: Settings, catalogue: Catalogue,
             clock: Callable[[], datetime.datetime] = utc_now) -> PuzzleService:
        """Open the database of ``settings`` (creating or upgrading it) and serve from it."""
        return cls(settings=settings, catalogue=catalogue, store=Store(settings.database),
                   clock=clock, tokens=URLSafeTimedSerializer(settings.secret_key,
                                                              salt=TOKEN_SALT))

    # -- days ------------------------------------------------------------------

    def today(self) -> datetime.date:
        """Today, the UTC day."""
        return self.clock().date()

    def day(self, text: str) -> datetime.date:
        """The day ``text`` names (``2026-11-30``), if it has a puzzle."""
        try:
            if not DATE.fullmatch(text):
                raise ValueError(text)
            date = datetime.date.fromisoformat(text)
        except ValueError:
            raise invalid(f"{text[:40]!r} is not a date like 2026-11-30", "date") from None
        return self.served(date)

    def served(self, date: datetime.date) -> datetime.date:
        """``date``, if it has a puzzle: from the first day to today (UTC)."""
        today = self.today()
        first = self.settings.first_day
        if date > today:
            raise ServiceError(f"there is no puzzle for {date} yet: today (UTC) is {today}",
                               fault=Fault.NOT_FOUND, field=("date",))
        if date < first:
            raise ServiceError(f"puzzles start on {first}", fault=Fault.NOT_FOUND,
                               field=("date",))
        return date

    # -- puzzles ---------------------------------------------------------------

    def puzzle(self, day: str | None, variant: str) -> Served:
        """The puzzle of ``variant`` on ``day`` (``None``: today), stored on first use."""
        date = self.served(self.today()) if day is None else self.day(day)
        return Served(date, self._stored_puzzle(date, games.find_entry(self.catalogue, variant)))

    def _stored_puzzle(self, date: datetime.date, entry: VariantInfo | PresetInfo
                       ) -> dict[str, Any]:
        stored = self.store.puzzle(puzzle_id(date, entry.slug))
        if stored is not None:
            return stored
        return self.store.keep_puzzle(
            puzzle_id(date, entry.slug), date.isoformat(), entry.slug,
            make_puzzle(self.catalogue, self.settings.secret_key, date, entry),
            iso(self.clock()))

    def _live_puzzle(self, day: str, variant: str) -> dict[str, Any]:
        """Today's puzzle, for start and submissions; a conflict for a day that is over."""
        served = self.puzzle(day, variant)
        if served.date != self.today():
            _, ends = day_bounds(served.date)
            raise ServiceError(f"the puzzle of {served.date} closed at {iso(ends)}; only "
                               f"today's puzzle takes submissions", fault=Fault.CONFLICT,
                               field=("date",), title="Puzzle closed")
        return served.document

    # -- start and submit ------------------------------------------------------

    def start(self, day: str, variant: str) -> dict[str, Any]:
        """A signed start token for today's puzzle, so the server times the game."""
        puzzle = self._live_puzzle(day, variant)
        now = self.clock()
        token = self.tokens.dumps({"p": puzzle["id"], "t": int(now.timestamp() * 1000)})
        return {"puzzle": puzzle["id"], "token": token, "started_at": iso(now),
                "expires_in": self.settings.token_max_age}

    def token_elapsed(self, token: str, puzzle: str) -> float:
        """Seconds since ``token`` was issued for the puzzle ``puzzle``."""
        try:
            payload = self.tokens.loads(token, max_age=self.settings.token_max_age)
        except SignatureExpired:
            raise invalid("the start token has expired", "token") from None
        except BadSignature:
            raise invalid("the start token is not valid", "token") from None
        if not isinstance(payload, dict) or payload.get("p") != puzzle or not isinstance(
                payload.get("t"), int):
            raise invalid("the start token is for another puzzle", "token")
        elapsed: float = self.clock().timestamp() - payload["t"] / 1000
        return round(max(elapsed, 0.0), 3)

    def submit(self, day: str, variant: str, *, player: str, moves: Sequence[str],
               token: str | None = None) -> Submitted:
        """Verify ``moves`` on today's puzzle, score them with every scheme, and store them
        once per player (case-blind); the first verified submission is the one that counts.
        """
        puzzle = self._live_puzzle(day, variant)
        if not (len(player) <= self.settings.max_player_length and PLAYER_NAME.fullmatch(player)):
            raise invalid("a player name is 1 to "
                          f"{self.settings.max_player_length} letters, digits, spaces, '_', "
                          f"'.' or '-', starting with a letter or digit and not ending with a "
                          f"space", "player")
        actions = games.actions_of(moves)
        elapsed = None if token is None else self.token_elapsed(token, puzzle["id"])
        verified = games.verify(self.catalogue, variant=puzzle["variant"], deal=puzzle["deal"],
                                moves=[str(action) for action in actions],
                                options=puzzle["options"], elapsed=elapsed)
        report = verified.document
        if not verified.ok:
            return Submitted({"puzzle": puzzle["id"], "player": player, "stored": False,
                              "submitted_at": None, "elapsed_seconds": elapsed,
                              "result": report, "rank": None,
                              "players": self.store.count(puzzle["id"])}, created=False)
        digest = hashlib.sha256("\n".join(str(action) for action in actions).encode()
                                ).hexdigest()
        document = {"puzzle": puzzle["id"], "player": player, "stored": True,
                    "submitted_at": iso(self.clock()), "elapsed_seconds": elapsed,
                    "result": report}
        keys = {name: RankingKey(tuple(score["sort_key"]), score["total"])
                for name, score in report["scores"].items() if name in self.catalogue.scoring}
        stored, created = self.store.submit(NewSubmission(
            puzzle_id=puzzle["id"], player=player, moves_digest=digest, keys=keys,
            body=document, created_at=document["submitted_at"]))
        if not created and stored.moves_digest != digest:
            raise ServiceError(f"{stored.player} already has a submission for {puzzle['id']}; "
                               f"the first verified submission is the one that counts",
                               fault=Fault.CONFLICT, field=("player",),
                               title="Already submitted")
        self._rank_everyone(puzzle["id"])
        rank, players = self.store.rank(puzzle["id"], player, self.settings.ranking)
        return Submitted({**stored.body, "rank": rank, "players": players}, created=created)

    # -- leaderboard -----------------------------------------------------------

    def leaderboard(self, day: str, variant: str, *, page: int = 1, per_page: int = 20
                    ) -> dict[str, Any]:
        """One page of a puzzle's ranking by the configured scheme; ``more`` says whether
        another page follows."""
        if page < 1:
            raise invalid("page must run from 1", "page")
        if not 1 <= per_page <= MAX_PER_PAGE:
            raise invalid(f"per_page must run from 1 to {MAX_PER_PAGE}", "per_page")
        puzzle = self.puzzle(day, variant).document
        scheme = self.settings.ranking
        self._rank_everyone(puzzle["id"])
        ranked, total = self.store.leaderboard(puzzle["id"], scheme, (page - 1) * per_page,
                                               per_page)
        entries = [{"rank": line.rank, "player": line.player,
                    "won": line.body["result"]["won"],
                    "moves": line.body["result"]["scores"]["moves"],
                    "seconds": line.body.get("elapsed_seconds"),
                    "submitted_at": line.created_at, "score": line.total}
                   for line in ranked]
        return {"puzzle": puzzle["id"], "ranking": scheme, "page": page, "per_page": per_page,
                "total": total, "entries": entries, "more": page * per_page < total}

    def _rank_everyone(self, puzzle: str) -> None:
        """Give every submission of ``puzzle`` a key for the ranking scheme.

        A submission stored by a server without the scheme (an older version,
        other plugins) lacks its key; its stored answer holds every term a
        scheme scores, so the key is computed from it instead of leaving the
        player off the leaderboard.
        """
        scheme = self.settings.ranking
        missing = self.store.unranked(puzzle, scheme)
        if not missing:
            return
        info = self.catalogue.scoring[scheme]
        keys: list[tuple[UnrankedSubmission, str, RankingKey]] = []
        for submission in missing:
            score = info.scheme.score(summary_of_answer(submission.body))
            keys.append((submission, scheme, RankingKey(tuple(score.sort_key), score.total)))
        self.store.add_keys(keys)


def check_ranking(settings: Settings, catalogue: Catalogue) -> None:
    """Raise :class:`~gapgrid.api.config.ConfigError` when no loaded plugin provides the
    ranking scheme ``settings`` names."""
    if settings.ranking not in catalogue.scoring:
        loaded = ", ".join(catalogue.scoring) or "none"
        raise ConfigError(f"GAPGRID_RANKING is {settings.ranking!r}, but no loaded plugin "
                          f"provides that scoring scheme (loaded: {loaded}); enable its plugin "
                          f"or rank by one of those")
