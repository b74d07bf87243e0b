"""``gapgrid study``: how often a game can be won, deal by deal, on one machine or a Dask cluster.

``gapgrid study VARIANT|all [--option K=V ...] [--deals N] [--first-deal K |
--game-numbers LIST] [--budget SECONDS] [--max-positions P] [--memory MIB]
[--search SEARCH] [--workers W | --dask ADDRESS] [--out FILE.csv]
[--resume | --retry-unknown] [--skip-decided-in FILE ...]``
solves PySolFC game numbers K .. K+N-1 (or those listed, ``128,161,200-210``:
:mod:`gapgrid.api.game_number_lists`) with the solver
(:func:`gapgrid.core.search.solve`) and appends one CSV row per deal as soon
as it is decided (:mod:`gapgrid.api.services.study` has the rows, the file
handling and the statistics). When the study ends, or is stopped (Ctrl-C or
SIGTERM: :mod:`gapgrid.api.study_stop`), the file is sorted by deal, so it is
the same whatever ran it, and a summary is printed: won, lost, unknown, the
winnable share with its 95 % Wilson interval, and the bounds that counting
every unknown as lost or as won gives.
``--retry-unknown`` escalates a study already run: the deals whose row is
unknown at a smaller budget are solved again at the one given, and each new
row, appended like any other, replaces the old one when the file is sorted.
``--skip-decided-in`` leaves out of either the deals other study files have
decided (other solvers' studies, or the studies merged). ``--search complete``
gives each deal's whole budget to the complete restarts alone, the search that
proves a loss in a large space (:data:`gapgrid.core.search.SearchMode`): for the
deals the whole search left unknown; its rows record the solver version with
``-complete``, and its default file name ends so. ``--search entries`` runs the
entry probes alone (:mod:`gapgrid.core.entry_probes`), a search for the wins
the complete restarts reach late; ``-entries``, likewise.

The work runs in this process (``--workers 1``), in a pool of processes on
this machine (``--workers W``), or on an existing dask.distributed cluster
(``--dask ADDRESS``; ``pip install 'gapgrid[study]'``). Each deal is one task,
:func:`solve_deal`, and only a few tasks are in flight at a time, so memory
stays bounded however many deals a study has; each search's tables hold at
most ``--memory`` MiB (1 GiB by default), and on this machine the workers'
tables together at most three quarters of its memory.
"""

from __future__ import annotations

import concurrent.futures
import concurrent.futures.process
import contextlib
import functools
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Container, Iterable, Iterator, Mapping, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any, BinaryIO, Final

import attrs
import click

from gapgrid import plugins
from gapgrid.api.cli_support import (
    FiniteFloatRange,
    SetupError,
    WholeNumberRange,
    echo_json,
    json_flag,
    load_catalogue,
    option_flag,
    parse_option_pairs,
    tell,
)
from gapgrid.api.compiled import compiled_modules
from gapgrid.api.game_number_lists import GameNumbers, game_numbers_option
from gapgrid.api.machine_memory import MIN_MEMORY_MIB, check_memory
from gapgrid.api.services import games
from gapgrid.api.services.errors import ServiceError
from gapgrid.api.services.study import (
    HEADER_LINE,
    StudyFile,
    StudyFileError,
    StudyRow,
    StudySettings,
    budget_order,
    budget_seconds_as_stored,
    check_resumable,
    hold,
    iter_latest_rows,
    options_text,
    read_study_file,
    sort_study_file,
    summarise,
    upgrade_study_file,
)
from gapgrid.api.study_stop import Stop, ignore_stop_signals, signal_word, stop_signals
from gapgrid.api.text import plural
from gapgrid.core.catalogue import Catalogue
from gapgrid.core.dealnumber import MAX_NUMBER, DealNumber
from gapgrid.core.game import new_game
from gapgrid.core.plugin_code import failing_plugin
from gapgrid.core.rules import rule_text
from gapgrid.core.score_checks import LONGEST_TEXT, PluginFault
from gapgrid.core.search import (
    DEFAULT_MEMORY,
    SEARCH_MODES,
    Budget,
    SearchMode,
    line_text,
    solve,
    version_of,
)

MAX_BUDGET_SECONDS: Final = 3600.0
"""The largest ``--budget``: an hour per deal. More is almost surely a slip (minutes or
milliseconds meant), and a study of hundreds of deals would take weeks."""

DEFAULT_BUDGET_SECONDS: Final = 10.0
MAX_WORKERS: Final = 256

IN_FLIGHT_PER_WORKER: Final = 2
"""Tasks queued per worker: enough that no worker waits for the next deal, few enough that
memory does not grow with the size of the study."""

DASK_CONNECT_SECONDS: Final = 10.0
"""How long ``--dask`` waits for its scheduler: the connection and the handshake together."""

STOP_POLL_SECONDS: Final = 0.1
"""How often a wait for the scheduler looks whether a stop signal came."""


@attrs.frozen
class DealTask:
    """One deal to solve: everything a worker needs, as plain picklable values."""

    variant: str
    options: tuple[tuple[str, str], ...]
    game_number: int
    budget_seconds: float
    budget_positions: int | None
    memory: int = DEFAULT_MEMORY
    """The bytes the search's tables may hold (``--memory``)."""

    search: SearchMode = "whole"
    """What the solver runs (``--search``)."""


