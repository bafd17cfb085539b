"""Pure parsing of the response headers the client acts on."""

from __future__ import annotations

import math
from collections.abc import Mapping
from email.utils import parsedate_to_datetime

from structqa._constants import REQUEST_ID_HEADERS, RETRY_AFTER_HEADER, RETRY_AFTER_MS_HEADER


def _get(headers: Mapping[str, str], name: str) -> str | None:
    value = headers.get(name)
    if value is None and not hasattr(headers, "get_list"):  # plain dicts: case-insensitive lookup
        for key, raw in headers.items():
            if key.lower() == name:
                return raw
    return value


def parse_retry_after_ms(headers: Mapping[str, str], now: float) -> float | None:
    """The delay the server asked for, in milliseconds, or ``None``.

    ``retry-after-ms`` (a non-negative number of milliseconds) wins; otherwise ``Retry-After`` as
    seconds or as an HTTP date (relative to ``now``, seconds since the epoch; a date in the past means
    zero). Negative, non-finite or unparseable values are ignored.
    """
    raw_ms = _get(headers, RETRY_AFTER_MS_HEADER)
    if raw_ms is not None:
        try:
            value = float(raw_ms.strip())
        except ValueError:
            value = math.nan
        if math.isfinite(value) and value >= 0:
            return value
    raw = _get(headers, RETRY_AFTER_HEADER)
    if raw is None or not raw.strip():
        return None
    raw = raw.strip()
    try:
        seconds = float(raw)
    except ValueError:
        try:
            when = parsedate_to_datetime(raw)
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
        if when is None or when.tzinfo is None:
            return None
        return max(0.0, (when.timestamp() - now) * 1000.0)
    if math.isfinite(seconds) and seconds >= 0:
        return seconds * 1000.0
    return None


def request_id_from(headers: Mapping[str, str]) -> str | None:
    """``x-request-id``, else the earlier service's ``x-typesafe-request-id``."""
    for name in REQUEST_ID_HEADERS:
        value = _get(headers, name)
        if value:
            return value
    return None
