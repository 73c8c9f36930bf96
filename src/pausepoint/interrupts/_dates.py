"""Does a binding's ``expiresAt`` parse as a date the way JavaScript's ``Date.parse`` does?

Accepted: the ECMAScript date-time string format (``2030-01-31T12:00:00.000Z`` and its
shorter and extended-year forms, with V8's allowances: any day 1..31 in any month, hour
24 at midnight exactly, fractions of any length) and the two forms JavaScript's own
``Date`` prints (``toUTCString`` and ``toString``), within JavaScript's date range.

V8 also accepts many loose legacy spellings (``"2030/1/31"``, ``"March 7, 2030"``, even
``"1"``); those are read as not parsing here, so such a binding is treated as not ours.
"""

from __future__ import annotations

import re

__all__ = ["js_date_parses"]

_MAX_TIME_MS = 8.64e15
_MS_PER_DAY = 86_400_000

_ISO = re.compile(
    r"(?P<year>\d{4}|[+-]\d{6})"
    r"(?:-(?P<month>\d{2})(?:-(?P<day>\d{2}))?)?"
    r"(?:T(?P<hour>\d{2}):(?P<minute>\d{2})"
    r"(?::(?P<second>\d{2})(?:\.(?P<fraction>\d+))?)?"
    r"(?P<zone>Z|[+-]\d{2}:\d{2})?)?",
    re.ASCII,
)
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_DAY_NAME = r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)"
_MONTH_NAME = r"(?P<mon>Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
_CLOCK = r"(?P<hour>\d{2}):(?P<minute>\d{2}):(?P<second>\d{2})"
_UTC_STRING = re.compile(
    rf"{_DAY_NAME}, (?P<day>\d{{2}}) {_MONTH_NAME} (?P<year>\d{{4,6}}) {_CLOCK} GMT",
    re.ASCII,
)
_DATE_STRING = re.compile(
    rf"{_DAY_NAME} {_MONTH_NAME} (?P<day>\d{{2}}) (?P<year>\d{{4,6}}) {_CLOCK} "
    r"GMT(?P<offset>[+-]\d{4})(?: \([^()]*\))?",
    re.ASCII,
)


def js_date_parses(text: str) -> bool:
    """True when ``Date.parse(text)`` is finite for the formats described above.

    >>> js_date_parses("2030-01-31T12:00:00Z"), js_date_parses("soon")
    (True, False)
    """
    return _iso_time(text) or _printed_time(text)


def _iso_time(text: str) -> bool:
    match = _ISO.fullmatch(text)
    if match is None or match["year"] == "-000000":
        return False
    month = int(match["month"] or 1)
    day = int(match["day"] or 1)
    hour = int(match["hour"] or 0)
    minute = int(match["minute"] or 0)
    second = int(match["second"] or 0)
    fraction = match["fraction"] or "0"
    if not (1 <= month <= 12 and 1 <= day <= 31 and minute <= 59 and second <= 59):
        return False
    if hour > 24 or (hour == 24 and (minute or second or int(fraction))):
        return False
    offset_minutes = 0
    zone = match["zone"]
    if zone and zone != "Z":
        zone_hours, zone_minutes = int(zone[1:3]), int(zone[4:6])
        if zone_hours > 23 or zone_minutes > 59:
            return False
        offset_minutes = (zone_hours * 60 + zone_minutes) * (1 if zone[0] == "+" else -1)
    milliseconds = int(fraction[:3].ljust(3, "0"))
    return _in_range(
        int(match["year"]), month, day, hour, minute, second, milliseconds, offset_minutes
    )


def _printed_time(text: str) -> bool:
    offset_minutes = 0
    match = _UTC_STRING.fullmatch(text)
    if match is None:
        match = _DATE_STRING.fullmatch(text)
        if match is None:
            return False
        offset = match["offset"]
        offset_minutes = (int(offset[1:3]) * 60 + int(offset[3:5])) * (
            1 if offset[0] == "+" else -1
        )
    hour, minute, second = int(match["hour"]), int(match["minute"]), int(match["second"])
    day = int(match["day"])
    if not (1 <= day <= 31 and hour <= 24 and minute <= 59 and second <= 59):
        return False
    if hour == 24 and (minute or second):
        return False
    month = _MONTHS.index(match["mon"].lower()) + 1
    return _in_range(int(match["year"]), month, day, hour, minute, second, 0, offset_minutes)


def _in_range(
    year: int,
    month: int,
    day: int,
    hour: int,
    minute: int,
    second: int,
    milliseconds: int,
    offset_minutes: int,
) -> bool:
    days = _days_from_civil(year, month, 1) + day - 1
    time_ms = (
        days * _MS_PER_DAY
        + ((hour * 60 + minute - offset_minutes) * 60 + second) * 1000
        + milliseconds
    )
    return abs(time_ms) <= _MAX_TIME_MS


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 in the proleptic Gregorian calendar, for any year."""
    year -= month <= 2
    era = year // 400
    year_of_era = year - era * 400
    day_of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146_097 + day_of_era - 719_468
