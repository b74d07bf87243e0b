"""JSON read the one way gapgrid reads it, from a request body or a layout file.

RFC 8259 leaves some inputs' meaning open, and Python's reader picks one: a
repeated key keeps its last value (other readers keep the first), ``NaN``
and ``Infinity`` are read although JSON has no such values, and an integer
of more than 4,300 digits is an error whose message Python cuts off. Read
with :func:`loads`, a repeated key and those constants are refused, and a
huge integer is read as the infinity it overflows to (as ``1e400`` is), so
that whatever checks the document refuses it where it stands.
"""

from __future__ import annotations

import json
from typing import Any

from gapgrid.api.text import excerpt


def loads(text: str) -> Any:
    """The JSON value of ``text``; ``ValueError`` (``json.JSONDecodeError`` among them)
    when it is not JSON or is ambiguous, ``RecursionError`` when it nests too deeply."""
    return json.loads(text, parse_constant=_refuse_constant, parse_int=_integer,
                      object_pairs_hook=_object_without_repeats)


def _integer(digits: str) -> int | float:
    """A JSON integer. One with more digits than Python reads as an ``int`` (4,300 unless
    ``PYTHONINTMAXSTR`` says otherwise) is still JSON: it is read as the float it
    overflows to, an infinity, as ``1e400`` is, so that a schema refuses it where it
    stands (a 422 naming the field), not the whole body (a 400)."""
    try:
        return int(digits)
    except ValueError:
        return float(digits)


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not allowed")


def _object_without_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys are all different. RFC 8259 leaves a repeated key's meaning
    open (Python keeps the last, other parsers the first): a proxy or a client's own check
    could read another request than the one answered, so it is refused."""
    body = dict(pairs)
    if len(body) < len(pairs):
        seen: set[str] = set()
        for name, _ in pairs:
            if name in seen:
                raise ValueError(f"the key {excerpt(name)} appears more than once in one object")
            seen.add(name)
    return body
