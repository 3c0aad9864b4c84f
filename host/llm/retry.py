"""Which failed chat calls are worth retrying, and how long a server asks to wait.

The policy itself (attempts, backoff) is a setting: `lakeboard.common.llm_settings.RetryPolicy`.
"""

from __future__ import annotations

import email.utils
import errno
import math
import socket
import time
from collections.abc import Mapping

# Transient statuses: timeout, conflict, rate limit and every server-side error.
RETRYABLE_STATUSES = frozenset({408, 409, 429})

# Attempts per call when nothing listens at the endpoint: one retry covers a server that is
# restarting; more would only delay the offline fallback.
REFUSED_ATTEMPTS = 2
_NOTHING_LISTENING = frozenset({errno.ECONNREFUSED, errno.EHOSTUNREACH, errno.ENETUNREACH})


def is_retryable_status(status: int) -> bool:
    return status in RETRYABLE_STATUSES or status >= 500


def is_refused_connection(exc: BaseException) -> bool:
    """Whether a failed call found nothing listening (refused, unknown host, no route).

    Those fail at once and again on every try, unlike a timeout or a dropped connection,
    which a later attempt may get through. Told from the operating system's error at the
    root of the chain, whichever HTTP library raised on top of it.
    """
    seen: BaseException | None = exc
    for _ in range(10):  # a short chain; bounded in case causes loop
        if seen is None:
            return False
        if isinstance(seen, (ConnectionRefusedError, socket.gaierror)) or (
            isinstance(seen, OSError) and seen.errno in _NOTHING_LISTENING
        ):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def parse_retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds to wait from `retry-after-ms`, `retry-after` (seconds or HTTP date), else None."""
    if not headers:
        return None
    lowered = {k.lower(): v for k, v in headers.items()}
    for name, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        raw = lowered.get(name)
        if raw is None:
            continue
        try:
            seconds = float(raw) / divisor
        except ValueError:
            if name != "retry-after":
                continue
            parsed = email.utils.parsedate_tz(raw)
            if parsed is None:
                continue
            seconds = email.utils.mktime_tz(parsed) - time.time()
        if math.isfinite(seconds):
            return max(0.0, seconds)
    return None
