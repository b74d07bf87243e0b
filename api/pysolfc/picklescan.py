"""Checking a stream of pickles before it is unpickled: bounded time, memory and C recursion.

CPython's unpickler is fast, but a few hostile bytes can make it, or what
it builds, cost without bound:

* a memo index far ahead (``LONG_BINPUT 2**31``) grows the memo to gigabytes;
* a value built from itself through the memo, ``t[i] = (t[i-1], t[i-1])``,
  is 40 levels deep but 2**40 leaves wide: hashing it as a dict key runs
  for hours in C, deaf to Ctrl-C (issue 15);
* tuples nested thousands deep overflow the C stack when hashed;
* a dict of colliding keys costs the square of its size;
* every class the file names becomes a stand-in class in the restricted
  unpickler, some kilobytes each (``STACK_GLOBAL`` once slipped past the
  count: 116,817 classes, 300 MiB).

:func:`scan` reads the opcodes (their layout taken from ``pickletools``,
the standard library's own description of the format) and simulates the
unpickler's stack and memo with one small record per value built. It refuses the stream before
anything is built when it names too many classes, nests too deep, puts a
large value where it would be hashed, or when the values it builds add up,
counting every reference to a shared value again (the "expanded" size),
to more than a real saved game could hold. Its own cost is linear in the
file: one record per container, none for leaves.
"""

from __future__ import annotations

import pickletools
from typing import Final

MAX_NESTING: Final = 64
"""Deepest nesting of values; a real save nests some 6 levels deep."""

MAX_HASHED_ITEMS: Final = 256
"""Most keys of one dict or items of one set; real ones hold some 20, and colliding keys cost
the square of the count."""

MAX_KEY_SIZE: Final = 64
"""Largest expanded size of a dict key or set item (hashing visits all of it); real keys are
single strings."""

MAX_EXPANDED: Final = 16 * 2**20
"""Most for the sum, over every value built, of its expanded size (a shared value counted each
time it is held). A real save's sum is some twice its size in bytes (each value counts once
for each level it is nested in); a value built from itself through the memo reaches billions."""

MAX_CLASSES: Final = 64
"""Most different classes and functions named; a real save names about 10."""

MAX_NAME: Final = 200
"""Longest module or class name; PySolFC's are under 50 characters."""


class StreamRefused(ValueError):
    """Raised for a stream that is damaged or could cost unbounded time or memory, saying why."""


class _Damaged(Exception):  # internal: always turned into StreamRefused
    """The stream makes no sense here (what the unpickler would fail on too)."""


class _Value:
    """What the scan knows of one value on the simulated stack or in the memo."""

    __slots__ = ("depth", "growable", "items", "size")

    def __init__(self, size: int, depth: int, growable: bool) -> None:
        self.size = size
        """The expanded size: 1, plus that of every value held, shared ones each time."""
        self.depth = depth
        """0 for a leaf, else one more than the deepest value held."""
        self.items = 0
        """Keys or items held, for a dict or set."""
        self.growable = growable
        """Whether opcodes may add to it (a list, dict, set or object)."""


class _Name(_Value):
    """A short string: the scan keeps its text, as ``STACK_GLOBAL`` takes names from the stack."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        super().__init__(1, 0, False)
        self.text = text


_LEAF: Final = _Value(1, 0, False)
"""Every number, bytes, None, empty tuple, long string and class: shared, never changed."""

_MARK: Final = _Value(0, -1, False)
"""The unpickler's mark."""

# What each opcode does to the stack, as the scan simulates it.
_PUSH_LEAF, _PUSH_TEXT, _PUSH_EMPTY, _TUPLE_N, _BUILD_FROM_MARK, _GROW, _GROW_FROM_MARK, \
    _POP, _DUP, _MARK_OP, _POP_MARK, _GET, _PUT, _MEMOIZE, _GLOBAL, _STACK_GLOBAL, _CALL, \
    _NOTHING, _STOP, _REFUSED = range(20)