@functools.cache
def _worker_catalogue() -> Catalogue:
    """The catalogue, loaded once per worker process (plugins included, as the command's)."""
    return plugins.load_catalogue()


def solve_deal(task: DealTask) -> StudyRow:
    """Solve one deal; run by a worker (a process of the pool or a Dask worker).

    A plugin's code failing is raised as a :class:`PluginFault` naming the plugin and the
    deal: an error sent back from a worker process loses its traceback, which alone says
    whose code raised it (:func:`failing_plugin`), and it was then gapgrid's internal error.
    """
    try:
        rules = _worker_catalogue().rules(task.variant, dict(task.options))
        state = new_game(rules, DealNumber(task.game_number))
        result = solve(state, Budget(seconds=task.budget_seconds,
                                     positions=task.budget_positions, memory=task.memory),
                       search=task.search)
    except PluginFault:
        raise
    except Exception as error:
        plugin = failing_plugin(error)
        if plugin is None:
            raise
        raise PluginFault(plugin, f"{task.variant} game {task.game_number}: the plugin "
                                  f"{plugin} failed: {type(error).__name__}: "
                                  f"{rule_text(error, LONGEST_TEXT)}") from error
    return StudyRow(
        variant=task.variant, options=options_text(dict(task.options)),
        game_number=task.game_number, verdict=result.verdict, line_length=len(result.line),
        positions=result.positions, seconds=result.seconds, stopped_by=result.stopped_by or "",
        solver_version=result.version, budget_seconds=task.budget_seconds,
        budget_positions=task.budget_positions, line=" ".join(line_text(result.line)),
        budget_memory_mib=task.memory >> 20)


# -- running tasks --------------------------------------------------------------------------------


def run_serially(tasks: Iterable[DealTask]) -> Iterator[StudyRow]:
    """Solve the deals one after the other in this process."""
    for task in tasks:
        yield solve_deal(task)


def run_on_executor(executor: concurrent.futures.Executor, tasks: Iterable[DealTask],
                    in_flight: int, on_stop: Callable[[], None] | None = None
                    ) -> Iterator[StudyRow]:
    """Solve the deals on ``executor``, at most ``in_flight`` at a time, yielding each row as
    it is done (in completion order). Closing the iterator early, or a deal that fails
    (a worker killed breaks the whole pool), cancels what is queued and calls ``on_stop``
    (which may end the deals under way: a broken pool waits for its workers to end, and
    they ignore its SIGTERM)."""
    pending: set[concurrent.futures.Future[StudyRow]] = set()
    queue = iter(tasks)
    finished = False
    try:
        while True:
            for task in queue:
                pending.add(executor.submit(solve_deal, task))
                if len(pending) >= in_flight:
                    break
            if not pending:
                finished = True
                return
            done, pending = concurrent.futures.wait(
                pending, return_when=concurrent.futures.FIRST_COMPLETED)
            for future in done:
                yield future.result()
    finally:
        for future in pending:
            future.cancel()
        if not finished and on_stop is not None:
            on_stop()


Runner = Callable[[Iterable[DealTask]], Iterator[StudyRow]]


def process_runner(stack: ExitStack, workers: int) -> Runner:
    """Run the deals on ``workers`` processes of this machine.

    The workers ignore Ctrl-C and SIGTERM (:mod:`gapgrid.api.study_stop`): when
    the study stops early, it kills them, rather than wait for the deals they
    are solving (up to the budget, an hour at most). On Linux they are forked
    by the command itself (Python 3.14 would start them from a fork server,
    which outlives a command killed outright, and them with it), so that they
    die with it (:func:`~gapgrid.api.study_stop.die_with`).
    """
    others = set(multiprocessing.active_children())  # not ours to kill (a caller's own)
    context = (multiprocessing.get_context("fork") if sys.platform.startswith("linux")
               else None)
    executor = stack.enter_context(concurrent.futures.ProcessPoolExecutor(
        max_workers=workers, mp_context=context, initializer=ignore_stop_signals,
        initargs=(os.getpid(),)))
    stack.callback(executor.shutdown, wait=True, cancel_futures=True)

    def kill_workers() -> None:
        for process in multiprocessing.active_children():
            if process not in others:
                process.kill()

    return functools.partial(run_on_executor, executor,
                             in_flight=workers * IN_FLIGHT_PER_WORKER, on_stop=kill_workers)


def dask_runner(stack: ExitStack, address: str, stop: Stop | None = None) -> Runner:
    """Run the deals on the dask.distributed cluster whose scheduler is at ``address``;
    a stop signal (``stop``) while it connects ends the command at once, as a stopped one."""
    try:
        import distributed  # optional: only this way of running needs it
    except ImportError:
        raise click.UsageError(
            "--dask needs dask.distributed, which is not installed: "
            "pip install 'gapgrid[study]' (or pip install 'dask[distributed]')") from None
    _check_dask_address(address)
    client = stack.enter_context(_connect(distributed.Client, address, stop))
    threads = sum(client.nthreads().values()) or 1
    # The client's concurrent.futures face: the same windowed loop as the process pool.
    executor = client.get_executor(pure=False)
    return functools.partial(run_on_executor, executor,
                             in_flight=threads * IN_FLIGHT_PER_WORKER)


