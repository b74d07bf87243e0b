"""Use cases of the daily puzzles: a day's puzzle, its solution, start tokens, hints,
submissions, leaderboards, and preparing the coming days.

A day's game number comes from an HMAC of the date, the variant and an
attempt counter under the server's secret, so nobody can tell tomorrow's
puzzle from public data. It lies where PySolFC draws its own random game
numbers (10**16 to 10**20), so the same puzzle can be played in PySolFC by
number. Candidates are solved in turn and the first one won becomes the
puzzle, certified, with its line (:mod:`gapgrid.api.services.certify`). The
first time a puzzle is needed it is stored, and from then on the stored
puzzle is what everyone gets, whatever changes in the code later; a puzzle
stored before certification existed keeps its number and is certified the
next time it is served.

Making a puzzle is bounded: a request spends at most ``GAPGRID_CERTIFY_SECONDS``
of search on it (``gapgrid puzzles prepare`` does it ahead, with more), and
holds a lease on it in the database meanwhile, so that concurrent requests,
in any process, wait for its answer or are told to come back (a
:attr:`~gapgrid.api.services.errors.Fault.BUSY` refusal, a 503 over HTTP)
instead of searching too. The uniqueness of a day's puzzle is the schema's:
whatever happens, one puzzle per day and variant is ever stored.

:class:`PuzzleService` holds what these use cases share (settings, the
catalogue, the store, the clock) and is the only way the command line and the
HTTP API reach them. Submissions are verified with every scoring scheme and
stored with each scheme's sort key; leaderboards rank by the scheme the
settings name (``GAPGRID_RANKING``). A submission made with a start token
that hints were asked with is ``assisted``; a won one that is shorter than the
puzzle's par lowers it. Players own their names (:mod:`gapgrid.api.services.players`):
a start or a submission under a registered name needs the player's token.
"""

from __future__ import annotations

import contextlib
import datetime
import functools
import hashlib
import math
import os
import re
import secrets
import socket
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

import attrs
from itsdangerous import BadData, BadSignature, SignatureExpired, URLSafeTimedSerializer
from itsdangerous.encoding import base64_decode, base64_encode

from gapgrid.api.config import ConfigError, Settings
from gapgrid.api.db.engine import is_outage
from gapgrid.api.pysolfc.games import in_pysolfc, pysolfc_id_of, pysolfc_name
from gapgrid.api.services import certify, games, players, solving
from gapgrid.api.services.difficulty_table import CALIBRATION
from gapgrid.api.services.errors import Fault, ServiceError, invalid
from gapgrid.api.services.search_slot import SearchSlot
from gapgrid.api.store import (
    Certificate,
    NameTaken,
    NewSubmission,
    RankingKey,
    Store,
    Submission,
    TokenTaken,
    UnrankedSubmission,
)
from gapgrid.core.board import Board
from gapgrid.core.catalogue import Catalogue
from gapgrid.core.dealnumber import DealNumber, parse_deal_number
from gapgrid.core.game import new_game
from gapgrid.core.notation import parse_actions
from gapgrid.core.registry import PresetInfo, VariantInfo
from gapgrid.core.rules import UNLIMITED
from gapgrid.core.runs import cards_in_sequence
from gapgrid.core.scoring import GameSummary

RULES_VERSION: Final = "1"
"""Bumped whenever a rule of an existing variant changes; stored with each puzzle."""

LOWEST_NUMBER: Final = certify.LOWEST_NUMBER
HIGHEST_NUMBER: Final = certify.HIGHEST_NUMBER

WAIT_SECONDS: Final = 2.0
"""How long a request waits for a puzzle another request is making before it is told to
come back (a request must not hold a server thread for a whole search)."""

POLL_SECONDS: Final = 0.1
"""How often a waiting request looks whether the puzzle is there."""

HINT_LONGEST: Final = solving.HINT_SECONDS + 1.0
"""How long a hint holds the process's search at most: its search, its cut, its replay."""

PREPARE_BUDGET: Final = certify.CertifyBudget(total_seconds=1800.0, max_candidates=200)
"""What ``gapgrid puzzles prepare`` spends on a puzzle unless told otherwise: up to 200
candidates of 100,000 positions each (some 20 minutes on one core at worst, a few seconds
usually); the half hour of wall time only stops it on a machine far too busy."""

KEYS_PER_REQUEST: Final = 1_000
"""Submissions one request keys for the ranking scheme at most: 0.68 s a request (median,
0.84 s at most, 82 MiB) for 22,538 submissions lacking their keys, beside a study on both
cores; all at once, 200,000 had taken one request 88 s and 2 GB."""

KEYING_LEASE_SECONDS: Final = 30.0
"""How long a request keying a puzzle's submissions holds its lease at most (a batch takes
about a second; a process that dies holding it lets the others key after this)."""

MAX_PER_PAGE: Final = 100
"""Most leaderboard lines in one page."""

TOKEN_SALT: Final = "gapgrid-start-token"
DATE: Final = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def parse_day(text: str) -> datetime.date:
    """The day ``text`` names (``2026-11-30``), whether or not it has a puzzle; an invalid
    :class:`ServiceError` on ``date`` when it names none."""
    try:
        if not DATE.fullmatch(text):
            raise ValueError(text)
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise invalid(f"{text[:40]!r} is not a date like 2026-11-30", "date") from None


def puzzle_id(date: datetime.date, slug: str) -> str:
    """The id of the puzzle of ``slug`` on ``date``: ``2026-11-30-blue-moon``."""
    return f"{date.isoformat()}-{slug}"


def puzzle_deal(secret: str, date: datetime.date, slug: str) -> DealNumber:
    """The first candidate number of the puzzle of ``slug`` on ``date`` under ``secret``
    (gapgrid 0.1.0's puzzle for the day)."""
    return certify.candidate_deal(secret, date, slug, 0)


