"""How long commands stop: Ctrl-C or SIGTERM, at any moment, and what they owe is still done.

``gapgrid solve`` and ``hint`` stop their search at once on either signal and
say so, as a JSON document under ``--json`` (:class:`Terminated` tells SIGTERM
from Ctrl-C). The rest of this docstring is ``gapgrid study``'s case, whose file
still ends sorted.

A study runs for hours, often in the background (``nohup gapgrid study ...
&``), where its shell has started it with Ctrl-C ignored: ``kill`` (SIGTERM),
or a service manager stopping it, is then the way to stop it. Either signal
stops the deals being solved; the rows written so far are then sorted and
summarised as after a finished study, and the command exits with 128 plus
the signal's number (130 after Ctrl-C, 143 after SIGTERM), as a shell reports
a command a signal ended.

While rows are being written a signal stops the writing at once
(KeyboardInterrupt, as Python's own Ctrl-C does). Before and after that, a
signal is only noted: the command goes on to sort the file and print the
summary, which a second impatient Ctrl-C cannot cut short, and then exits as
stopped. The pool's worker processes ignore both signals (they are sent to a
whole process group by a terminal or a service manager); the command kills
them itself when it stops, since the deals they are solving are unfinished
and a resumed study solves them again anyway.
"""

from __future__ import annotations

import _thread
import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any, Final

STOP_SIGNALS: Final = (signal.SIGINT, signal.SIGTERM)
"""Ctrl-C, and what ``kill`` and service managers send."""


RESEND_SECONDS: Final = 0.01
"""How long after a stop's exception was dropped (:meth:`Stop.lost`) its signal comes again."""


class Terminated(KeyboardInterrupt):
    """What SIGTERM raises where Ctrl-C raises a KeyboardInterrupt (:meth:`Stop.receive`): it
    unwinds the same way (the search re-raises it as itself, :mod:`gapgrid.core.search`), and
    the command can still tell the two apart (143 and "terminated", not 130)."""


def signal_word(number: int) -> str:
    """How a command says which stop signal ended it: "terminated" for SIGTERM (``kill``, a
    service manager), "interrupted" for Ctrl-C (or a KeyboardInterrupt from elsewhere)."""
    return "terminated" if number == signal.SIGTERM else "interrupted"


def signal_of(interruption: KeyboardInterrupt) -> int:
    """The stop signal a KeyboardInterrupt stands for: SIGTERM for :class:`Terminated`,
    SIGINT for any other."""
    return signal.SIGTERM if isinstance(interruption, Terminated) else signal.SIGINT


class Stop:
    """Whether, and by which signal, a command was asked to stop."""

    def __init__(self) -> None:
        self.signal: int | None = None
        """The first stop signal received (or SIGINT for a KeyboardInterrupt from elsewhere)."""
        self.interruptible = False
        """The work under way stops at once on a signal (a study's rows being written, a
        search): the signal raises :class:`Terminated` or KeyboardInterrupt."""
        self.received = False
        """A signal reached :meth:`receive` (the process is stopping)."""
        self.raised: KeyboardInterrupt | None = None
        """The exception :meth:`receive` raised last (:meth:`lost` knows it by it)."""

    def receive(self, number: int, frame: FrameType | None) -> None:
        """The signal handler: note the signal; while the work is interruptible, stop it."""
        self.received = True
        if self.signal is None:
            self.signal = number
        if self.interruptible:
            self.interruptible = False  # a second signal during the unwinding is only noted
            self.raised = Terminated() if number == signal.SIGTERM else KeyboardInterrupt()
            raise self.raised

    def lost(self, unraisable: Any) -> bool:
        """Whether ``unraisable`` (what ``sys.unraisablehook`` is given) is this stop's
        exception, raised by :meth:`receive` in code whose exceptions Python drops: a
        finalizer (a generator closed by the garbage collector, as the solver's rollouts
        are at the end of a deal). The stop is then armed again and the signal sent once
        more, a moment later (from a timer's thread, so that it is raised once the
        finalizer is over); a study had gone on to its last deal. The signal is sent as
        Python's own (``_thread.interrupt_main``): its handler runs on the main thread,
        and no signal reaches the process (on Windows ``os.kill`` would end it at once)."""
        if self.raised is None or unraisable.exc_value is not self.raised:
            return False  # another KeyboardInterrupt: not this stop's to send again
        self.raised = None
        self.interruptible = True
        again = threading.Timer(RESEND_SECONDS, _thread.interrupt_main, (self.signal,))
        again.daemon = True
        again.start()
        return True

    @property
    def exit_status(self) -> int:
        """128 plus the signal's number, as a shell reports a command a signal ended."""
        assert self.signal is not None
        return 128 + self.signal


