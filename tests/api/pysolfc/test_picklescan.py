"""The pre-scan of pickle streams: it reads opcodes as the standard library does, accepts
sane streams, and refuses the costly ones before anything is unpickled."""

from __future__ import annotations

import contextlib
import io
import pickle
import pickletools
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gapgrid.api.pysolfc import picklescan
from tests.api.pysolfc import hostile_saves
from tests.golden import SAVED_GAMES

SAVES = sorted(SAVED_GAMES.glob("*.pso"))


def _genops_trace(data: bytes) -> list[tuple[int, str]]:
    """Every opcode's position and name, as ``pickletools.genops`` reads the stream."""
    stream, trace = io.BytesIO(data), []
    while stream.tell() < len(data):
        trace += [(position, opcode.name) for opcode, _, position in pickletools.genops(stream)]
    return trace


def _scan_trace(data: bytes) -> list[tuple[int, str]]:
    """Every opcode's position and name, as the pre-scan reads the stream."""
    scanner = picklescan._Scanner(data)
    scanner.trace = []
    scanner.run()
    return scanner.trace


@pytest.mark.parametrize("path", SAVES, ids=[path.stem for path in SAVES])
def test_scan_reads_real_saves_as_pickletools_does(path: Path) -> None:
    """On PySolFC's own saves the pre-scan finds the opcodes genops finds, and accepts them."""
    data = path.read_bytes()
    assert _scan_trace(data) == _genops_trace(data)
    picklescan.scan(data)


SANE_LEAVES = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
               | st.text(max_size=20) | st.binary(max_size=20))
SANE_VALUES = st.recursive(
    SANE_LEAVES,
    lambda children: (st.lists(children, max_size=5) | st.tuples(children, children)
                      | st.dictionaries(st.text(max_size=5), children, max_size=5)
                      | st.frozensets(st.integers(), max_size=5)
                      | st.sets(st.text(max_size=5), max_size=5)),
    max_leaves=30)


@settings(max_examples=200, deadline=None)
@given(values=st.lists(SANE_VALUES, min_size=1, max_size=4),
       protocol=st.integers(0, pickle.HIGHEST_PROTOCOL), share=st.booleans())
def test_scan_reads_any_stream_as_pickletools_does(values: list[Any], protocol: int,
                                                   share: bool) -> None:
    """Streams of pickles of any sane values, in every protocol, shared values included:
    the pre-scan finds the same opcodes as genops, and accepts them."""
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=protocol)
    for value in values:
        pickler.dump([value, value] if share else value)  # the second is a memo reference
    data = buffer.getvalue()
    assert _scan_trace(data) == _genops_trace(data)


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_a_damaged_save_is_refused_or_accepted_never_a_crash(data: st.DataObject) -> None:
    """A real save cut short or with bytes changed: the pre-scan refuses it or lets it by,
    and never raises anything else."""
    original = bytearray(data.draw(st.sampled_from(SAVES)).read_bytes())
    for _ in range(data.draw(st.integers(1, 4))):
        original[data.draw(st.integers(0, len(original) - 1))] = data.draw(st.integers(0, 255))
    damaged = bytes(original[:data.draw(st.integers(1, len(original)))])
    with contextlib.suppress(picklescan.StreamRefused):
        picklescan.scan(damaged)


def _refusal(data: bytes) -> str:
    with pytest.raises(picklescan.StreamRefused) as refused:
        picklescan.scan(data)
    return str(refused.value)


def test_a_value_built_from_itself_is_refused() -> None:
    """Issue 15's hash bomb (t[i] = (t[i-1], t[i-1]), used as a dict key) is refused."""
    assert "far more, or far deeper" in _refusal(hostile_saves.hash_bomb())


def test_sharing_is_counted_each_time() -> None:
    """A list holding a shared list twice, level after level, counts 2**levels: refused,
    though it is only 40 deep and a few hundred bytes."""
    assert "far more, or far deeper" in _refusal(hostile_saves.list_bomb())


def test_a_shared_value_used_as_a_key_is_refused_past_the_key_size() -> None:
    """A key of expanded size 64 (a tuple of 63 leaves) is accepted, one of 65 refused."""
    def keyed(leaves: int) -> bytes:
        return b"\x80\x02}(" + b"(" + b"N" * leaves + b"tNu."
    picklescan.scan(keyed(picklescan.MAX_KEY_SIZE - 1))
    assert "far more, or far deeper" in _refusal(keyed(picklescan.MAX_KEY_SIZE))


@pytest.mark.parametrize("build", [hostile_saves.stack_global_flood, hostile_saves.global_flood])
def test_every_way_of_naming_a_class_is_counted(build: Any) -> None:
    """STACK_GLOBAL counts towards the classes named as GLOBAL does (issue 15: it slipped by)."""
    assert "far more kinds of objects" in _refusal(build())


def test_stack_global_needs_two_names() -> None:
    """STACK_GLOBAL on anything but two strings is refused (the unpickler would fail)."""
    assert "damaged" in _refusal(b"\x80\x04NN\x93.")
    picklescan.scan(b"\x80\x04\x8c\x0cpysollib.xyz\x8c\x01G\x93.")


@pytest.mark.parametrize(("data", "refused"), [
    (b"\x80\x02Nr\x00\x00\x00\x10.", "damaged"),             # a memo index far ahead
    (b"\x80\x02h\x05.", "damaged"),                          # a memo index never stored
    (b"\x80\x02N\x86.", "damaged"),                          # the stack runs empty
    (b"\x80\x02(N\x86.", "damaged"),                         # a mark in the way
    (b"\x80\x02N\xff.", "damaged"),                          # no such opcode
    (b"\x80\x02X\xff\xff\xff\x7f.", "damaged"),              # a length past the end
    (b"\x80\x02T\xff\xff\xff\xff.", "damaged"),              # a negative length
    (b"\x80\x02cpysollib\n", "damaged"),                     # a name cut short
    (b"\x80\x02" + b")" + b"\x85" * 70 + b".", "far deeper"),  # tuples nested 70 deep
    (b"\x80\x05\x97.", "never writes"),                      # an out-of-band buffer
    (b"\x80\x02P0\n.", "never writes"),                      # a persistent id
])
def test_streams_that_cannot_be_unpickled_safely_are_refused(data: bytes, refused: str) -> None:
    """Damaged streams and streams asking for what PySolFC never writes are refused."""
    assert refused in _refusal(data)


def test_where_a_damaged_stream_stops_making_sense() -> None:
    """The refusal says at which byte the stream stopped making sense."""
    assert _refusal(b"\x80\x02NN\xff.").endswith("(it stops making sense at byte 4)")
