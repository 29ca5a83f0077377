"""Back-off for failed sign-ins (issue 29, point 10): per account and per client address.

Each sign-in attempt is counted as a failure *before* its password is checked
(and taken back when it succeeds), so a burst of parallel guesses is counted
as it arrives. After :data:`FREE_FAILURES` failures, each further one makes
the next attempt wait twice as long as the one before, from 1 s:

- **per client address** (the TCP peer, ``request.client.host``; never
  ``X-Forwarded-For``, which any client writes; all of loopback one client, an IPv6
  address by its /64: :func:`client_key`): up to :data:`ADDRESS_CAP_S`
  (15 min). During the wait every attempt from that address is answered 429
  with ``Retry-After``, *without checking the password*, the right one
  included: otherwise the back-off would not slow guessing.
- **per account name** (known or not, so that the answer tells nothing about
  which names exist): up to :data:`ACCOUNT_CAP_S` (60 s), short on purpose,
  since anyone can make an account wait. During that wait an attempt from an
  address with no failure on record is still checked: the reviewer at her own
  desk signs in while someone elsewhere guesses her password; a wrong password
  from there is answered 429 too, and the address then has a failure on record.

The counters live in the memory of the ``serve`` process only (``serve`` never
writes the database), at most :data:`MAX_ENTRIES` of them (the least recently
failed dropped first), each forgotten :data:`FORGET_S` after its last failure.
"""

from __future__ import annotations

import ipaddress
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

FREE_FAILURES = 5
FIRST_WAIT_S = 1.0
ADDRESS_CAP_S = 15 * 60.0
ACCOUNT_CAP_S = 60.0
FORGET_S = 30 * 60.0
"""A counter with no failure for this long starts again from nothing (longer than either cap,
so a wait always runs out before its counter is forgotten)."""
MAX_ENTRIES = 100_000
MAX_NAME = 128
"""Names longer than any account's are cut here before they become a key."""


@dataclass(slots=True)
class _Count:
    failures: int
    last: float
    until: float


@dataclass(frozen=True, slots=True)
class Attempt:
    """A sign-in let through :meth:`SignInThrottle.begin`; report its outcome once."""

    account: str
    address: str


class SignInThrottle:
    """Failed sign-ins counted per account and per address, with a doubling wait."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._counts: OrderedDict[tuple[str, str], _Count] = OrderedDict()

    def begin(self, account: str, address: str) -> Attempt | int:
        """An attempt to check, or the whole seconds to wait before the next (answer 429)."""
        address = client_key(address)
        acc, addr = ("account", _name(account)), ("address", address)
        with self._lock:
            now = self._clock()
            wait_addr = self._wait(addr, now)
            wait_acc = self._wait(acc, now)
            clean = self._counts.get(addr) is None
            if wait_addr > 0 or (wait_acc > 0 and not clean):
                return max(1, math.ceil(max(wait_addr, wait_acc)))
            self._fail(acc, now, ACCOUNT_CAP_S)
            self._fail(addr, now, ADDRESS_CAP_S)
        return Attempt(acc[1], address)

    def succeeded(self, attempt: Attempt) -> None:
        """The password was right: the account's count starts again; the address keeps its
        earlier failures (a guesser who also holds an account must not wipe them by signing
        in as herself) but not this attempt."""
        with self._lock:
            self._counts.pop(("account", attempt.account), None)
            addr = self._counts.get(("address", attempt.address))
            if addr is not None:
                addr.failures -= 1
                if addr.failures <= 0:
                    del self._counts[("address", attempt.address)]
                elif addr.failures <= FREE_FAILURES:
                    addr.until = 0.0

    def failed_during_wait(self, attempt: Attempt) -> int:
        """Seconds the account still waits (0: none) after a failure counted by ``begin``."""
        with self._lock:
            return max(0, math.ceil(self._wait(("account", attempt.account), self._clock())))

    def __len__(self) -> int:
        return len(self._counts)

    # ------------------------------------------------------------------ internals

    def _wait(self, key: tuple[str, str], now: float) -> float:
        count = self._counts.get(key)
        if count is None:
            return 0.0
        if now - count.last > FORGET_S:
            del self._counts[key]
            return 0.0
        return max(0.0, count.until - now)

    def _fail(self, key: tuple[str, str], now: float, cap: float) -> None:
        count = self._counts.pop(key, None) or _Count(0, now, 0.0)
        count.failures += 1
        count.last = now
        over = count.failures - FREE_FAILURES
        if over > 0:
            count.until = now + min(cap, FIRST_WAIT_S * 2.0 ** min(over - 1, 40))
        self._counts[key] = count  # the most recently failed last
        while self._counts:  # the oldest first: forget those past FORGET_S, keep the bound
            oldest = next(iter(self._counts.values()))
            if len(self._counts) <= MAX_ENTRIES and now - oldest.last <= FORGET_S:
                break
            self._counts.popitem(last=False)


def client_key(host: str) -> str:
    """The client an address belongs to, as the back-off counts it: all of loopback (any
    local user may connect from any of 127.0.0.0/8) is one, an IPv6 address counts by its
    /64 (one host's or one site's, its own to pick from), an IPv4-mapped one as its IPv4
    address; any other address as itself. Otherwise each fresh address was a fresh guess."""
    try:
        ip = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback:
        return "loopback"
    if isinstance(ip, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def _name(account: str) -> str:
    return " ".join(account.split()).casefold()[:MAX_NAME]
