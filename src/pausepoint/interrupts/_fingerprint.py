"""The fingerprint of a batch of resume entries, as TanStack AI computes it.

TanStack sorts the entries with JavaScript's ``localeCompare`` on ``interruptId`` (not
by code units), canonicalizes the sorted list and digests it. ``localeCompare`` follows
the Unicode collation of the process locale; this module reproduces the root / English
collation for ASCII ids, which is what a default Node or browser uses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pausepoint.errors import InterruptWireError
from pausepoint.interrupts._canonical import canonical_json, digest

__all__ = ["fingerprint"]

# Printable ASCII in the order of the Unicode root collation: whitespace, punctuation,
# symbols, digits, then letters, each letter's case sharing one primary weight.
_COLLATION_ORDER = (
    "\t\n\x0b\x0c\r _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789abcdefghijklmnopqrstuvwxyz"
)
_PRIMARY = {char: weight for weight, char in enumerate(_COLLATION_ORDER, start=1)}
_PRIMARY.update({char.upper(): _PRIMARY[char] for char in "abcdefghijklmnopqrstuvwxyz"})
# Other ASCII control characters weigh nothing at any level: "a\x01b" equals "ab".
_IGNORABLE = frozenset([*map(chr, range(0x00, 0x09)), *map(chr, range(0x0E, 0x20)), "\x7f"])
_BEYOND_ASCII = len(_COLLATION_ORDER) + 1


def fingerprint(resume_entries: Sequence[Mapping[str, Any]]) -> str:
    """Digest of the resume entries sorted by ``interruptId``, canonicalized.

    Two submissions of the same answers in any order share a fingerprint.

    >>> fingerprint([
    ...     {"interruptId": "b", "status": "cancelled"},
    ...     {"interruptId": "a", "status": "resolved", "payload": {"z": 1, "a": 2}},
    ... ])
    'sha256:3b5709ba96102d861b660ff95873343debc2ae5b1356859c31fe0269261bb8b0'

    Ids made of ASCII characters sort exactly as in TanStack (upper and lower case
    interleaved: ``a < B < b``). Other characters sort after ASCII by code point, which
    may differ from a JavaScript runtime's locale-aware order.

    Raises:
        InterruptWireError: an entry has no string ``interruptId``.
        NotJSONError: an entry is not JSON.
    """
    for index, entry in enumerate(resume_entries):
        if not isinstance(entry, Mapping) or not isinstance(entry.get("interruptId"), str):
            raise InterruptWireError(
                f"Resume entry {index} needs a string 'interruptId'; got {entry!r}."
            )
    ordered = sorted(resume_entries, key=lambda entry: _collation_key(entry["interruptId"]))
    return digest(canonical_json(ordered))


def _collation_key(text: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Primary weights first (letters without case), then case (lower before upper)."""
    primary: list[int] = []
    tertiary: list[int] = []
    for char in text:
        if char in _IGNORABLE:
            continue
        primary.append(_PRIMARY.get(char, _BEYOND_ASCII + ord(char)))
        tertiary.append(1 if char.isascii() and char.isupper() else 0)
    return tuple(primary), tuple(tertiary)