@contextmanager
def stop_signals(interruptible: bool = False) -> Iterator[Stop]:
    """Handle Ctrl-C and SIGTERM as :class:`Stop` says for as long as the block lasts, the
    work interruptible from the start if ``interruptible``.

    A signal that this process ignores (Ctrl-C in a background job) stays
    ignored. Off the main thread (where Python lets no code handle signals)
    nothing changes, and a KeyboardInterrupt is all there is.
    """
    stop = Stop()
    stop.interruptible = interruptible
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return
    previous = {}
    for number in STOP_SIGNALS:
        if signal.getsignal(number) is not signal.SIG_IGN:
            previous[number] = signal.signal(number, stop.receive)
    other_hook = sys.unraisablehook

    def hook(unraisable: Any) -> None:
        if not stop.lost(unraisable):
            other_hook(unraisable)
    sys.unraisablehook = hook
    try:
        yield stop
    finally:
        sys.unraisablehook = other_hook
        if stop.received:
            _stay_deaf(list(previous))
        else:
            for number, handler in previous.items():
                # None: a handler not installed from Python; the default is the nearest to it
                signal.signal(number, signal.SIG_DFL if handler is None else handler)


def _stay_deaf(handled: list[signal.Signals]) -> None:
    """Told to stop, this process is about to exit: a further signal among ``handled`` must
    not kill it first (Python's shutdown puts back the default of every signal it handles),
    so that it exits with 128 plus the first signal's number.

    The signals are blocked, their handler (:meth:`Stop.receive`, which only notes them now)
    left in place: one that came just before is noted, later ones wait unseen until the
    process is gone. Setting them to SIG_IGN instead left a window: a signal caught while
    its handler was being changed made Python print "Signal 2 ignored due to race
    condition", a traceback on standard error, at its next signal call.
    """
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_BLOCK, handled)
    else:  # no signal masks (Windows): ignored, with that window
        for number in handled:
            signal.signal(number, signal.SIG_IGN)


def ignore_stop_signals(command: int | None = None) -> None:
    """In a worker process: leave stopping to the command, which kills its workers when it
    stops (a worker stopped by a signal sent to the whole group would print a traceback);
    and die with the command, whose process id is ``command`` (:func:`die_with`)."""
    for number in STOP_SIGNALS:
        signal.signal(number, signal.SIG_IGN)
    die_with(command)


PR_SET_PDEATHSIG: Final = 1
"""Linux's ``prctl`` option: the signal a process gets when its parent dies."""


def die_with(command: int | None) -> None:
    """Make this worker process die when the process that started it does, however that
    ends; end it at once if the command, ``command`` (None: not known), is gone already.

    The workers ignore the stop signals, so a command killed outright
    (SIGKILL, the out-of-memory killer) left them behind for good, each
    waiting for work that never comes. Linux sends a chosen signal to a
    process whose parent dies, if it asks (``prctl``); elsewhere nothing
    changes. On Linux the command forks its workers itself
    (:func:`gapgrid.api.study.process_runner`), so a worker whose parent is
    not the command was orphaned before it asked.
    """
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    parent = os.getppid()
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # no prctl to be had: as before
        return
    if os.getppid() != parent or (command is not None and parent != command):
        os._exit(1)