def _check_dask_address(address: str) -> None:
    """A usage error naming ``--dask`` for an address no Dask scheduler can have, before any
    client is made: one that fails on it is left half made, and at exit it waited 20 s to
    close, with a traceback."""
    from distributed.comm import registry
    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        scheme, location = parse_address(address)
        registry.get_backend(scheme)  # an unknown scheme (http://, say)
        if scheme in ("tcp", "tls"):
            _, port = parse_host_port(location)  # a host and a port, as the client wants them
            if not 0 < int(port) < 65536:
                raise ValueError(f"port {port} is not one (1 to 65535)")
    except ValueError as error:
        raise click.BadParameter(f"no Dask scheduler answers at {address}: {error}",
                                 param_hint="--dask") from None


def _connect(client_class: Any, address: str, stop: Stop | None = None) -> Any:
    """A client of the Dask scheduler at ``address``; a usage error naming ``--dask`` when
    none answers within :data:`DASK_CONNECT_SECONDS`; when ``stop`` notes a stop signal
    meanwhile, the command ends at once with 128 plus its number, saying so (it waited
    for the deadline, then called the address unreachable).

    The client is made on a thread of its own, waited for with a deadline: its
    ``timeout`` bounds the TCP connection only, and a listener that accepts and
    never answers (not a Dask scheduler) would hold the handshake, and the
    command, for as long as it keeps the connection open.
    """
    made: concurrent.futures.Future[Any] = concurrent.futures.Future()

    def connect() -> None:
        try:
            # Not the process's default client: one that answers after the deadline, or
            # fails half made, must not be picked up by anything else in this process.
            made.set_result(client_class(address, timeout=f"{DASK_CONNECT_SECONDS:g}s",
                                         set_as_default=False))
        except BaseException as error:  # whatever went wrong is the address's answer
            made.set_exception(error)

    threading.Thread(target=connect, name="gapgrid-dask-connect", daemon=True).start()
    deadline = time.monotonic() + DASK_CONNECT_SECONDS + 1
    while not made.done() and time.monotonic() < deadline:
        if stop is not None and stop.signal is not None:
            tell(f"gapgrid: {signal_word(stop.signal)} while connecting to the Dask "
                 f"scheduler at {address}: no deal was solved, and no study file written "
                 f"or changed")
            raise click.exceptions.Exit(stop.exit_status)
        concurrent.futures.wait([made], timeout=STOP_POLL_SECONDS)
    try:
        return made.result(timeout=0)
    except concurrent.futures.TimeoutError:
        raise click.BadParameter(f"no Dask scheduler answered at {address} within "
                                 f"{DASK_CONNECT_SECONDS:g} s", param_hint="--dask") from None
    except (OSError, ValueError) as error:  # refused, unreachable, or not an address
        raise click.BadParameter(f"no Dask scheduler answers at {address}: {error}",
                                 param_hint="--dask") from None
    except Exception:
        # Reading a server that is not a scheduler can fail in any way (a MemoryError for
        # a frame length read from an HTTP reply): its text would only mislead.
        raise click.BadParameter(f"no Dask scheduler answers at {address}: the server "
                                 f"there does not speak Dask's protocol (a scheduler "
                                 f"listens on port 8786 unless told otherwise)",
                                 param_hint="--dask") from None


# -- the command ----------------------------------------------------------------------------------


def _study_slugs(catalogue: Catalogue, variant: str, options: dict[str, str]
                 ) -> tuple[list[str], dict[str, str]]:
    """The slugs the study solves, each checked with ``options``, and the options as the rules
    read them (``REDEALS=01`` is ``redeals=1``: the options given are one study however they
    are typed; an option left at its default is not one given); a usage error if not."""
    slugs = catalogue.slugs() if variant == "all" else [games.find_entry(catalogue, variant).slug]
    if not slugs:
        raise click.BadParameter("no variant is loaded (GAPGRID_DISABLE_PLUGINS, or plugins "
                                 "that failed, said above): there is nothing to study",
                                 param_hint="VARIANT")
    read = [games.game_rules(catalogue, slug, options)  # refuses an option a variant lacks
            for slug in slugs]
    # An option's parser is the registry's, one for every variant: any slug's reading does.
    normal = {key.strip().lower(): read[0].options[key.strip().lower()] for key in options}
    return slugs, normal


def _default_out(variant: str, options: dict[str, str], search: SearchMode) -> Path:
    """``study-montana-redeals-0.csv`` for ``montana --option redeals=0``, ending in
    ``-complete.csv`` for ``--search complete`` (a file holds one search's rows)."""
    parts = [variant, *(f"{key}-{value}" for key, value in sorted(options.items()))]
    if search != "whole":
        parts.append(search)
    return Path("study-" + "-".join(parts) + ".csv")


def _open_for_append(path: Path, resume: bool, settings: StudySettings,
                     slugs: Sequence[str]) -> tuple[BinaryIO, StudyFile | None]:
    """Open the study file to append rows, after checking it may be; return it and what it
    holds (None for a new file). A partial last line (an interruption mid-write) is cut off
    first."""
    exists = path.exists() and not path.is_dir() and path.stat().st_size > 0
    if exists and not resume:
        raise click.BadParameter(f"{path} already exists: pass --resume to continue the study "
                                 f"it holds, or choose another --out", param_hint="--out")
    handle = _open_held(path, create=not exists)
    found = _read_held(handle, path, settings, slugs, retry=False) if exists else None
    if handle.tell() == 0:  # a new file, or one cut inside its header
        handle.write(HEADER_LINE.encode())
        handle.flush()
    return handle, found


