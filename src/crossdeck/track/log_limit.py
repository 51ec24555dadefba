"""`LimitedLog`: at most a few lines per period through a logger; the rest are counted.

Whoever can reach the receiver decides how often it has something to report (a rejected
delivery, a refused connection, a sender gone mid-body). Unbounded, that is a disk-filling
attack: 300 idle connections once made the receiver write 100 MB of log in 30 s. Here each
period lets `burst` lines through, counts the others, and says how many it dropped in one line
when the next one gets through (or on `flush()`), so the log grows by at most `burst + 1` short
lines per period, whatever arrives.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable


class LimitedLog:
    """A rate-limited front to `logger` (for lines whose frequency outsiders control)."""

    def __init__(
        self,
        logger: logging.Logger,
        *,
        burst: int = 20,
        period: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if burst < 1 or period <= 0:
            raise ValueError("burst must be >= 1 and period > 0")
        self.logger = logger
        self.burst = burst
        self.period = period
        self._clock = clock
        self._window_start = clock()
        self._in_window = 0
        self.suppressed = 0
        """Lines dropped since the last summary."""
        self.suppressed_total = 0

    def log(self, level: int, msg: str, *args: object) -> None:
        now = self._clock()
        if now - self._window_start >= self.period:
            self._window_start = now
            self._in_window = 0
            self.flush()
        if self._in_window >= self.burst:
            self.suppressed += 1
            self.suppressed_total += 1
            return
        self._in_window += 1
        self.logger.log(level, msg, *args)

    def warning(self, msg: str, *args: object) -> None:
        self.log(logging.WARNING, msg, *args)

    def info(self, msg: str, *args: object) -> None:
        self.log(logging.INFO, msg, *args)

    def flush(self) -> None:
        """Report the lines dropped since the last summary, if any."""
        if self.suppressed:
            self.logger.warning(
                "%d more such line(s) not logged (at most %d per %g s)",
                self.suppressed,
                self.burst,
                self.period,
            )
            self.suppressed = 0


class RepeatFilter(logging.Filter):
    """Lets one record per `period` seconds through for each message text it is told to limit.

    For the event loop's own "socket.accept() out of system resource" report: Python 3.11's
    accept loop reports it once per pending connection and re-arms itself as often, which turned
    one exhausted file limit into 266,000 logged tracebacks in 30 s.
    """

    def __init__(
        self,
        messages: tuple[str, ...],
        *,
        period: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        self.messages = messages
        self.period = period
        self._clock = clock
        self._last: dict[str, float] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.msg if isinstance(record.msg, str) else ""
        for message in self.messages:
            if text.startswith(message):
                now = self._clock()
                last = self._last.get(message)
                if last is not None and now - last < self.period:
                    return False
                self._last[message] = now
                record.exc_info = None  # the traceback says nothing the message does not
                record.exc_text = None
                return True
        return True
