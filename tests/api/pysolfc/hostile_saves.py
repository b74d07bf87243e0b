"""Hostile PySolFC saved games, each at most ``MAX_FILE_BYTES``: what the reader must refuse fast.

Written opcode by opcode, the way an attacker would, for the tests in
test_savefile.py and for bench/hostile_saves.py. Each builder returns the
bytes of a file that starts as a real save does (so that it gets past the
first look) and then attacks; :data:`HOSTILE` names them all. They attack
time and memory, not the sandbox: none names a function that could run.
"""

from __future__ import annotations

import io
import pickle
from collections.abc import Callable
from typing import Any, Final

from gapgrid.api.pysolfc.savefile import MAX_FILE_BYTES

PROTO_2: Final = b"\x80\x02"
PROTO_4: Final = b"\x80\x04"


def save_header(number: int | None = 617) -> bytes:
    """The start of a real save: up to the game number (without it when None)."""
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=4)
    items: list[Any] = ["PySolFC", "3.6.1", (3, 6, 1), 0, 1, 53]
    for item in items if number is None else [*items, number]:
        pickler.dump(item)
    return buffer.getvalue()


def _get(index: int) -> bytes:
    return b"h" + bytes([index]) if index < 256 else b"j" + index.to_bytes(4, "little")


def _put(index: int) -> bytes:
    return b"q" + bytes([index]) if index < 256 else b"r" + index.to_bytes(4, "little")


def hash_bomb(levels: int = 40) -> bytes:
    """Issue 15's 481-byte hang: ``t[i] = (t[i-1], t[i-1])`` through the memo, used as a dict key.

    The tuple is 40 levels deep but 2**40 leaves wide; hashing it (in C, deaf
    to Ctrl-C) visits every leaf.
    """
    body = b")" + _put(0)
    for level in range(1, levels + 1):
        body += _get(level - 1) + _get(level - 1) + b"\x86" + _put(level)
    return save_header() + PROTO_2 + body + b"}" + _get(levels) + b"Ns."


def list_bomb(levels: int = 40) -> bytes:
    """Lists that hold themselves twice over, level by level: harmless to build, huge to walk."""
    body = b"]" + _put(0)
    for level in range(1, levels + 1):
        body += b"]" + _put(level) + b"(" + _get(level - 1) + _get(level - 1) + b"e0"
    return save_header() + PROTO_2 + body + _get(levels) + b"."


def stack_global_flood() -> bytes:
    """Issue 15's class flood: a new class name per ``STACK_GLOBAL``, the module from the memo."""
    # The module goes to memo entry 0 (BINPUT: the header's entries come first).
    parts = [save_header(), PROTO_4, b"\x8c\x0bpysollib.xxq\x00"]
    size, number = sum(len(part) for part in parts), 0
    while size < MAX_FILE_BYTES - 64:
        name = f"C{number}".encode()
        part = b"h\x00\x8c" + bytes([len(name)]) + name + b"\x930"
        parts.append(part)
        size += len(part)
        number += 1
    return b"".join(parts) + b"N."


def global_flood() -> bytes:
    """The same flood with protocol 0's ``GLOBAL``, which the pre-scan always counted."""
    parts = [save_header(), PROTO_2]
    size, number = sum(len(part) for part in parts), 0
    while size < MAX_FILE_BYTES - 64:
        part = b"cpysollib.x\nC%d\n0" % number
        parts.append(part)
        size += len(part)
        number += 1
    return b"".join(parts) + b"N."


def _fill(unit: bytes, ending: bytes, start: bytes = PROTO_4) -> bytes:
    """A save's header and ``start``, then ``unit`` up to the size limit, then ``ending``."""
    start = save_header() + start
    count = (MAX_FILE_BYTES - len(start) - len(ending)) // len(unit)
    return start + unit * count + ending


def none_flood() -> bytes:
    """A megabyte of ``None`` pushed one byte at a time: the most opcodes a file can hold."""
    return _fill(b"N", b".")


def tuple_flood() -> bytes:
    """Empty tuples pushed and popped, one opcode a byte, never more than one on the stack."""
    return _fill(b")0", b"N.")


def memo_flood() -> bytes:
    """A megabyte of memo entries, each ``None`` memoized (two opcodes for two bytes)."""
    return _fill(b"N\x94", b".")


def get_flood() -> bytes:
    """One memoized empty list fetched again and again into a growing list."""
    return _fill(b"h\x01", b"e.", start=PROTO_2 + b"]q\x00]q\x01(")


def dict_flood() -> bytes:
    """Empty dicts, each memoized so that none is freed: the most containers a file can keep."""
    return _fill(b"}\x94", b".")


def object_flood() -> bytes:
    """Objects of an allowed class, each memoized: the most stand-in objects a file can keep."""
    # The class stays on the stack: each unit copies it (DUP), calls it with () (NEWOBJ),
    # memoizes the object and pops it.
    return _fill(b"2)\x81\x940", b".", start=PROTO_4 + b"\x8c\x0cpysollib.xyz\x8c\x01G\x93")


def wide_list() -> bytes:
    """One list of a quarter of a million small ints, appended in one go."""
    return _fill(b"K\x07", b"e.", start=PROTO_2 + b"](")


def deep_lists() -> bytes:
    """Lists nested as deep as the file allows: each level an empty list and an append."""
    header = save_header() + PROTO_2
    count = (MAX_FILE_BYTES - len(header) - 1) // 2
    return header + b"]" * count + b"a" * (count - 1) + b"."


def long_names() -> bytes:
    """A class whose module and name are half a megabyte each (the error must not echo them)."""
    half = MAX_FILE_BYTES // 2 - 128
    return save_header() + PROTO_4 + (b"\x8d" + half.to_bytes(8, "little") + b"p" * half
                      + b"\x8d" + half.to_bytes(8, "little") + b"n" * half + b"\x93.")


def huge_number() -> bytes:
    """A game number of a megabyte of decimal digits (protocol 0's ``LONG``)."""
    header = save_header(None)
    return header + b"L" + b"9" * (MAX_FILE_BYTES - len(header) - 4) + b"L\n."


HOSTILE: Final[dict[str, Callable[[], bytes]]] = {
    "hash-bomb": hash_bomb,
    "list-bomb": list_bomb,
    "stack-global-flood": stack_global_flood,
    "global-flood": global_flood,
    "none-flood": none_flood,
    "tuple-flood": tuple_flood,
    "memo-flood": memo_flood,
    "get-flood": get_flood,
    "dict-flood": dict_flood,
    "object-flood": object_flood,
    "wide-list": wide_list,
    "deep-lists": deep_lists,
    "long-names": long_names,
    "huge-number": huge_number,
}
"""Every hostile file, by name."""