def _open_held(path: Path, create: bool = False) -> BinaryIO:
    """Open the study file at ``path`` (a new one when ``create``) and hold it
    (:func:`_hold`); a usage error if not."""
    try:
        handle = path.open("wb") if create else path.open("r+b")
    except OSError as error:
        raise click.BadParameter(f"cannot write {path}: {error.strerror or error}",
                                 param_hint="--out") from None
    _hold(handle, path)
    return handle


def _read_held(handle: BinaryIO, path: Path, settings: StudySettings, slugs: Sequence[str],
               retry: bool) -> StudyFile:
    """Read the study file this command holds in ``handle``, check that this study may add
    to it (:func:`check_resumable`), and leave ``handle`` at the end of its last whole row:
    a partial last line (an interruption mid-write) is cut off, so the next row starts clean.
    Read only once held, so no other study can change it in between."""
    try:
        found = read_study_file(path)
        check_resumable(path, found, settings, slugs, retry=retry)
    except (StudyFileError, OSError) as error:
        handle.close()
        reason = (str(error) if isinstance(error, StudyFileError)
                  else f"cannot read {path}: {error.strerror or error}")
        raise click.BadParameter(reason, param_hint="--out") from None
    handle.truncate(found.complete_bytes)
    handle.seek(found.complete_bytes)
    return found


def _upgrade_held(handle: BinaryIO, path: Path, settings: StudySettings,
                  slugs: Sequence[str], retry: bool) -> BinaryIO:
    """Rewrite the study file held in ``handle``, written before rows recorded the memory
    cap, under the current header (:func:`upgrade_study_file`), so that the rows this study
    is about to add can record it; return the upgraded file, held and positioned for
    appending. The old file is let go only once the new one is held. Called only when rows
    will be added: a command that adds none leaves the file as it was."""
    try:
        upgrade_study_file(path)
        upgraded = _open_held(path)
    except (StudyFileError, OSError) as error:
        handle.close()
        reason = str(error) if isinstance(error, StudyFileError) else error.strerror or error
        raise click.BadParameter(f"cannot add the budget_memory_mib column (the memory cap "
                                 f"of each row) to {path}, written before rows recorded it: "
                                 f"{reason}", param_hint="--out") from None
    except BaseException:
        handle.close()
        raise
    handle.close()
    _read_held(upgraded, path, settings, slugs, retry)
    click.echo(f"gapgrid: {path} now has a budget_memory_mib column, empty in the rows "
               f"written before rows recorded the memory cap", err=True)
    return upgraded


def _hold(handle: BinaryIO, path: Path) -> None:
    """Keep the study file to this command while it writes (:func:`hold`); a usage error,
    the file closed, when another command holds it."""
    try:
        held = hold(handle, path)
    except OSError as error:
        handle.close()
        raise click.BadParameter(f"cannot lock {path}: {error.strerror or error}",
                                 param_hint="--out") from None
    if not held:
        handle.close()
        raise click.BadParameter(f"another gapgrid study is writing {path} now: wait until it "
                                 f"ends, or choose another --out", param_hint="--out")


def _progress_bar(total: int, initial: int) -> Any:
    """A progress bar with the time left, on standard error, only when it is a terminal."""
    from tqdm import tqdm  # imported here: no other command pays for it

    return tqdm(total=total, initial=initial, unit="deal", file=sys.stderr,
                disable=not sys.stderr.isatty(), dynamic_ncols=True, smoothing=0.05)


@click.command("study")
@click.argument("variant")
@option_flag
@click.option("--deals", type=WholeNumberRange(), default=200, show_default=True, metavar="N",
              help="How many game numbers to solve per variant.")
@click.option("--first-deal", type=WholeNumberRange(), default=1, show_default=True,
              metavar="K",
              help="The first PySolFC game number.")
@click.option("--game-numbers", callback=game_numbers_option, default=None, metavar="LIST",
              help="Solve these PySolFC game numbers instead of K..K+N-1: numbers and "
                   "ranges A-B, separated by commas (e.g. 128,161,200-210), each solved "
                   "once, in increasing order. With --retry-unknown, retry those only.")
@click.option("--budget", type=FiniteFloatRange(), default=DEFAULT_BUDGET_SECONDS,
              show_default=True,
              metavar="SECONDS",
              help=f"Solver time per deal, at most {MAX_BUDGET_SECONDS:g} s; past it a deal "
                   f"is unknown.")
@click.option("--max-positions", type=WholeNumberRange(min=1), default=None, metavar="P",
              help="Also stop a deal after P positions: a budget that gives the same "
                   "verdicts on any machine.")
@click.option("--workers", type=WholeNumberRange(1, MAX_WORKERS), default=1, show_default=True,
              metavar="W",
              help="Processes solving deals on this machine.")
@click.option("--memory", "memory_mib", type=WholeNumberRange(min=MIN_MEMORY_MIB),
              default=DEFAULT_MEMORY >> 20, show_default=True, metavar="MIB",
              help="Each deal's search tables may hold this many MiB (an estimate; the "
                   "process needs some more). Once they are full the deal can still be won, "
                   "not proven lost; its row says it stopped by memory, and every row "
                   "records the cap. Given with --retry-unknown, the deals whose tables "
                   "filled at a smaller cap (or one their rows do not record) are retried "
                   "at the same budget too.")