LATE_SUBMISSIONS: Final = datetime.timedelta(hours=1)
"""How long after its day is over a puzzle still takes the submission of a game started on
that day, with its start token (and records the game's hints): a game begun at 23:50 UTC is
not refused at midnight. No puzzle can be started then, and its solution opens only once
this is over, so a late game cannot be copied from it."""


def day_bounds(date: datetime.date) -> tuple[datetime.datetime, datetime.datetime]:
    """The UTC day ``date`` spans: from its midnight to the next."""
    start = datetime.datetime.combine(date, datetime.time(), tzinfo=datetime.UTC)
    return start, start + datetime.timedelta(days=1)


def solution_opens(date: datetime.date) -> datetime.datetime:
    """When the solution of ``date``'s puzzles opens: when its last late submission may
    come (:data:`LATE_SUBMISSIONS`)."""
    return day_bounds(date)[1] + LATE_SUBMISSIONS


def first_open_day(now: datetime.datetime) -> datetime.date:
    """The first day whose puzzles still take a submission at ``now``: today's, or
    yesterday's during its late hour (:data:`LATE_SUBMISSIONS`). The hints and start tokens
    of earlier days' puzzles are read no more."""
    return (now.astimezone(datetime.UTC) - LATE_SUBMISSIONS).date()


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
                entry: VariantInfo | PresetInfo, deal: DealNumber | None = None
                ) -> dict[str, Any]:
    """A new puzzle document for ``entry`` on ``date``: game ``deal``, by default the
    day's first candidate."""
    if deal is None:
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


SOLUTION_NOT_OPEN: Final = "Solution not open yet"
"""The heading of the refusal of a solution not open yet (:func:`solution_opens`)."""

NO_SOLUTION_KNOWN: Final = "No solution known"
"""The heading of the refusal of a solution of a puzzle that is not certified."""


class SolutionUnavailable(ServiceError):
    """A served day's solution cannot be given (yet): it is not open yet (an hour after the
    day), or its puzzle is not certified. A not-found refusal, as any other, for the HTTP
    API; its own class so that a caller can tell it from a wrong day or variant without
    reading its title."""


def utc_now() -> datetime.datetime:
    """The current time, timezone-aware UTC."""
    return datetime.datetime.now(datetime.UTC)


def summary_of_answer(body: Mapping[str, Any], start_cards_in_sequence: int = 0
                      ) -> GameSummary:
    """The game summary a stored submission answer describes, to score it with a scheme
    that was not loaded when it was stored (the answer holds every summary term but the
    deal's cards in sequence, which the puzzle's rows give: ``start_cards_in_sequence``)."""
    result, elapsed = body["result"], body.get("elapsed_seconds")
    scores = result["scores"]
    left = result["redeals_left"]
    return GameSummary(
        won=bool(result["won"]), cards_in_sequence=scores["cards_in_sequence"],
        finished_rows=scores["finished_rows"], rows=len(result["rows"]),
        redeals_allowed=UNLIMITED if left == "unlimited" else result["redeals_used"] + left,
        redeals_used=result["redeals_used"], undos=scores["undos"], moves=scores["moves"],
        elapsed=None if elapsed is None else float(elapsed),
        start_cards_in_sequence=start_cards_in_sequence,
        assisted=bool(body.get("assisted", False)))


def token_taken(date: str) -> ServiceError:
    """The refusal of a late submission of the puzzle of ``date`` whose start token another
    player submitted with first."""
    return ServiceError(f"another player has submitted with this start token; once {date} "
                        f"is over, a late submission is taken from the first player who "
                        f"submitted with its start token only", fault=Fault.CONFLICT,
                        field=("token",), title="Start token taken")


def token_digest(token: str) -> str:
    """What hints and late submissions are recorded under: the SHA-256 of a start token in
    the one spelling this server signs, never the token itself.

    The signature's last base64 character carries two bits the signature's 20 bytes do
    not use, so four spellings of one token verify; recorded by its raw text, one game's
    token passed for four (a late submission refused as taken was taken under another
    spelling, and hints asked with one were not seen by a submission with another).
    """
    value, _, signature = token.rpartition(".")
    # no base64: not a token this server signed, which verifying refuses
    with contextlib.suppress(BadData):
        token = f"{value}.{base64_encode(base64_decode(signature)).decode('ascii')}"
    return hashlib.sha256(token.encode()).hexdigest()


def lease_owner() -> str:
    """A name for this service's leases: the machine, the process and a random part."""
    return f"{socket.gethostname()[:40]}:{os.getpid()}:{uuid.uuid4().hex[:12]}"


def puzzle_document(body: Mapping[str, Any], certificate: Certificate | None
                    ) -> dict[str, Any]:
    """A stored puzzle as it is served: with ``certified``, ``par``, ``difficulty``
    (``{"label", "value"}``, or null when unrated) and ``solution_opens_at``; never the
    line."""
    document = dict(body)
    document["solution_opens_at"] = iso(solution_opens(datetime.date.fromisoformat(
        body["date"])))
    certified = certificate is not None and certificate.certified
    rating = certificate.body.get("difficulty") if certificate is not None else None
    document["certified"] = certified
    document["par"] = certificate.par if certificate is not None and certified else None
    document["difficulty"] = ({"label": rating["label"], "value": rating["value"]}
                              if certified and rating and rating.get("label") else None)
    return document


def new_certificate(puzzle: str, found: certify.Certificate, now: str) -> Certificate:
    """What the store keeps of a certification."""
    return Certificate(puzzle_id=puzzle, deal=str(found.deal), certified=found.certified,
                       line=found.line, par=found.par, body=found.body(), updated_at=now)


