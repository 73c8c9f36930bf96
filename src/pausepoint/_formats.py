"""The `format`s the kernel checks in answers: at least every one the browser checks.

The view checks answers with its own formats (js/src/lib/formats.ts) for instant feedback,
but the kernel's check is the one that counts, so a crafted message cannot bypass a
format. jsonschema's own checkers cover most formats; the ones it lacks, or checks more
loosely than the browser (``email`` only asks for an ``@``; ``duration`` accepts
fractions), are defined here, and so are ``iri`` and ``iri-reference``: jsonschema checks
them with an Earley parser whose time grows faster than the text (a few thousand
characters took seconds), so an answer could stall the kernel. A format neither side knows
is not checked.
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
import re
from datetime import date
from urllib.parse import quote

from jsonschema import FormatChecker

__all__ = ["FORMAT_CHECKER"]

FORMAT_CHECKER = FormatChecker()
"""jsonschema's checkers, with the stricter and the browser-only formats below."""

_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_EMAIL = re.compile(rf"{_ATEXT}(?:\.{_ATEXT})*@{_LABEL}(?:\.{_LABEL})+", re.ASCII)
_DURATION = re.compile(
    r"P(?:\d+W|(?=\d|T\d)(?:\d+Y)?(?:\d+M)?(?:\d+D)?(?:T(?=\d)(?:\d+H)?(?:\d+M)?(?:\d+S)?)?)",
    re.ASCII,
)
_TIME = re.compile(r"(\d\d):(\d\d):(\d\d)(?:\.\d+)?(?:([zZ])|([+-])(\d\d)(?::?(\d\d))?)?", re.ASCII)
_DATE = re.compile(r"(\d{4})-(\d\d)-(\d\d)", re.ASCII)
_POINTER_FRAGMENT = re.compile(
    r"#(?:/(?:[A-Za-z0-9_\-.!$&'()*+,;:=@]|%[0-9A-Fa-f]{2}|~[01])*)*", re.ASCII
)
_BASE64 = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?", re.ASCII)
_WEB_LABEL = r"(?:[a-z0-9\u00a1-\uffff]+-)*[a-z0-9\u00a1-\uffff]+"
_URL = re.compile(
    r"(?:https?|ftp)://(?:[^\s:@/]+(?::[^\s@/]*)?@)?"
    r"(?P<host>[^\s:/?#]+)(?::\d{2,5})?(?:/\S*)?",
    re.IGNORECASE,
)
_WEB_HOST = re.compile(rf"{_WEB_LABEL}(?:\.{_WEB_LABEL})*\.[a-z\u00a1-\uffff]{{2,}}", re.IGNORECASE)
_VISIBLE_ASCII = re.compile(r"[\x21-\x7e]*")
_HOSTNAME = re.compile(rf"(?=.{{1,253}}\.?$){_LABEL}(?:\.{_LABEL})*\.?", re.ASCII)
_TEMPLATE_LITERAL = r"[^\x00-\x20\x7f\"'<>%\\^`{|}]|%[0-9A-Fa-f]{2}"
_TEMPLATE_VARIABLE = r"(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+(?::[1-9][0-9]{0,3}|\*)?"
_URI_TEMPLATE = re.compile(
    rf"(?:{_TEMPLATE_LITERAL}|\{{[+#./;?&=,!@|]?{_TEMPLATE_VARIABLE}(?:,{_TEMPLATE_VARIABLE})*\}})*"
)
_UUID = re.compile(r"(?:urn:uuid:)?[0-9A-Fa-f]{8}-(?:[0-9A-Fa-f]{4}-){3}[0-9A-Fa-f]{12}")
# RFC 3987: the characters beyond ASCII an IRI may hold (ucschar), and those it may hold
# in its query only (iprivate). Each plane's last two code points are not characters.
_UCSCHAR = (
    "\u00a0-\ud7ff\uf900-\ufdcf\ufdf0-\uffef"
    + "".join(f"{chr(plane << 16)}-{chr((plane << 16) + 0xFFFD)}" for plane in range(1, 14))
    + "\U000e1000-\U000efffd"
)
_IPRIVATE = "\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd"
_BEYOND_ASCII = re.compile(r"[^\x00-\x7f]")
_NOT_UCSCHAR = re.compile(f"[^\x00-\x7f{_UCSCHAR}]")
_NOT_QUERY_CHAR = re.compile(f"[^\x00-\x7f{_UCSCHAR}{_IPRIVATE}]")
_INT32 = (-(2**31), 2**31 - 1)
_INT64 = (-(2**63), 2**63 - 1)


def _visible_ascii_only(name: str) -> None:
    """Wrap jsonschema's checker: the browser refuses URIs with spaces, control characters
    or non-ASCII text (and a trailing newline slips through a ``$``-anchored pattern)."""
    inner, raises = FORMAT_CHECKER.checkers[name]

    def check(value: object) -> bool:
        if isinstance(value, str) and _VISIBLE_ASCII.fullmatch(value) is None:
            return False
        return bool(inner(value))

    FORMAT_CHECKER.checkers[name] = (check, raises)


_visible_ascii_only("uri")
_visible_ascii_only("uri-reference")


