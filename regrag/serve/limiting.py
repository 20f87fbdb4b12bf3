"""Per-principal request rates and page sessions, both bounded in memory."""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections import OrderedDict

from regrag.serve.auth import Principal

MAX_TRACKED = 10_000  # principals with a rate bucket, and live sessions
SESSION_SECONDS = 8 * 3600


class RateLimiter:
    """A token bucket per principal: ``rate`` requests a second on average, bursts of ``burst``."""

    def __init__(self, rate: float, burst: int, clock=time.monotonic) -> None:
        self.rate, self.burst, self._clock = rate, burst, clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()

    def allow(self, name: str) -> bool:
        if self.rate <= 0:
            return True
        now = self._clock()
        with self._lock:
            tokens, last = self._buckets.pop(name, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - last) * self.rate)
            allowed = tokens >= 1.0
            self._buckets[name] = (tokens - 1.0 if allowed else tokens, now)
            while len(self._buckets) > MAX_TRACKED:
                self._buckets.popitem(last=False)
            return allowed


class SessionTable:
    """Page sessions: a random id (the ``regrag_session`` cookie) -> principal
    and CSRF token; the oldest go first beyond ``MAX_TRACKED``."""

    def __init__(self, clock=time.monotonic) -> None:
        self._clock = clock
        self._sessions: OrderedDict[str, tuple[Principal, str, float]] = OrderedDict()
        self._lock = threading.Lock()

    def start(self, principal: Principal) -> tuple[str, str]:
        """A new session: its id and its CSRF token."""
        session, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        with self._lock:
            self._sessions[session] = (principal, csrf, self._clock() + SESSION_SECONDS)
            while len(self._sessions) > MAX_TRACKED:
                self._sessions.popitem(last=False)
        return session, csrf

    def _live(self, session: str) -> tuple[Principal, str, float] | None:
        if not session:
            return None
        with self._lock:
            found = self._sessions.get(session)
            if found is not None and found[2] < self._clock():
                del self._sessions[session]
                return None
            return found

    def principal(self, session: str) -> Principal | None:
        found = self._live(session)
        return None if found is None else found[0]

    def csrf(self, session: str) -> str | None:
        found = self._live(session)
        return None if found is None else found[1]

    def check_csrf(self, session: str, presented: str) -> bool:
        expected = self.csrf(session)
        return expected is not None and hmac.compare_digest(expected.encode(), (presented or "").encode())

    def end(self, session: str) -> None:
        with self._lock:
            self._sessions.pop(session, None)