@click.option("--search", type=click.Choice(SEARCH_MODES), default="whole", show_default=True,
              help="What the solver runs: every search it has, or the complete restarts "
                   "alone with the whole budget, the search that proves a loss in a large "
                   "space (for the deals a study left unknown: --skip-decided-in its "
                   "file), or the entry probes alone, a search for the wins they reach "
                   "late. Their rows record the solver version with -complete or -entries "
                   "after it; once their tables are full, a deal stops there, unknown.")
@click.option("--dask", "dask_address", metavar="ADDRESS",
              help="Solve on the dask.distributed cluster whose scheduler is at ADDRESS "
                   "(e.g. tcp://10.0.0.5:8786) instead.")
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="The CSV file (default: study-VARIANT[-OPTIONS].csv here).")
@click.option("--resume", is_flag=True,
              help="Continue the study in --out, skipping the deals it already has.")
@click.option("--retry-unknown", is_flag=True,
              help="Solve again, at this larger budget, the deals --out left unknown at a "
                   "smaller one: all of them, those from --first-deal K on, or with --deals "
                   "N those of K..K+N-1. Each new row replaces the old one. Run again after "
                   "an interruption.")
@click.option("--skip-decided-in", "decided_in", multiple=True, metavar="FILE.csv",
              type=click.Path(path_type=Path, dir_okay=False),
              help="Leave out the deals another study file (of any solver or budget, e.g. "
                   "the studies merged) has decided (repeatable).")