def _as_uri(iri: str) -> str | None:
    """The URI an IRI maps to (RFC 3987 section 3.1: each character beyond ASCII written
    as its UTF-8 bytes, percent-encoded), or None when it holds a character an IRI may not
    hold where it stands."""
    head, _, fragment = iri.partition("#")
    before_query, _, query = head.partition("?")
    if _NOT_UCSCHAR.search(before_query) or _NOT_UCSCHAR.search(fragment):
        return None
    if _NOT_QUERY_CHAR.search(query):
        return None
    return _BEYOND_ASCII.sub(lambda match: quote(match.group(), safe=""), iri)


def _iri_checker(name: str, uri_format: str) -> None:
    uri_check, raises = FORMAT_CHECKER.checkers[uri_format]

    def check(value: object) -> bool:
        if not isinstance(value, str):
            return True
        uri = _as_uri(value)
        return uri is not None and bool(uri_check(uri))

    FORMAT_CHECKER.checkers[name] = (check, raises)


_iri_checker("iri", "uri")
_iri_checker("iri-reference", "uri-reference")


@FORMAT_CHECKER.checks("hostname")
def _hostname(value: object) -> bool:
    return not isinstance(value, str) or _HOSTNAME.fullmatch(value) is not None


@FORMAT_CHECKER.checks("uri-template")
def _uri_template(value: object) -> bool:
    return not isinstance(value, str) or _URI_TEMPLATE.fullmatch(value) is not None


@FORMAT_CHECKER.checks("email")
def _email(value: object) -> bool:
    return not isinstance(value, str) or _EMAIL.fullmatch(value) is not None


@FORMAT_CHECKER.checks("duration")
def _duration(value: object) -> bool:
    return not isinstance(value, str) or (value != "P" and _DURATION.fullmatch(value) is not None)


def _time_ok(match: re.Match[str] | None, *, zone_required: bool) -> bool:
    if match is None:
        return False
    hour, minute, second = (int(match.group(i)) for i in (1, 2, 3))
    has_zone = match.group(4) is not None or match.group(5) is not None
    if zone_required and not has_zone:
        return False
    if match.group(6) is not None and (int(match.group(6)) > 23 or int(match.group(7) or 0) > 59):
        return False
    if hour > 23 or minute > 59:
        return False
    # A leap second only at 23:59:60 UTC, whatever the offset it is written in.
    return second <= 59 or (second == 60 and _is_utc_end_of_day(match, hour, minute))


def _is_utc_end_of_day(match: re.Match[str], hour: int, minute: int) -> bool:
    sign = -1 if match.group(5) == "-" else 1
    offset = sign * (int(match.group(6) or 0) * 60 + int(match.group(7) or 0))
    return (hour * 60 + minute - offset) % (24 * 60) == 23 * 60 + 59


def _date_ok(text: str) -> bool:
    match = _DATE.fullmatch(text)
    if match is None:
        return False
    try:
        date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
    except ValueError:
        return False
    return True


@FORMAT_CHECKER.checks("iso-time")
def _iso_time(value: object) -> bool:
    return not isinstance(value, str) or _time_ok(_TIME.fullmatch(value), zone_required=False)


@FORMAT_CHECKER.checks("iso-date-time")
def _iso_date_time(value: object) -> bool:
    return _date_time_ok(value, zone_required=False)


@FORMAT_CHECKER.checks("time")
def _time(value: object) -> bool:
    return not isinstance(value, str) or _time_ok(_TIME.fullmatch(value), zone_required=True)


@FORMAT_CHECKER.checks("date-time")
def _date_time(value: object) -> bool:
    return _date_time_ok(value, zone_required=True)


def _date_time_ok(value: object, *, zone_required: bool) -> bool:
    if not isinstance(value, str):
        return True
    parts = re.split(r"[tT ]", value, maxsplit=1)
    return (
        len(parts) == 2
        and _date_ok(parts[0])
        and _time_ok(_TIME.fullmatch(parts[1]), zone_required=zone_required)
    )


@FORMAT_CHECKER.checks("uuid")
def _uuid(value: object) -> bool:
    return not isinstance(value, str) or _UUID.fullmatch(value) is not None


@FORMAT_CHECKER.checks("json-pointer-uri-fragment")
def _pointer_fragment(value: object) -> bool:
    return not isinstance(value, str) or _POINTER_FRAGMENT.fullmatch(value) is not None


@FORMAT_CHECKER.checks("byte")
def _byte(value: object) -> bool:
    if not isinstance(value, str):
        return True
    if _BASE64.fullmatch(value) is None:
        return False
    try:
        base64.b64decode(value, validate=True)
    except binascii.Error:
        return False
    return True


@FORMAT_CHECKER.checks("url")
def _url(value: object) -> bool:
    if not isinstance(value, str):
        return True
    match = _URL.fullmatch(value)
    if match is None:
        return False
    host = match.group("host")
    try:
        address = ipaddress.IPv4Address(host)
    except ValueError:
        return _WEB_HOST.fullmatch(host) is not None
    first, last = address.packed[0], address.packed[3]
    return address.is_global and 1 <= first <= 223 and 1 <= last <= 254


@FORMAT_CHECKER.checks("int32")
def _int32(value: object) -> bool:
    return _integer_within(value, *_INT32)


@FORMAT_CHECKER.checks("int64")
def _int64(value: object) -> bool:
    return _integer_within(value, *_INT64)


def _integer_within(value: object, low: int, high: int) -> bool:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return True
    if isinstance(value, float) and not value.is_integer():
        return False
    return low <= value <= high