_ACTIONS: Final = {
    **dict.fromkeys(["INT", "BININT", "BININT1", "BININT2", "LONG", "LONG1", "LONG4",
                     "BINBYTES", "SHORT_BINBYTES", "BINBYTES8", "BYTEARRAY8", "NONE", "NEWTRUE",
                     "NEWFALSE", "FLOAT", "BINFLOAT", "EMPTY_TUPLE"], _PUSH_LEAF),
    **dict.fromkeys(["STRING", "BINSTRING", "SHORT_BINSTRING", "UNICODE", "SHORT_BINUNICODE",
                     "BINUNICODE", "BINUNICODE8"], _PUSH_TEXT),
    **dict.fromkeys(["EMPTY_LIST", "EMPTY_DICT", "EMPTY_SET"], _PUSH_EMPTY),
    **dict.fromkeys(["TUPLE1", "TUPLE2", "TUPLE3"], _TUPLE_N),
    **dict.fromkeys(["TUPLE", "LIST", "DICT", "FROZENSET", "INST", "OBJ"], _BUILD_FROM_MARK),
    **dict.fromkeys(["APPEND", "SETITEM", "BUILD"], _GROW),
    **dict.fromkeys(["APPENDS", "SETITEMS", "ADDITEMS"], _GROW_FROM_MARK),
    "POP": _POP, "DUP": _DUP, "MARK": _MARK_OP, "POP_MARK": _POP_MARK,
    **dict.fromkeys(["GET", "BINGET", "LONG_BINGET"], _GET),
    **dict.fromkeys(["PUT", "BINPUT", "LONG_BINPUT"], _PUT),
    "MEMOIZE": _MEMOIZE, "GLOBAL": _GLOBAL, "STACK_GLOBAL": _STACK_GLOBAL,
    **dict.fromkeys(["REDUCE", "NEWOBJ", "NEWOBJ_EX"], _CALL),
    **dict.fromkeys(["PROTO", "FRAME"], _NOTHING),
    "STOP": _STOP,
    # Out-of-band buffers, the extension registry and persistent ids: PySolFC writes none.
    **dict.fromkeys(["NEXT_BUFFER", "READONLY_BUFFER", "EXT1", "EXT2", "EXT4", "PERSID",
                     "BINPERSID"], _REFUSED),
}

# How an opcode's argument is laid out, from pickletools' own description of the format.
_LINES, _LENGTH1, _LENGTH4, _LENGTH4U, _LENGTH8U = (pickletools.UP_TO_NEWLINE,
                                                   pickletools.TAKEN_FROM_ARGUMENT1,
                                                   pickletools.TAKEN_FROM_ARGUMENT4,
                                                   pickletools.TAKEN_FROM_ARGUMENT4U,
                                                   pickletools.TAKEN_FROM_ARGUMENT8U)


def _layout(opcode: pickletools.OpcodeInfo) -> tuple[int, int]:
    """(kind, size): a fixed size (kind 0), lines (their number), or a length field's kind."""
    argument = opcode.arg
    if argument is None:
        return 0, 0
    if argument.n >= 0:
        return 0, argument.n
    if argument.n == _LINES:
        return _LINES, 2 if argument.name == "stringnl_noescape_pair" else 1
    return argument.n, {_LENGTH1: 1, _LENGTH4: 4, _LENGTH4U: 4, _LENGTH8U: 8}[argument.n]


_TABLE: Final[list[tuple[int, int, int, str] | None]] = [None] * 256
"""For each opcode byte: (action, argument kind, argument size, name), or None when unknown."""
for _opcode in pickletools.opcodes:
    _TABLE[ord(_opcode.code)] = (_ACTIONS[_opcode.name], *_layout(_opcode), _opcode.name)

_HELD: Final = {"REDUCE": 2, "NEWOBJ": 2, "NEWOBJ_EX": 3, "TUPLE1": 1, "TUPLE2": 2, "TUPLE3": 3}
"""How many values the opcodes that take a fixed number take from the stack."""
_HASHED: Final = frozenset({"DICT", "FROZENSET", "SETITEM", "SETITEMS", "ADDITEMS"})
_KEYS_ONLY: Final = frozenset({"FROZENSET", "ADDITEMS"})  # every item is hashed, not every other
_UTF8_TEXT: Final = frozenset({"SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8"})


def _index(name: str, argument: bytes) -> int:
    """A memo index: a decimal line (protocol 0) or a little-endian number."""
    if name in ("GET", "PUT"):
        return int(argument.decode("ascii"))
    return int.from_bytes(argument, "little")


def _class_name(argument: bytes) -> tuple[str, str]:
    """The module and name of ``GLOBAL`` and ``INST``: two lines, as the unpickler reads them."""
    module, name = argument.decode("utf-8").split("\n")
    return module, name


_TOO_BIG: Final = ("it holds far more, or far deeper, data than any PySolFC saved game, "
                   "so it was not read")


def damaged(position: int | None = None) -> str:
    """Why a stream that makes no sense is refused, in words for whoever chose the file."""
    where = f" (it stops making sense at byte {position:,})" if position is not None else ""
    return f"it is not a PySolFC saved game, or one that is damaged or cut short{where}"