@json_flag
@click.pass_context
def study(ctx: click.Context, variant: str, options: Sequence[str], deals: int,
          first_deal: int, game_numbers: GameNumbers | None, budget: float,
          max_positions: int | None, workers: int,
          memory_mib: int, search: SearchMode, dask_address: str | None, out: Path | None,
          resume: bool, retry_unknown: bool, decided_in: Sequence[Path],
          as_json: bool) -> None:
    """Solve game numbers of VARIANT (or all variants and presets) and tell how often the
    game can be won.

    One CSV row per deal is appended as soon as it is solved (variant,
    options, game number, verdict, line length, positions, seconds, solver
    version, budget, the winning line and the memory cap), so an interrupted
    study loses nothing: run the same command with --resume to go on. At
    the end the file is sorted by deal and a summary printed, also when
    Ctrl-C or SIGTERM stops it. Exit status 2 for a usage error, 130 after
    Ctrl-C, 143 after SIGTERM.

    --retry-unknown escalates a finished study: the deals it left unknown are
    solved again at the larger budget given, and their rows record it.

    --json prints the summary as one JSON document instead (the messages and
    the progress bar go to standard error either way).
    """
    catalogue = load_catalogue(ctx)
    option_values = parse_option_pairs(options)
    given = ctx.get_parameter_source
    if game_numbers is not None:
        ranged = [name for name in ("deals", "first_deal")
                  if given(name) is not click.core.ParameterSource.DEFAULT]
        if ranged:
            raise click.UsageError(f"--game-numbers and --{ranged[0].replace('_', '-')} "
                                   f"exclude each other: the list says which deals")
        deals = game_numbers.count
    if deals <= 0:
        raise click.BadParameter(f"{deals:,} deals: a study solves at least one",
                                 param_hint="--deals")
    if first_deal < 1 or first_deal + deals - 1 > MAX_NUMBER:
        raise click.BadParameter(f"game numbers run from 1 to {MAX_NUMBER}",
                                 param_hint="--first-deal / --deals")
    if not 0 < budget <= MAX_BUDGET_SECONDS:
        raise click.BadParameter(f"{budget:g} s: the budget is more than 0 and at most "
                                 f"{MAX_BUDGET_SECONDS:g} s per deal", param_hint="--budget")
    if dask_address is not None and workers != 1:
        raise click.UsageError("--workers and --dask exclude each other: the cluster's "
                               "workers solve the deals")
    memory_given = ctx.get_parameter_source("memory_mib") not in (
        click.core.ParameterSource.DEFAULT, None)
    if resume and retry_unknown:
        raise click.UsageError("--resume and --retry-unknown exclude each other: --resume "
                               "solves the deals a study has not reached, --retry-unknown "
                               "the ones it left unknown")
    budget = budget_seconds_as_stored(budget)  # as the rows will hold it
    try:
        slugs, option_values = _study_slugs(catalogue, variant, option_values)
    except ServiceError as error:
        hint = "--option" if error.field[:1] == ("options",) else "VARIANT"
        raise click.BadParameter(error.message, param_hint=hint) from None
    path = out if out is not None else _default_out(variant, option_values, search)
    try:
        is_folder = path.is_dir()
        is_file = path.is_file()
        is_other = path.exists() and not is_folder and not is_file
        has_rows = is_file and path.stat().st_size > 0  # what --resume reads, and keeps
    except OSError as error:  # a name too long: some Pythons' Path.is_dir raise for it
        raise click.BadParameter(f"cannot write {path}: {error.strerror or error}",
                                 param_hint="--out") from None
    if is_folder:
        raise click.BadParameter(f"{path} is a folder, not a CSV file", param_hint="--out")
    if is_other:  # a FIFO would hang the open, a device would take the rows
        raise click.BadParameter(f"{path} is not a regular file: a study file is a CSV file "
                                 f"on disk", param_hint="--out")
    settings = StudySettings(options=options_text(option_values),
                             solver_version=version_of(search), budget_seconds=budget,
                             budget_positions=max_positions)
    option_pairs = tuple(sorted(option_values.items()))
    numbers: GameNumbers | range = (game_numbers if game_numbers is not None
                                    else range(first_deal, first_deal + deals))
    decided = _decided_in(decided_in)
    if retry_unknown:
        if (game_numbers is not None
                or given("deals") is not click.core.ParameterSource.DEFAULT):
            chosen: Container[int] | None = numbers
        elif given("first_deal") is not click.core.ParameterSource.DEFAULT:
            chosen = range(first_deal, MAX_NUMBER + 1)  # from K on: no --deals, no upper end
        else:
            chosen = None
        def retry_runner(stack: ExitStack, count: int, stop: Stop) -> Runner:
            """A worker for each deal to retry at most, with room for its tables."""
            if memory_given and dask_address is None:  # a cluster's machines are not this one
                check_memory(memory_mib, min(workers, count))
            return _runner(dask_address, min(workers, count), stack, stop)

        _study_retry(ctx, path, settings, search, slugs, option_pairs, chosen,
                     memory_mib << 20 if memory_given else None, decided, as_json,
                     runner_for=retry_runner)
        return
    chosen_slugs = set(slugs)
    skipped = [key for key in decided
               if key[0] in chosen_slugs and key[1] == settings.options and key[2] in numbers]
    left_out = ""
    if skipped:
        files = ", ".join(sorted({str(decided[key]) for key in skipped}))
        left_out = (f"gapgrid: {len(skipped):,} of the {plural(len(slugs) * deals, 'deal')} "
                    f"{_are(len(skipped))} decided in {files}: left out")
    total = len(slugs) * deals - len(skipped)
    if total == 0:
        click.echo(f"{left_out}: nothing was left to solve", err=True)
        if as_json:  # a script still gets its document: no study, every deal left out
            echo_json({"file": str(path), "studies": [], "left_out": len(skipped),
                       "stopped_by_signal": None})
        return
    workers = min(workers, total)  # a worker for each deal at most: no idle processes
    local = dask_address is None  # a Dask cluster's machines are not this one
    resumed = resume and has_rows  # its memory is checked once the deals left are known
    if memory_given and local and not resumed:  # before a file is made
        check_memory(memory_mib, workers)
    # Generators, not lists: a study of a million deals queues a handful at a time.
    wanted = ((slug, number) for slug in slugs for number in numbers
              if (slug, settings.options, number) not in decided)
    with stop_signals() as stop:
        with ExitStack() as stack:
            # A cluster first: a missing dask or an unreachable scheduler leaves no file.
            runner = None if local else _runner(dask_address, workers, stack, stop)
            handle, found = _open_for_append(path, resume, settings, slugs)
            stack.callback(lambda: _close_held(handle))  # the file held at the end
            done = found.done if found is not None else frozenset()
            if left_out:
                click.echo(left_out, err=True)
            if compiled_modules() and dask_address is None:
                click.echo("gapgrid: the search runs compiled (python -m gapgrid.api.compiled)",
                           err=True)
            already = sum(1 for key in done
                          if key[0] in chosen_slugs and key[1] == settings.options
                          and key[2] in numbers and key not in decided)
            if done:
                click.echo(f"gapgrid: resuming {path}: {already:,} of the "
                           f"{plural(total, 'deal')} {_are(already)} done", err=True)
            elif resume:  # a mistyped --out would start over unsaid
                click.echo(f"gapgrid: {path} holds no deal yet: the study starts from its "
                           f"first", err=True)
            if runner is None:  # this machine's processes: one for each deal left at most
                workers = min(workers, total - already)
                if memory_given and resumed and workers:
                    check_memory(memory_mib, workers)
                runner = _runner(None, workers, stack)
            if found is not None and found.before_memory and already < total:
                handle = _upgrade_held(handle, path, settings, slugs, retry=False)
            tasks = (DealTask(variant=slug, options=option_pairs, game_number=number,
                              budget_seconds=budget, budget_positions=max_positions,
                              memory=memory_mib << 20, search=search)
                     for slug, number in wanted
                     if (slug, settings.options, number) not in done)
            _write_rows(stack, handle, runner, tasks, total, already, stop,
                        settings.solver_version)
            _sort_held(path, stop)  # while the file is still held
        in_file = _finish(ctx, path, stop, " with --resume", as_json=as_json,
                          left_out=len(skipped))
        if left_out:  # the summary is of the file's deals, not of the game
            above = "" if as_json else " above"  # the JSON document is on standard output
            click.echo(f"{left_out}; the summary{above} is of the "
                       f"{plural(in_file, 'deal')} {path} holds only: "
                       f"merge the files (python -m gapgrid.api.study_merge) for the "
                       f"game's figures", err=True)


def _runner(dask_address: str | None, workers: int, stack: ExitStack,
            stop: Stop | None = None) -> Runner:
    """Where the deals are solved: this process, a pool of ``workers``, or a Dask cluster
    (whose connection a stop signal, noted by ``stop``, cuts short)."""
    if dask_address is not None:
        return dask_runner(stack, dask_address, stop)
    if workers > 1:
        return process_runner(stack, workers)
    return run_serially