class NotCertified(Exception):
    """No candidate of a puzzle that is not served yet was won: nothing was stored."""

    def __init__(self, found: certify.Certificate) -> None:
        super().__init__(f"no candidate won among {len(found.tried)}")
        self.found = found


@attrs.frozen
class Prepared:
    """What preparing one puzzle did."""

    document: dict[str, Any]
    """The puzzle as it will be served."""

    action: str
    """``created``, ``certified`` (a stored puzzle's number), ``kept`` (certified already),
    ``uncertified`` (a stored puzzle: no win found within the budget) or ``not stored`` (a
    coming day whose candidates none was won within the budget: a later prepare, or the
    day's first request, tries again)."""

    seconds: float
    tried: int
    """Candidates searched."""


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

    wait_seconds: float = WAIT_SECONDS
    """How long to wait for a puzzle another request is making (the command line waits
    longer than a web request)."""

    on_wait: Callable[[str], None] | None = None
    """Called with the puzzle's id when this service starts waiting for another that is
    making it: the command line says so, rather than seem to hang."""

    owner: str = attrs.field(factory=lease_owner)
    """This service's name on the leases it takes (each request adds a part of its own)."""

    wall_clock: Callable[[], float] = time.time
    """Unix time, for leases, which other processes read: never the replaceable clock."""

    lines: solving.LineMemo = attrs.field(factory=solving.LineMemo)
    """Winning lines found by hints, so that following a hint continues its line."""

    search: SearchSlot = attrs.field(factory=SearchSlot)
    """The process's one search at a time, a hint's or a past day's puzzle's
    (:mod:`.search_slot`)."""

    live_puzzles: dict[str, dict[str, Any]] = attrs.field(factory=dict)
    """Today's stored puzzles by id, once they need no more work (:meth:`_live_puzzle`)."""

    live_puzzles_lock: threading.Lock = attrs.field(factory=threading.Lock)
    """Held while :attr:`live_puzzles` is written (reads take one key, which is safe)."""

    calibration: Mapping[str, Any] = CALIBRATION
    """The difficulty calibration puzzles are rated with."""

    @classmethod
    def open(cls, settings: Settings, catalogue: Catalogue,
             clock: Callable[[], datetime.datetime] = utc_now,
             wait_seconds: float = WAIT_SECONDS) -> PuzzleService:
        """Open the database of ``settings`` (creating or upgrading it) and serve from it."""
        return cls(settings=settings, catalogue=catalogue, store=Store(settings.database),
                   clock=clock, tokens=URLSafeTimedSerializer(settings.secret_key,
                                                              salt=TOKEN_SALT),
                   wait_seconds=wait_seconds)

    # -- days ------------------------------------------------------------------

    def today(self) -> datetime.date:
        """Today, the UTC day."""
        return self.clock().date()

    def day(self, text: str, today: datetime.date | None = None) -> datetime.date:
        """The day ``text`` names (``2026-11-30``), if it has a puzzle on ``today`` (UTC;
        ``None``: the clock's)."""
        return self.served(parse_day(text), today)

    def served(self, date: datetime.date, today: datetime.date | None = None
               ) -> datetime.date:
        """``date``, if it has a puzzle: from the first day to ``today`` (UTC; ``None``:
        the clock's)."""
        today = self.today() if today is None else today
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
        """The puzzle of ``variant`` on ``day`` (``None``: today), stored and certified on
        first use (within the request budget)."""
        # The variant first: an unknown one is said as such on any day, before the first too.
        entry = games.find_entry(self.catalogue, variant)
        today = self.today()  # read once: the request's day, whatever the clock says later
        date = self.served(today, today) if day is None else self.day(day, today)
        body, certificate = self._certified(date, entry, today=today)
        return Served(date, puzzle_document(body, certificate))

    def unmade_today(self) -> list[str]:
        """The variants and presets whose puzzle of today is not stored with its certificate
        yet: the first request for each will search for it (``gapgrid serve`` says so at
        start); an empty list when requests make puzzles without a search, or today has
        none."""
        if self.request_budget() is None:
            return []
        try:
            today = self.served(self.today())
        except ServiceError:  # before GAPGRID_FIRST_DAY: no puzzle to make
            return []
        return [slug for slug in self.catalogue.slugs()
                if self.store.puzzle_and_certificate(puzzle_id(today, slug))[1] is None]

    def request_budget(self) -> certify.CertifyBudget | None:
        """What a request may spend making a puzzle: ``GAPGRID_CERTIFY_SECONDS`` of search
        (None when that is 0: puzzles are then made without a search)."""
        seconds = self.settings.certify_seconds
        if seconds <= 0:
            return None
        return certify.CertifyBudget(total_seconds=seconds)

    def _certified(self, date: datetime.date, entry: VariantInfo | PresetInfo,
                   budget: certify.CertifyBudget | None = None, *, again: bool = False,
                   keep_uncertified: bool = True, today: datetime.date | None = None,
                   ) -> tuple[dict[str, Any], Certificate | None]:
        """The stored puzzle and its certificate, making either when missing.

        With ``again``, a stored certificate that is not certified is tried
        again (``gapgrid puzzles prepare``, with a larger budget). Without
        ``keep_uncertified``, a new puzzle none of whose candidates was won is
        not stored (:class:`NotCertified` is raised instead), so that a later
        try may go through more candidates: stored, its number could never
        change. ``today`` is the day the request began on (``None``: the clock's now).
        """
        pid = puzzle_id(date, entry.slug)
        # today's or a past day's as the request began: one waiting on the lease over
        # midnight is still a request for today's puzzle, which is served as it comes
        past_day = date < (self.today() if today is None else today)
        body, certificate = self.store.puzzle_and_certificate(pid)
        if body is not None and not self._wanted(certificate, again):
            return body, certificate
        budget = budget if budget is not None else self.request_budget()
        if budget is None:  # no search at request time: make the puzzle uncertified
            if body is None:
                body = self.store.keep_puzzle(
                    pid, date.isoformat(), entry.slug,
                    make_puzzle(self.catalogue, self.settings.secret_key, date, entry),
                    iso(self.clock()))
                body, certificate = self.store.puzzle_and_certificate(pid)
                assert body is not None
            return body, certificate
        lease = f"puzzle:{pid}"
        owner = f"{self.owner}:{uuid.uuid4().hex[:8]}"  # this request: threads are apart too
        self._take_lease(lease, owner, budget, pid, again)
        try:
            body, certificate = self.store.puzzle_and_certificate(pid)  # done meanwhile?
            if body is not None and not self._wanted(certificate, again):
                return body, certificate
            rules = self.catalogue.rules(entry.slug)
            # the slot only around a search: a certificate this process remembers needs none
            searching = functools.partial(self._search_slot, pid, past_day, budget)
            if body is None:
                found = certify.certify_day(rules, entry.slug, self.settings.secret_key,
                                            date, budget, self.calibration, searching)
            else:
                found = certify.certify_number(rules, entry.slug,
                                               parse_deal_number(body["deal"]), budget,
                                               self.calibration, searching)
            if body is None:
                if not found.certified and not keep_uncertified:
                    raise NotCertified(found)
                made = make_puzzle(self.catalogue, self.settings.secret_key, date, entry,
                                   found.deal)
                now = iso(self.clock())
                return self.store.keep_certified_puzzle(
                    pid, date.isoformat(), entry.slug, made, new_certificate(pid, found, now),
                    now, lease=lease)
            kept = self.store.keep_certificate(new_certificate(pid, found, iso(self.clock())),
                                               iso(self.clock()), lease=lease)
            return body, kept
        finally:
            self.store.release_lease(lease, owner)

    def _search_slot(self, pid: str, past_day: bool, budget: certify.CertifyBudget
                     ) -> contextlib.AbstractContextManager[None]:
        """For a past day's puzzle, hold the process's search (:mod:`.search_slot`) while
        making or certifying it, waiting up to :attr:`wait_seconds` for it; refuse as busy
        when it is still held then, and store nothing (eight requests for eight past days
        searched at once, slowed every other request for seconds, and ran out of their
        seconds: stored uncertified, for good). Today's puzzles go on as they come: the
        first page of the day asks for every variant's at once, and each must be served.
        ``past_day`` is decided when the request began, not at midnight meanwhile."""
        if not past_day:
            return contextlib.nullcontext()
        def busy(seconds: int) -> ServiceError:
            return ServiceError(f"this server's search is busy (a hint, or another puzzle "
                                f"being made), so the puzzle {pid} was not made; try again in "
                                f"{seconds} s", fault=Fault.BUSY, title="Puzzle being prepared",
                                retry_after=seconds)

        return self.search.held(wait=self.wait_seconds, longest=budget.most_seconds, busy=busy)

    @staticmethod
    def _wanted(certificate: Certificate | None, again: bool) -> bool:
        """Whether a stored puzzle with ``certificate`` needs certifying."""
        return certificate is None or (again and not certificate.certified)

    def _take_lease(self, lease: str, owner: str, budget: certify.CertifyBudget, pid: str,
                    again: bool) -> None:
        """Hold ``lease`` as ``owner`` for the work ``budget`` allows, waiting up to
        :attr:`wait_seconds` while another holds it; refuse as busy when it is still held
        then."""
        deadline = self.wall_clock() + self.wait_seconds
        said = False
        while True:
            left = self.store.take_lease(lease, owner, budget.most_seconds, self.wall_clock())
            if left == 0:
                return
            body, certificate = self.store.puzzle_and_certificate(pid)
            if body is not None and not self._wanted(certificate, again):
                return  # made meanwhile: the caller finds it
            if self.on_wait is not None and not said:
                self.on_wait(pid)
                said = True
            if self.wall_clock() >= deadline:
                retry = max(1, math.ceil(min(left, budget.most_seconds)))
                raise ServiceError(f"the puzzle {pid} is being prepared by another request "
                                   f"or process; try again in {retry} s", fault=Fault.BUSY,
                                   title="Puzzle being prepared", retry_after=retry)
            time.sleep(POLL_SECONDS)

    def _live_puzzle(self, day: str, variant: str, token: str | None = None, *,
                     starting: bool = False) -> dict[str, Any]:
        """Today's stored puzzle (its id, variant, deal, options...), for start
        (``starting``) and submissions; a conflict for a day that is over, unless ``token``
        is a start token of its puzzle and its late submissions are not over
        (:data:`LATE_SUBMISSIONS`).

        A stored puzzle never changes, so once it needs no more work at request time (it
        has a certificate, or this server certifies none at request time) it is kept in
        memory for the rest of its day: a submission then reads no puzzle (issue 13's
        load: a round trip of one to two milliseconds each).
        """
        entry = games.find_entry(self.catalogue, variant)  # the variant first, as puzzle()
        date = self.day(day)
        pid = puzzle_id(date, entry.slug)
        # before making a past day's puzzle to refuse it
        self._refuse_closed(date, pid, token, starting=starting)
        body = self.live_puzzles.get(pid)
        if body is None:
            body, certificate = self._certified(date, entry)
            if date == self.today() and (certificate is not None
                                         or self.request_budget() is None):
                # one writer at a time: a walk of the ids while another request's thread
                # added one raised "dictionary changed size during iteration" (a 500)
                with self.live_puzzles_lock:
                    if any(not known.startswith(date.isoformat())
                           for known in self.live_puzzles):
                        self.live_puzzles.clear()  # only today's are kept
                    self.live_puzzles[pid] = body
        # midnight may have passed while it was made
        self._refuse_closed(date, pid, token, starting=starting)
        return body

    def _refuse_closed(self, date: datetime.date, pid: str, token: str | None, *,
                       starting: bool = False) -> None:
        """A conflict unless the puzzle ``pid`` of ``date`` takes submissions with ``token``
        (:meth:`_takes_submissions`), or, ``starting``, new games."""
        if self._takes_submissions(date, pid, None if starting else token):
            return
        _, ends = day_bounds(date)
        opens = solution_opens(date)
        if starting:
            why = "a game can be started on today's puzzle only"
            if self.clock() < opens:
                why += (f"; a game started on it before then can still be submitted, with "
                        f"its start token, until {iso(opens)}")
        elif self.clock() >= opens:
            why = (f"its late submissions (of games started on it) ended at {iso(opens)}; "
                   f"only today's puzzle takes submissions")
        else:
            why = (f"until {iso(opens)} it takes the submission of a game started on it, "
                   f"with its start token, and no other")
            if token is not None:
                why += ": the start token sent is not one of its games'"
        raise ServiceError(f"the puzzle of {date} closed at {iso(ends)}; {why}",
                           fault=Fault.CONFLICT, field=("date",), title="Puzzle closed")

    def _takes_submissions(self, date: datetime.date, pid: str, token: str | None) -> bool:
        """Whether the puzzle ``pid`` of ``date`` takes a start or a submission: today's
        does, and one whose day is over does for a game started on it (``token``, a start
        token of ``pid``, which only its day gave) until its late submissions are over."""
        if date == self.today():
            return True
        if token is None or self.clock() >= solution_opens(date):
            return False
        try:
            payload = self.tokens.loads(token, max_age=self.settings.token_max_age)
        except BadSignature:  # expired ones too: SignatureExpired is one
            return False
        return isinstance(payload, dict) and payload.get("p") == pid

    def solution(self, day: str, variant: str) -> dict[str, Any]:
        """The shortest winning line known for the puzzle of ``day``, once the day is over
        (UTC) and its late submissions too (:func:`solution_opens`); before then a
        not-found refusal that says when it opens.

        ``{"puzzle", "date", "variant", "deal", "options", "certified", "par", "line",
        "difficulty", "solver_version", "line_from"}``; ``line_from`` says whether the line
        is the solver's or a player's shorter one.
        """
        entry = games.find_entry(self.catalogue, variant)  # the variant first, as puzzle()
        date = self.day(day)
        opens = solution_opens(date)
        if self.clock() < opens:
            raise SolutionUnavailable(f"the solution of the {entry.slug} puzzle of {date} "
                                      f"opens at {iso(opens)} (UTC), when the day is over "
                                      f"and games started on it can no longer be submitted",
                                      fault=Fault.NOT_FOUND, field=("date",),
                                      title=SOLUTION_NOT_OPEN)
        body, certificate = self._certified(date, entry)
        if certificate is None or not certificate.certified:
            raise SolutionUnavailable(f"no winning line is known for the {entry.slug} puzzle "
                                      f"of {date}: it is not certified",
                                      fault=Fault.NOT_FOUND, field=("date",),
                                      title=NO_SOLUTION_KNOWN)
        document = puzzle_document(body, certificate)
        return {"puzzle": body["id"], "date": body["date"], "variant": body["variant"],
                "deal": body["deal"], "options": body["options"], "certified": True,
                "par": certificate.par, "line": list(certificate.line),
                "difficulty": document["difficulty"],
                "solver_version": certificate.body.get("solver_version"),
                "line_from": certificate.body.get("line_from", "solver")}

    def prepare(self, date: datetime.date, variant: str,
                budget: certify.CertifyBudget = PREPARE_BUDGET) -> Prepared:
        """Create and certify the puzzle of ``variant`` on ``date`` ahead of time (any day,
        future ones included), or certify a stored one that is not; within ``budget``."""
        entry = games.find_entry(self.catalogue, variant)
        started = time.monotonic()
        before_body, before = self.store.puzzle_and_certificate(puzzle_id(date, entry.slug))
        try:
            # a coming day is not served yet: leave it unmade rather than uncertified
            body, certificate = self._certified(date, entry, budget, again=True,
                                                keep_uncertified=date <= self.today())
        except NotCertified as refused:
            document = {"id": puzzle_id(date, entry.slug), "date": date.isoformat(),
                        "variant": entry.slug, "deal": None, "certified": False, "par": None,
                        "difficulty": None}
            return Prepared(document, "not stored", round(time.monotonic() - started, 3),
                            len(refused.found.tried))
        tried = len(certificate.body.get("tried", [])) if certificate is not None else 0
        if before is not None and before.certified:
            action, tried = "kept", 0
        elif certificate is None or not certificate.certified:
            action = "uncertified"
        else:
            action = "created" if before_body is None else "certified"
        return Prepared(puzzle_document(body, certificate), action,
                        round(time.monotonic() - started, 3), tried)

    # -- hints -----------------------------------------------------------------

    def hint(self, *, variant: str, deal: str, moves: Sequence[str],
             options: Mapping[str, str | int] | None = None, token: str | None = None
             ) -> dict[str, Any]:
        """The next action of a winning line from the position ``moves`` lead to, within
        about a second (:data:`gapgrid.api.services.solving.HINT_SECONDS`).

        A position on a certified puzzle's line is answered from that line. With
        the ``token`` of a puzzle that still takes its game (today's, or one whose late
        submissions are not over), the hint is recorded against it, and a submission
        made with that token is ``assisted``; with an older token, it records nothing.
        """
        position = solving.replayed(self.catalogue, variant=variant, deal=deal, moves=moves,
                                    options=options)
        puzzle = None if token is None else self._token_puzzle(token, position)
        known = self._known_lines(position)
        answered = solving.hint_without_search(position, known=known, memo=self.lines)
        if answered is not None:
            document = answered.document
        else:  # a search: one at a time in this process
            def busy(seconds: int) -> ServiceError:
                return ServiceError(f"this server's search is busy (another hint, or a puzzle "
                                    f"being made); try again in {seconds} s",
                                    fault=Fault.BUSY, title="Hints busy", retry_after=seconds)

            with self.search.held(wait=solving.HINT_SECONDS, longest=HINT_LONGEST, busy=busy):
                document = solving.hint(position, seconds=solving.HINT_SECONDS,
                                        memo=self.lines).document
        document["assisted"] = False
        # A token of a puzzle that takes no more submissions (its late ones over too) gets
        # the hint but records nothing.
        if (puzzle is not None and token is not None and position.result.ok
                and self._takes_submissions(datetime.date.fromisoformat(puzzle[:10]), puzzle,
                                            token)):
            self.store.record_hint(puzzle, token_digest(token), position.result.applied,
                                   iso(self.clock()))
            document["assisted"] = True
        return document

    def _token_puzzle(self, token: str, position: solving.Replayed) -> str | None:
        """The puzzle a hint's start token is for, which must be the game of ``position``;
        None for a token past its age, whose game takes no submission any more: the hint
        records nothing, and is answered (a page reopened days later sends the token it
        kept, and every hint there was refused)."""
        try:
            payload = self.tokens.loads(token, max_age=self.settings.token_max_age)
        except SignatureExpired:
            return None
        except BadSignature:
            raise invalid("the start token is not valid", "token") from None
        puzzle = payload.get("p") if isinstance(payload, dict) else None
        body = self.store.puzzle(puzzle) if isinstance(puzzle, str) else None
        if body is None or (body["variant"], body["deal"], dict(body["options"])) != (
                position.rules.slug, str(position.deal), dict(position.rules.options)):
            raise invalid("the start token is for another game than this hint's", "token")
        return str(puzzle)

    def _known_lines(self, position: solving.Replayed) -> list[solving.KnownLine]:
        """The certified lines of stored puzzles of this game (variant, options, number).

        A line a player's submission made (shorter than the solver's, or the first win of
        a puzzle no search certified) is left out until the puzzle's solution opens
        (:func:`solution_opens`): hints read off it gave that player's game away, move by
        move, to anyone asking without a token while the puzzle still took submissions.
        """
        if position.deal is None:
            return []
        known = []
        now = self.clock()
        for body, certificate in self.store.certified_lines(str(position.deal)):
            if (body["variant"], dict(body["options"])) != (position.rules.slug,
                                                            dict(position.rules.options)):
                continue
            if certificate.body.get("line_from") == "submission" and now < solution_opens(
                    datetime.date.fromisoformat(body["date"])):
                continue
            known.append(solving.KnownLine(new_game(position.rules, position.deal),
                                           tuple(parse_actions(certificate.line))))
        return known

    # -- start and submit ------------------------------------------------------

    def register_player(self, name: str) -> dict[str, Any]:
        """Register ``name`` (or claim it, when it was registered without a token by an
        upgrade): the player's token, given this once."""
        now = iso(self.clock())
        identity = players.register(self.store, name,
                                    max_length=self.settings.max_player_length, now=now)
        assert identity.claim is not None and identity.token is not None  # a registration
        try:
            self.store.claim_player(identity.claim)
        except NameTaken:  # registered by another request since register() looked
            raise players.taken(identity.name) from None
        return {"player": identity.name, "token": identity.token, "registered_at": now}

    def start(self, day: str, variant: str, *, player: str | None = None,
              player_token: str | None = None) -> dict[str, Any]:
        """A signed start token for today's puzzle, so the server times the game. Started
        under a ``player``'s name (which needs the player's token when the name is owned),
        the start token is good for that player's submission only."""
        puzzle = self._live_puzzle(day, variant, starting=True)
        identity = None if player is None else players.identify(
            self.store, player, player_token, max_length=self.settings.max_player_length,
            now="", register=False)
        now = self.clock()
        if now.date().isoformat() != puzzle["date"]:  # midnight passed since it was checked
            self._refuse_closed(datetime.date.fromisoformat(puzzle["date"]), puzzle["id"], None,
                                starting=True)
        # the random part keeps two games started in the same millisecond apart (hints are
        # recorded by token)
        payload = {"p": puzzle["id"], "t": int(now.timestamp() * 1000),
                   "n": secrets.token_hex(6)}
        if identity is not None:
            payload["u"] = identity.key
        document = {"puzzle": puzzle["id"], "token": self.tokens.dumps(payload),
                    "started_at": iso(now), "expires_in": self.settings.token_max_age}
        if identity is not None:
            document["player"] = identity.name
        return document

    def token_elapsed(self, token: str, puzzle: str, player_key: str | None = None) -> float:
        """Seconds since ``token`` was issued for the puzzle ``puzzle`` (and, when it was
        started under a name, for the player whose key is ``player_key``)."""
        try:
            payload = self.tokens.loads(token, max_age=self.settings.token_max_age)
        except SignatureExpired:
            raise invalid("the start token has expired", "token") from None
        except BadSignature:
            raise invalid("the start token is not valid", "token") from None
        if not isinstance(payload, dict) or payload.get("p") != puzzle or not isinstance(
                payload.get("t"), int):
            raise invalid("the start token is for another puzzle", "token")
        # A signed time must still be sane (a bool is an int; 10**400 ms overflows a float):
        # within the puzzle's day (its id begins with the date), and not after now.
        day_start, day_end = (moment.timestamp() * 1000 for moment in
                              day_bounds(datetime.date.fromisoformat(puzzle[:10])))
        if type(payload["t"]) is not int or not (
                day_start <= payload["t"] < day_end
                and payload["t"] <= self.clock().timestamp() * 1000):
            raise invalid("the start token's time is not within the puzzle's day", "token")
        if "u" in payload and payload["u"] != player_key:
            raise invalid("the start token was started under another player's name", "token")
        elapsed: float = self.clock().timestamp() - payload["t"] / 1000
        return round(max(elapsed, 0.0), 3)

    def submit(self, day: str, variant: str, *, player: str, moves: Sequence[str],
               token: str | None = None, player_token: str | None = None) -> Submitted:
        """Verify ``moves`` on today's puzzle (or yesterday's, for a game started on it and
        submitted with its ``token`` within :data:`LATE_SUBMISSIONS`), score them with every
        scheme, and store them once per player (names compared by
        :func:`gapgrid.api.names.player_key`): the first verified submission is the one that
        counts, unless it made no progress (an empty one), which the first with progress
        replaces.

        Under a name a player owns, ``player_token`` must be theirs; the first stored
        submission under a new name registers it, and its answer carries the player's
        ``player_token``, that once. A start token stays with the first player who submits
        with it: a late submission with a token another player submitted with first is
        refused (during the day a token only times the game, and may be shared).
        """
        puzzle = self._live_puzzle(day, variant, token)
        now = self.clock()
        name = player
        # Without a token, the name is claimed when the submission is stored (one read fewer
        # a submission: issue 13's load); a name some player owns is refused then, so such a
        # refusal costs a verification and a rolled-back write instead of one read (bounded,
        # and rate-limited like any submission).
        identity = (self._identify(name, player_token, now) if player_token is not None else
                    players.registration_to_check(
                        name, max_length=self.settings.max_player_length, now=iso(now)))
        player = identity.name
        actions = games.actions_of(moves)
        try:
            elapsed = None if token is None else self.token_elapsed(token, puzzle["id"],
                                                                    identity.key)
        except ServiceError:
            if player_token is None:
                self._identify(name, player_token, now)  # an owned name is refused first
            raise
        assisted = token is not None and self.store.hints_for(token_digest(token)) > 0
        verified = games.verify(self.catalogue, variant=puzzle["variant"], deal=puzzle["deal"],
                                moves=[str(action) for action in actions],
                                options=puzzle["options"], elapsed=elapsed, assisted=assisted)
        report = verified.document
        if not verified.ok:
            if player_token is None:
                # nothing is stored: check the name now (a name some player owns is refused)
                identity = self._identify(name, player_token, now)
                player = identity.name
            return Submitted({"puzzle": puzzle["id"], "player": player, "stored": False,
                              "submitted_at": None, "elapsed_seconds": elapsed,
                              "assisted": assisted, "result": report, "rank": None,
                              "players": self.store.count(puzzle["id"])}, created=False)
        digest = hashlib.sha256("\n".join(str(action) for action in actions).encode()
                                ).hexdigest()
        document = {"puzzle": puzzle["id"], "player": player, "stored": True,
                    "submitted_at": iso(self.clock()), "elapsed_seconds": elapsed,
                    "assisted": assisted, "result": report}
        keys = {name: RankingKey(tuple(score["sort_key"]), score["total"])
                for name, score in report["scores"].items() if name in self.catalogue.scoring}
        line = verified.result.state.actions() if verified.result.won else None
        # late: stored after its day, whenever its day was checked (a submission verified
        # across midnight is one)
        late = puzzle["date"] != self.clock().date().isoformat()
        new = NewSubmission(
            puzzle_id=puzzle["id"], player=player, player_key=identity.key,
            moves_digest=digest, keys=keys,
            body=document, created_at=document["submitted_at"],
            winning_line=None if line is None else tuple(str(action) for action in line),
            token_digest=None if token is None else token_digest(token), late=late)
        try:
            stored, created = self.store.submit(new, identity.claim)
        except NameTaken:  # a player owns the name (registered before, or meanwhile)
            self._identify(name, player_token, now)  # refuses, naming the owner as stored
            raise players.unauthenticated(player) from None
        except TokenTaken:
            raise token_taken(puzzle["date"]) from None
        if not created and stored.moves_digest != digest:
            if identity.claim is not None and player_token is None:
                # a name an upgrade registered without a token, claimed just now: the
                # submission goes under the spelling the name is registered in
                registered = self.store.player(identity.key)
                if registered is not None and registered.name != player:
                    player = registered.name
                    document = {**document, "player": player}
                    new = attrs.evolve(new, player=player, body=document)
            start = self._start_cards_in_sequence(puzzle["id"])
            # A game that got nowhere (an accidental empty submit) does not lock its player
            # out: the first submission with progress takes its place.
            try:
                replaced = (not summary_of_answer(stored.body, start).progress
                            and summary_of_answer(document, start).progress
                            and self.store.replace_submission(new, stored.moves_digest))
            except TokenTaken:
                if identity.claim is not None:  # its token is not given with a refusal
                    self.store.unclaim(identity.claim)
                raise token_taken(puzzle["date"]) from None
            if replaced:
                stored, created = Submission(player, digest, document), True
            else:
                if identity.claim is not None:  # its token is not given with a refusal
                    self.store.unclaim(identity.claim)
                raise ServiceError(f"{stored.player} already has a submission for "
                                   f"{puzzle['id']}; the first verified submission with "
                                   f"progress is the one that counts",
                                   fault=Fault.CONFLICT, field=("player",),
                                   title="Already submitted")
        # Stored: whatever happens now, the answer is 201 with the player's token (a 503
        # would have the player retry, and the name refuse them: its token never given).
        try:
            found = self._rank_of(puzzle["id"], identity.key)
        except Exception as error:
            if not is_outage(error):  # a bug, not the database's state
                raise
            found = None
        answer = {**stored.body, "rank": None}
        if found is not None:
            answer["rank"], answer["players"] = found
        if identity.token is not None:
            answer["player_token"] = identity.token
        return Submitted(answer, created=created)

    def _rank_of(self, puzzle: str, player_key: str) -> tuple[int, int] | None:
        """A stored submission's rank and the players ranked; None while some submissions
        of the puzzle still lack their keys (more than one request keys: see
        :data:`KEYS_PER_REQUEST`)."""
        found = self.store.rank_if_all_ranked(puzzle, player_key, self.settings.ranking)
        if found is None and self._rank_everyone(puzzle):  # some lacked a key (this one?)
            found = self.store.rank(puzzle, player_key, self.settings.ranking)
        return found

    def _identify(self, name: str, player_token: str | None, now: datetime.datetime
                  ) -> players.Identity:
        return players.identify(self.store, name, player_token,
                                max_length=self.settings.max_player_length, now=iso(now))

    # -- leaderboard -----------------------------------------------------------

    def leaderboard(self, day: str, variant: str, *, page: int = 1, per_page: int = 20
                    ) -> dict[str, Any]:
        """One page of a puzzle's ranking by the configured scheme; ``more`` says whether
        another page follows."""
        if page < 1:
            raise invalid(f"page must be 1 or more, not {page}", "page")
        if not 1 <= per_page <= MAX_PER_PAGE:
            raise invalid(f"per_page must be from 1 to {MAX_PER_PAGE}, not {per_page}", "per_page")
        puzzle = self.puzzle(day, variant).document
        scheme = self.settings.ranking
        if not self._rank_everyone(puzzle["id"]):
            raise ServiceError(
                f"the leaderboard of {puzzle['id']} is being brought up to date (submissions "
                f"stored without a key for the ranking {scheme} are keyed "
                f"{KEYS_PER_REQUEST:,} a request): try again after the seconds in "
                f"Retry-After", fault=Fault.BUSY, title="Leaderboard being updated",
                retry_after=1)
        ranked, total = self.store.leaderboard(puzzle["id"], scheme, (page - 1) * per_page,
                                               per_page)
        par = puzzle["par"]
        entries = []
        for line in ranked:
            result = line.body["result"]
            scores = result["scores"]
            actions = scores["moves"] + result["redeals_used"]
            entries.append({
                "rank": line.rank, "player": line.player, "won": result["won"],
                "moves": scores["moves"], "actions": actions,
                "cards_in_sequence": scores["cards_in_sequence"],
                "assisted": bool(line.body.get("assisted", False)),
                "at_par": bool(result["won"] and par is not None and actions <= par),
                "seconds": line.body.get("elapsed_seconds"),
                "submitted_at": line.created_at, "score": line.total})
        return {"puzzle": puzzle["id"], "ranking": scheme, "par": par, "page": page,
                "per_page": per_page, "total": total, "entries": entries,
                "more": page * per_page < total}

    def _rank_everyone(self, puzzle: str) -> bool:
        """Give submissions of ``puzzle`` a key for the ranking scheme,
        :data:`KEYS_PER_REQUEST` at most; return whether none lacks one now.

        A submission stored by a server without the scheme (an older version,
        other plugins, a database upgraded from before the scheme's keys) lacks
        its key; its stored answer holds every term a scheme scores, so the key
        is computed from it instead of leaving the player off the leaderboard.
        A puzzle with more to key than one request may take waits for the
        requests after it: a request's time and memory stay bounded. One
        request keys at a time, holding a lease in the database (any server's):
        the others answer at once that keys are missing, rather than all key
        the same batch.
        """
        scheme = self.settings.ranking
        missing = self.store.unranked(puzzle, scheme, KEYS_PER_REQUEST + 1)
        if not missing:
            return True
        lease = f"keys:{puzzle}:{scheme}"
        owner = f"{self.owner}:{uuid.uuid4().hex[:8]}"  # this request: threads are apart too
        if self.store.take_lease(lease, owner, KEYING_LEASE_SECONDS, self.wall_clock()):
            return False  # another request is keying this batch
        try:
            missing = self.store.unranked(puzzle, scheme, KEYS_PER_REQUEST + 1)  # keyed since?
            info = self.catalogue.scoring[scheme]
            start = self._start_cards_in_sequence(puzzle)
            keys: list[tuple[UnrankedSubmission, str, RankingKey]] = []
            for submission in missing[:KEYS_PER_REQUEST]:
                score = info.score(summary_of_answer(submission.body, start))
                keys.append((submission, scheme, RankingKey(tuple(score.sort_key),
                                                            score.total)))
            self.store.add_keys(keys)
        finally:
            self.store.release_lease(lease, owner)
        return len(missing) <= KEYS_PER_REQUEST

    def _start_cards_in_sequence(self, puzzle: str) -> int:
        """The cards in sequence in a stored puzzle's deal (its rows)."""
        body = self.store.puzzle(puzzle)
        if body is None:
            return 0
        rules = self.catalogue.rules(body["variant"], body["options"])
        return cards_in_sequence(rules.layout, Board.from_rows(rules.layout, body["rows"]).cells)


def check_ranking(settings: Settings, catalogue: Catalogue) -> None:
    """Raise :class:`~gapgrid.api.config.ConfigError` when no loaded plugin provides the
    ranking scheme ``settings`` names."""
    if settings.ranking not in catalogue.scoring:
        loaded = ", ".join(catalogue.scoring) or "none"
        raise ConfigError(f"GAPGRID_RANKING is {settings.ranking!r}, but no loaded plugin "
                          f"provides that scoring scheme (loaded: {loaded}); enable its plugin "
                          f"or rank by one of those")