def scan(data: bytes) -> None:
    """Walk every pickle of ``data``; raise :class:`StreamRefused` if one could not be
    unpickled within bounded time and memory, or would fail anyway."""
    scanner = _Scanner(data)
    try:
        scanner.run()
    except StreamRefused:
        raise
    except Exception:  # _Damaged, or an argument that cannot be read
        raise StreamRefused(damaged(scanner.position)) from None


class _Scanner:
    """The simulated unpickler: its stack, its memo, and what has been counted so far.

    It reads the opcodes itself, with the layout of each argument taken from
    ``pickletools``: ``pickletools.genops`` would do the same at a third of
    the speed (tests/api/pysolfc/test_picklescan.py checks they agree).
    """

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.stack: list[_Value] = []
        self.memo: list[_Value] = []
        self.classes: set[tuple[str, str]] = set()
        self.expanded = 0
        self.position = 0
        """Where reading stopped, when the stream is refused."""
        self.trace: list[tuple[int, str]] | None = None
        """When a list, each opcode's position and name are added to it (for tests)."""

    def run(self) -> None:
        """Simulate every opcode of every pickle of the stream."""
        data, table, stack, memo = self.data, _TABLE, self.stack, self.memo
        leaf, mark, held_by, trace = _LEAF, _MARK, _HELD, self.trace
        end = len(data)
        position = here = 0
        try:
            while position < end:
                here = position
                entry = table[data[position]]
                if entry is None:
                    raise _Damaged
                action, kind, size, name = entry
                if trace is not None:
                    trace.append((here, name))
                start = position + 1
                if kind == 0:  # a fixed size, often none
                    argument_start, position = start, start + size
                elif kind == _LINES:
                    position = start
                    for _ in range(size):
                        position = data.index(b"\n", position) + 1
                    argument_start, argument_end = start, position - 1
                else:  # a length, then that many bytes
                    length = int.from_bytes(data[start:start + size], "little",
                                            signed=kind == _LENGTH4)
                    argument_start = start + size
                    position = argument_start + length
                    if length < 0:
                        raise _Damaged
                if position > end:
                    raise _Damaged
                # The commonest opcodes, and those a flood is made of, first and inline.
                if action == _PUSH_LEAF:
                    stack.append(leaf)
                elif action == _POP:
                    if not stack:
                        raise _Damaged
                    stack.pop()  # a mark, too: CPython's POP takes a mark when one is on top
                elif action == _PUSH_EMPTY:
                    stack.append(_Value(1, 0, True))
                elif action == _MARK_OP:
                    stack.append(mark)
                elif action == _MEMOIZE:
                    if not stack or stack[-1] is mark:
                        raise _Damaged
                    memo.append(stack[-1])
                elif name == "BINGET":
                    stack.append(memo[data[start]])  # an IndexError if it was never stored
                elif action == _DUP:
                    if not stack or stack[-1] is mark:
                        raise _Damaged
                    stack.append(stack[-1])
                elif action in (_CALL, _TUPLE_N):
                    count = held_by[name]
                    held = stack[-count:]
                    del stack[-count:]
                    if len(held) < count or mark in held:
                        raise _Damaged
                    stack.append(self.build(name, held, action == _CALL))
                elif action == _STOP:
                    self.pop(1)
                    stack.clear()  # the next pickle starts afresh (the memo is kept)
                else:
                    if kind != _LINES:
                        argument_end = position
                    self.step(name, action, data[argument_start:argument_end])
        except Exception:
            self.position = here
            raise

    def step(self, name: str, action: int, argument: bytes) -> None:
        """Simulate one opcode ``name`` whose argument's bytes are ``argument``."""
        stack = self.stack
        if action == _GET:
            index = _index(name, argument)
            if not 0 <= index < len(self.memo):
                raise _Damaged
            stack.append(self.memo[index])
        elif action == _PUT:
            index = _index(name, argument)
            if not stack or stack[-1] is _MARK or not 0 <= index <= len(self.memo):
                raise _Damaged  # a pickler never skips memo indices; the unpickler would grow
            if index == len(self.memo):
                self.memo.append(stack[-1])
            else:
                self.memo[index] = stack[-1]
        elif action == _PUSH_TEXT:
            # Only what protocols 1+ write as UTF-8 can name a class for STACK_GLOBAL;
            # protocol 0's escaped strings stay plain leaves.
            short = len(argument) <= 4 * MAX_NAME and name in _UTF8_TEXT
            text = argument.decode("utf-8", "surrogatepass") if short else ""
            stack.append(_Name(text) if short and len(text) <= MAX_NAME else _LEAF)
        elif action == _GROW:
            self.grow(name, self.pop(2 if name == "SETITEM" else 1))
        elif action == _GROW_FROM_MARK:
            self.grow(name, self.pop_to_mark())
        elif action == _BUILD_FROM_MARK:
            held = self.pop_to_mark()
            if name == "INST":
                self.name_class(*_class_name(argument))
            stack.append(self.build(name, held, name not in ("TUPLE", "FROZENSET")))
        elif action == _POP_MARK:
            self.pop_to_mark()
        elif action == _GLOBAL:
            self.name_class(*_class_name(argument))
            stack.append(_LEAF)
        elif action == _STACK_GLOBAL:
            module, qualified_name = self.pop(2)
            if not (isinstance(module, _Name) and isinstance(qualified_name, _Name)):
                raise _Damaged  # the unpickler wants two strings here
            self.name_class(module.text, qualified_name.text)
            stack.append(_LEAF)
        elif action == _REFUSED:
            raise StreamRefused("it asks for something PySolFC never writes in a saved game "
                                "(an outside object or buffer), so it was not read")

    def pop(self, count: int) -> list[_Value]:
        """Pop ``count`` values (no mark among them), deepest first."""
        stack = self.stack
        if len(stack) < count:
            raise _Damaged
        values = stack[len(stack) - count:]
        del stack[len(stack) - count:]
        if _MARK in values:
            raise _Damaged
        return values

    def pop_to_mark(self) -> list[_Value]:
        """Pop the values above the topmost mark, and the mark; the values deepest first."""
        stack = self.stack
        for index in range(len(stack) - 1, -1, -1):
            if stack[index] is _MARK:
                values = stack[index + 1:]
                del stack[index:]
                return values
        raise _Damaged

    def check_hashed(self, name: str, values: list[_Value]) -> None:
        """Refuse large values where the unpickler would hash them (dict keys, set items)."""
        keys = values if name in _KEYS_ONLY else values[0::2]
        if any(key.size > MAX_KEY_SIZE for key in keys):
            raise StreamRefused(_TOO_BIG)

    def measure(self, values: list[_Value]) -> tuple[int, int]:
        """The expanded size and depth of ``values`` held together, counted as built once more.

        Refuses the stream once everything built, counting shared values each
        time, passes :data:`MAX_EXPANDED`.
        """
        size, depth = 0, 0
        for value in values:  # a plain loop: this runs for every value a stream builds
            size += value.size
            if value.depth >= depth:
                depth = value.depth + 1
        self.expanded += size
        if self.expanded > MAX_EXPANDED:
            raise StreamRefused(_TOO_BIG)
        return size, depth

    def build(self, name: str, held: list[_Value], growable: bool) -> _Value:
        """A new value holding ``held``."""
        size, depth = self.measure(held)
        value = _Value(1 + size, depth, growable)
        if name in _HASHED:
            self.check_hashed(name, held)
            value.items = len(held) if name in _KEYS_ONLY else len(held) // 2
        if depth > MAX_NESTING or value.items > MAX_HASHED_ITEMS:
            raise StreamRefused(_TOO_BIG)
        return value

    def grow(self, name: str, added: list[_Value]) -> None:
        """Add ``added`` to the list, dict, set or object on top of the stack."""
        if not self.stack or not self.stack[-1].growable:
            raise _Damaged
        target = self.stack[-1]
        size, depth = self.measure(added)
        if name in _HASHED:
            self.check_hashed(name, added)
            target.items += len(added) if name in _KEYS_ONLY else len(added) // 2
        target.size += size
        target.depth = max(target.depth, depth)
        self.check_shape(target)

    def check_shape(self, value: _Value) -> None:
        """Refuse a value nested or hashed beyond what a real save holds."""
        if value.depth > MAX_NESTING or value.items > MAX_HASHED_ITEMS:
            raise StreamRefused(_TOO_BIG)

    def name_class(self, module: str, name: str) -> None:
        """Count a class or function the stream names, refusing past :data:`MAX_CLASSES`."""
        if len(module) > MAX_NAME or len(name) > MAX_NAME:
            raise StreamRefused("it names a class with a name far longer than any in a PySolFC "
                                "saved game, so it was not read")
        self.classes.add((module, name))
        if len(self.classes) > MAX_CLASSES:
            raise StreamRefused("it names far more kinds of objects than any PySolFC saved "
                                "game, so it was not read")