def _write_rows(stack: ExitStack, handle: BinaryIO, runner: Runner, tasks: Iterable[DealTask],
                total: int, already: int, stop: Stop, version: str) -> None:
    """Solve ``tasks`` and append their rows to ``handle`` as they come, under a progress bar,
    until they are done or ``stop`` is signalled; every row has solver ``version``."""
    bar = stack.enter_context(_progress_bar(total, already))
    if stop.signal is not None:
        return  # stopped while the file was being read: solve nothing
    try:
        stop.interruptible = True
        for row in runner(tasks):
            if row.solver_version != version:  # a Dask worker with another gapgrid
                raise click.ClickException(
                    f"a worker solved game {row.game_number} with solver version "
                    f"{row.solver_version}, this command has version {version}: "
                    f"install the same gapgrid on every worker")
            try:
                line = row.csv_line()
            except StudyFileError as error:
                # a solver's bug (an internal error, exit 3): the file stays readable
                raise RuntimeError(
                    f"game {row.game_number}'s row is not one a study file may hold "
                    f"({error}), so it is not written: the rows so far are in "
                    f"{handle.name}") from None
            _append_row(handle, line)
            bar.update(1)
            if stop.signal is not None:  # a signal whose exception was lost: stop at a row
                break
    except KeyboardInterrupt:
        if stop.signal is None:  # not from a signal handled here (another thread's Ctrl-C)
            stop.signal = signal.SIGINT
    except concurrent.futures.process.BrokenProcessPool:
        raise SetupError(f"a worker process died while solving (killed, or out of memory?): "
                         f"the rows so far are in {handle.name}; run the command again "
                         f"(--resume, or --retry-unknown as before) to go on") from None
    finally:
        stop.interruptible = False
        # A row stopped between its write and its flush is kept for the sort; one the
        # machine refused has been said already, and resuming solves its deal again.
        with contextlib.suppress(OSError):
            handle.flush()


def _close_held(handle: BinaryIO) -> None:
    """Close the study file at the end. Every row was flushed as it was written, so all a
    close can still have to write is a row the machine refused (said already, by
    :func:`_append_row`): the machine refusing it again is no news."""
    with contextlib.suppress(OSError):
        handle.close()


def _append_row(handle: BinaryIO, line: str) -> None:
    """Append one row's line to the study file and flush it: one write per whole line, so a
    crash leaves whole rows and at worst one partial last line, which resuming cuts off. A
    write the machine refuses (no room, a file size limit, a read-only disk) is the
    environment's error, said in one line, not a bug."""
    try:
        handle.write(line.encode())
        handle.flush()
    except OSError as error:
        raise SetupError(f"cannot write {handle.name}: {error.strerror or error}; the rows "
                         f"before it are in the file: run the command again (--resume, or "
                         f"--retry-unknown as before) to go on") from None


def _sort_held(path: Path, stop: Stop) -> None:
    """Sort the study file this command holds (:func:`sort_study_file`); when that cannot be
    done (no room, no right to write in its folder), say so in one line: every row is in
    the file all the same. That is exit status 2, but for a study a signal stopped: it
    still ends with 128 plus the signal's number (:func:`_finish`), as a script waiting
    for it is told."""
    try:
        sort_study_file(path)
    except (OSError, StudyFileError) as error:
        reason = str(error) if isinstance(error, StudyFileError) else error.strerror or error
        message = (f"every row is in {path}, in the order the deals were solved, but it "
                   f"could not be sorted: {reason}")
        if stop.signal is None:
            raise SetupError(message) from None
        tell(f"gapgrid: {message}")


def _finish(ctx: click.Context, path: Path, stop: Stop, again: str, *, as_json: bool,
            left_out: int) -> int:
    """Print the summary of the study in ``path`` (each deal's latest row), in words or as
    JSON (with how many deals this command ``left_out`` as decided in another file, and
    the signal that stopped it, if one did), and exit with 128 plus the signal's number
    when a signal stopped it; return how many deals the summary is of."""
    summaries = list(summarise(iter_latest_rows(path)))
    if as_json:
        stopped = None if stop.signal is None else signal.Signals(stop.signal).name
        echo_json({"file": str(path), "studies": [summary.as_json() for summary in summaries],
                   "left_out": left_out, "stopped_by_signal": stopped})
    else:
        for summary in summaries:
            click.echo("\n".join(summary.lines()))
    if stop.signal is not None:
        so_far = (f"the rows so far are in {path}" if summaries
                  else "no deal was finished yet, so there is nothing to sum up")
        # said if standard error can take it: the exit status says it all the same
        tell(f"gapgrid: {signal_word(stop.signal)}; {so_far}: run the same command{again} to "
             f"go on")
        ctx.exit(stop.exit_status)
    return sum(summary.deals for summary in summaries)


def _are(count: int) -> str:
    """The verb after "N of the ...": ``1 of the 6 deals is``, ``2 of the 6 deals are``."""
    return "is" if count == 1 else "are"


def _budgets_text(budgets: Iterable[StudySettings]) -> str:
    """Distinct budgets in words, smallest first: ``10 s; 60 s or 5,000 positions``."""
    return "; ".join(each.budget_text() for each in sorted(set(budgets), key=budget_order))


def _decided_in(paths: Sequence[Path]) -> dict[tuple[str, str, int], Path]:
    """The deals the study files ``paths`` decided (their latest row won or lost), each with
    the first file that did; a usage error for a file that cannot be read as a study."""
    decided: dict[tuple[str, str, int], Path] = {}
    for path in paths:
        try:
            found = read_study_file(path)
        except (StudyFileError, OSError) as error:
            reason = (str(error) if isinstance(error, StudyFileError)
                      else f"cannot read {path}: {error.strerror or error}")
            raise click.BadParameter(reason, param_hint="--skip-decided-in") from None
        for key in found.done:
            if key not in found.unknown:
                decided.setdefault(key, path)
    return decided


def _study_retry(ctx: click.Context, path: Path, settings: StudySettings, search: SearchMode,
                 slugs: Sequence[str], option_pairs: tuple[tuple[str, str], ...],
                 numbers: Container[int] | None,
                 memory: int | None, decided: Mapping[tuple[str, str, int], Path],
                 as_json: bool, runner_for: Callable[[ExitStack, int, Stop], Runner]) -> None:
    """``--retry-unknown``: solve again, under ``settings``' larger budget, the deals of the
    study in ``path`` whose latest row is unknown at a smaller budget (those of ``numbers``
    only, when given) and that are not in ``decided`` (deals other studies decided, with
    the file that did), appending their new rows. Each search's tables hold ``memory``
    bytes at most (None: the default, not given); when it is given, the deals whose
    search stopped because its tables were full at a smaller cap (or an unrecorded one)
    are retried at the same budget too."""
    if not (path.exists() and path.is_file() and path.stat().st_size > 0):
        raise click.BadParameter(f"{path} does not exist: --retry-unknown solves again the "
                                 f"unknown deals of a study already run", param_hint="--out")
    with stop_signals() as stop, ExitStack() as held:  # held until it is sorted
        handle = _open_held(path)
        held.callback(lambda: _close_held(handle))  # the file held at the end
        found = _read_held(handle, path, settings, slugs, retry=True)
        chosen = set(slugs)
        unknown = {key: before for key, before in found.unknown.items()
                   if key[0] in chosen and key[1] == settings.options
                   and (numbers is None or key[2] in numbers)}
        skipped = {key for key in unknown if key in decided}
        unknown = {key: before for key, before in unknown.items() if key not in skipped}
        # With a larger --memory, the deals whose tables filled deserve another go at the
        # same budget (a row written before rows recorded the cap is taken to be smaller).
        filled = {key: found.stopped_by_memory[key] for key, before in unknown.items()
                  if before == settings and key in found.stopped_by_memory}
        refill = ({key for key, cap in filled.items() if cap is None or cap << 20 < memory}
                  if memory is not None else set())
        retry = sorted(key for key, before in unknown.items()
                       if settings.exceeds(before) or key in refill)
        if skipped:
            files = sorted({str(decided[key]) for key in skipped})
            click.echo(f"gapgrid: {len(skipped):,} of the "
                       f"{plural(len(skipped) + len(unknown), 'unknown deal')} of {path} "
                       f"{_are(len(skipped))} decided in {', '.join(files)}: left out",
                       err=True)
        same = [key for key, before in unknown.items() if before == settings]
        if not retry and len(same) < len(unknown):
            beyond = [before for before in unknown.values() if before != settings]
            raise click.BadParameter(
                f"{plural(len(beyond), 'unknown deal')} of {path} had "
                f"{_budgets_text(beyond)}: a retry "
                f"needs a larger budget, no smaller in seconds nor in positions (--budget, "
                f"--max-positions)", param_hint="--budget")
        if not retry:
            already = (f" (its {plural(len(same), 'unknown deal')} had this budget)" if same
                       else "")
            if filled:
                caps = [cap for cap in filled.values() if cap is not None]
                larger = f" larger than {max(caps):,} MiB" if caps else ""
                if caps and len(caps) < len(filled):
                    larger = (f" (larger than {max(caps):,} MiB for the {len(caps):,} "
                              f"whose rows record it)")
                already = (f" (its {plural(len(same), 'unknown deal')} had this budget; "
                           f"{len(filled):,} filled their tables: give a --memory{larger} to "
                           f"retry those)")
            click.echo(f"gapgrid: {path} has no unknown deal to retry{already}", err=True)
            _finish(ctx, path, stop, "", as_json=as_json, left_out=len(skipped))
            return
        tasks = (DealTask(variant=variant, options=option_pairs, game_number=number,
                          budget_seconds=settings.budget_seconds,
                          budget_positions=settings.budget_positions,
                          memory=DEFAULT_MEMORY if memory is None else memory,
                          search=search)
                 for variant, _, number in retry)
        with ExitStack() as stack:
            # The runner first: a refused --memory, or a cluster out of reach, leaves the
            # file as it was.
            runner = runner_for(stack, len(retry), stop)
            if found.before_memory:
                handle = _upgrade_held(handle, path, settings, slugs, retry=True)
            again = f"; {len(refill)} filled their tables" if refill else ""
            click.echo(f"gapgrid: retrying {plural(len(retry), 'unknown deal')} of {path} at "
                       f"{settings.budget_text()} (they had "
                       f"{_budgets_text(unknown[key] for key in retry)}{again})", err=True)
            _write_rows(stack, handle, runner, tasks, len(retry), 0, stop,
                        settings.solver_version)
            _sort_held(path, stop)  # while the file is still held
        _finish(ctx, path, stop, "", as_json=as_json, left_out=len(skipped))
