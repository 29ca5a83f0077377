"""An independent reading of ``simulate --books`` output, for the simulator's own tests.

Written from accounting.md alone ("TEL/1 v1.2: streams and the new events",
"The identity", "Sessions"), with no simulator state and none of the product's
books code (the reconciliation is built elsewhere): it checks each v1.2 line
against the shapes' tables, and keeps its own tallies, session by session and
period by period, of what moved through each tray and each drop box.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

ROLES = {
    "dealer",
    "supervisor",
    "cashier",
    "security",
    "runner",
    "count",
    "accounting",
    "controller",
    "other",
}
BOOK_TYPES = {"inventory", "fill", "credit", "slip_void", "buy_in", "drop_count", "adjustment"}
LINES = {"opener", "closer", "fills", "credits", "drop_cash", "drop_markers", "drop_other", "tips"}
DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
DAY_START = dt.timedelta(hours=6)


def _money(v: Any, what: str, *, positive: bool = False, nonneg: bool = False) -> list[str]:
    if isinstance(v, bool) or not isinstance(v, (int, Decimal)):
        return [f"{what}: not money: {v!r}"]
    d = Decimal(v)
    out = []
    if d != d.quantize(Decimal("0.01")):
        out.append(f"{what}: more than 2 decimals: {v}")
    if positive and d <= 0:
        out.append(f"{what}: not > 0: {v}")
    if nonneg and d < 0:
        out.append(f"{what}: negative: {v}")
    return out


def _chips(v: Any, what: str) -> list[str]:
    if not isinstance(v, list):
        return [f"{what}: not a chip list"]
    out, seen = [], set()
    for c in v:
        if not isinstance(c, dict) or set(c) != {"denomination", "count"}:
            out.append(f"{what}: bad chip {c!r}")
            continue
        out += _money(c["denomination"], f"{what}.denomination", positive=True)
        if not isinstance(c["count"], int) or isinstance(c["count"], bool) or c["count"] < 0:
            out.append(f"{what}: bad count {c!r}")
        if c["denomination"] in seen:
            out.append(f"{what}: denomination {c['denomination']} twice")
        seen.add(c["denomination"])
    return out


def _signers(v: Any, what: str) -> list[str]:
    if not isinstance(v, list):
        return [f"{what}: not a signer list"]
    out = []
    for s in v:
        ok = isinstance(s, dict) and isinstance(s.get("id"), str) and 1 <= len(s["id"]) <= 128
        if not ok or s.get("role") not in ROLES or set(s) != {"id", "role"}:
            out.append(f"{what}: bad signer {s!r}")
    return out


def shape_problems(e: dict[str, Any]) -> list[str]:
    """What makes a v1.2 table-level line invalid, by accounting.md's tables."""
    out: list[str] = []
    for key, kind in (("id", str), ("seq", int), ("ts", str), ("table", str), ("type", str)):
        if not isinstance(e.get(key), kind):
            out.append(f"{key} missing or not {kind.__name__}")
    if "stream" in e and not (isinstance(e["stream"], str) and 1 <= len(e["stream"]) <= 128):
        out.append("stream: 1-128 characters")
    t = e.get("type")
    if t == "inventory":
        if e.get("kind") not in ("opener", "closer"):
            out.append("inventory.kind")
        out += _chips(e.get("chips"), "chips") + _signers(e.get("signers"), "signers")
    elif t in ("fill", "credit"):
        if e.get("side", "table") not in ("table", "cage"):
            out.append("side")
        if "series" in e and not (isinstance(e["series"], str) and 1 <= len(e["series"]) <= 64):
            out.append("series")
        if not isinstance(e.get("slip"), int) or e["slip"] < 1:
            out.append("slip")
        out += _chips(e.get("chips"), "chips") + _signers(e.get("signers"), "signers")
    elif t == "slip_void":
        if e.get("of") not in ("fill", "credit") or not isinstance(e.get("reason"), str):
            out.append("slip_void.of/reason")
        if not isinstance(e.get("slip"), int) or e["slip"] < 1:
            out.append("slip")
        out += _signers(e.get("signers"), "signers")
    elif t == "buy_in":
        out += _money(e.get("amount"), "amount", positive=True)
        if e.get("method") not in ("cash", "marker", "other"):
            out.append("method")
        if "box" in e and (not isinstance(e["box"], int) or e["box"] < 1):
            out.append("box")
    elif t == "drop_count":
        if not DAY.fullmatch(str(e.get("gaming_day"))):
            out.append("gaming_day")
        out += _money(e.get("cash"), "cash", nonneg=True)
        for k in ("markers", "other", "tips"):
            if k in e:
                out += _money(e[k], k, nonneg=True)
        out += _signers(e.get("signers"), "signers")
    elif t == "adjustment":
        if not DAY.fullmatch(str(e.get("gaming_day"))) or e.get("line") not in LINES:
            out.append("adjustment.gaming_day/line")
        out += _money(e.get("amount"), "amount")
        if e.get("amount") == 0:
            out.append("amount 0")
        for k in ("reason", "by"):
            if not (isinstance(e.get(k), str) and e[k]):
                out.append(k)
    return out


def read_night(out: Path) -> list[dict[str, Any]]:
    """Every line of every ``*.jsonl`` under ``out``, money as Decimal."""
    lines = []
    for path in sorted(out.rglob("*.jsonl")):
        for text in path.read_text(encoding="utf-8").splitlines():
            lines.append(json.loads(text, parse_float=Decimal))
    return lines


def value(chips: list[dict[str, Any]]) -> Decimal:
    return sum((Decimal(c["denomination"]) * c["count"] for c in chips), Decimal(0))


def period(ts: str) -> dt.date:
    return (dt.datetime.fromisoformat(ts) - DAY_START).date()


@dataclass
class SessionTally:
    table: str
    day: dt.date
    shift: str
    opener: dict[str, Any]
    closer: dict[str, Any] | None = None
    fills: Decimal = Decimal(0)
    credits: Decimal = Decimal(0)
    result: Decimal = Decimal(0)
    """R: −Σ settle.amount."""
    buy_ins: Decimal = Decimal(0)
    slips: list[tuple[str, int]] = field(default_factory=list)

    def tray_gap(self) -> Decimal:
        """(closer − opener) − (fills − credits + R − B): 0 when the identity holds."""
        assert self.closer is not None
        moved = value(self.closer["chips"]) - value(self.opener["chips"])
        return moved - (self.fills - self.credits + self.result - self.buy_ins)


@dataclass
class Night:
    sessions: list[SessionTally]
    buy_ins: dict[tuple[str, dt.date, str], dict[str, Decimal]]
    counts: dict[tuple[str, dt.date, str], list[dict[str, Any]]]
    cage: list[dict[str, Any]]
    table_slips: list[dict[str, Any]]
    voids: list[dict[str, Any]]
    adjustments: list[dict[str, Any]]
    inventories: dict[str, list[dict[str, Any]]]
    outside: list[dict[str, Any]]


def _one_shift(ts: str) -> str:
    return "day"


def tally(lines: list[dict[str, Any]], shift_of: Callable[[str], str] = _one_shift) -> Night:
    """Sessions (opener to closer, by ``seq`` in the table's stream) with their own sums;
    buy-ins per table and gaming day (the opener's, at the one-shift packaged house); the
    cage's copies counting as the slip (accounting.md), placed by their table copy."""
    by_stream: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for e in lines:
        by_stream[e.get("stream", e["table"])].append(e)
    cage = [e for e in lines if e.get("side") == "cage" and e["type"] in ("fill", "credit")]
    voids = [e for e in lines if e["type"] == "slip_void"]
    voided = {(v["series"], v["slip"]) for v in voids}
    counting: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    for c in sorted(cage, key=lambda e: e["seq"]):
        if (c["series"], c["slip"]) not in voided:
            counting[(c["series"], c["slip"])].append(c)
    sessions: list[SessionTally] = []
    buy_ins: dict[tuple[str, dt.date, str], dict[str, Decimal]] = defaultdict(
        lambda: defaultdict(Decimal)
    )
    table_slips, inventories, outside = [], defaultdict(list), []
    for table, events in by_stream.items():
        if any(e["table"] != table for e in events):  # the cage's, the count room's
            continue
        events.sort(key=lambda e: e["seq"])
        open_s: SessionTally | None = None
        for e in events:
            t = e["type"]
            if t == "inventory":
                inventories[table].append(e)
                if e["kind"] == "opener":
                    if open_s is not None:
                        sessions.append(open_s)
                    open_s = SessionTally(table, period(e["ts"]), shift_of(e["ts"]), e)
                else:
                    assert open_s is not None, f"{e['id']}: a closer with no session open"
                    open_s.closer = e
                    sessions.append(open_s)
                    open_s = None
                continue
            if open_s is None:
                if t in ("settle", "buy_in", "fill", "credit", "bet"):
                    outside.append(e)
                continue
            if t == "settle":
                open_s.result -= Decimal(e["amount"])
            elif t == "buy_in":
                open_s.buy_ins += Decimal(e["amount"])
                key3 = (table, open_s.day, open_s.shift)
                buy_ins[key3][e["method"]] += Decimal(e["amount"])
            elif t in ("fill", "credit"):
                table_slips.append(e)
                open_s.slips.append((e["series"], e["slip"]))
        if open_s is not None:
            sessions.append(open_s)
    # the counting side's copies, placed where their table copy lies, else by their ts
    for s in sessions:
        for key in dict.fromkeys(s.slips):
            for c in counting.pop(key, []):
                if c["type"] == "fill":
                    s.fills += value(c["chips"])
                else:
                    s.credits += value(c["chips"])
    for copies in counting.values():
        for c in copies:
            at = dt.datetime.fromisoformat(c["ts"])
            for s in sessions:
                end = s.closer["ts"] if s.closer is not None else "9999"
                if s.table == c["table"] and s.opener["ts"] <= c["ts"] <= end:
                    if c["type"] == "fill":
                        s.fills += value(c["chips"])
                    else:
                        s.credits += value(c["chips"])
                    break
            else:
                raise AssertionError(f"cage copy {c['id']} at {at} lies in no session")
    counts: dict[tuple[str, dt.date, str], list[dict[str, Any]]] = defaultdict(list)
    for e in lines:
        if e["type"] == "drop_count":
            day = dt.date.fromisoformat(e["gaming_day"])
            counts[(e["table"], day, e.get("shift", "day"))].append(e)
    return Night(
        sessions,
        buy_ins,
        counts,
        cage,
        table_slips,
        voids,
        [e for e in lines if e["type"] == "adjustment"],
        inventories,
        outside,
    )


def anomalies(night: Night, lines: list[dict[str, Any]]) -> set[tuple[Any, ...]]:
    """Each departure from clean books these tallies see, as (code it is, table, gaming
    day, shift, impact): what the injected night's manifest must list, no more, no less."""
    out: set[tuple[Any, ...]] = set()

    def where(table: str, slip: tuple[str, int], ts: str) -> tuple[dt.date, str]:
        for s in night.sessions:
            if s.table == table and slip in s.slips:
                return s.day, s.shift
        for s in night.sessions:
            end = s.closer["ts"] if s.closer is not None else "9999"
            if s.table == table and s.opener["ts"] <= ts <= end:
                return s.day, s.shift
        raise AssertionError(f"slip {slip} lies in no session")

    for s in night.sessions:
        if s.closer is None:
            out.add(("ACCT_NO_INVENTORY", s.table, s.day, s.shift, None))
        elif s.tray_gap():
            out.add(("ACCT_WIN_MISMATCH", s.table, s.day, s.shift, -s.tray_gap()))
    periods = {(s.table, s.day, s.shift) for s in night.sessions}
    for key in sorted(periods):
        bought = night.buy_ins.get(key, {})
        counted = night.counts.get(key)
        if not counted:
            out.add(("ACCT_NO_DROP_COUNT", *key, None))
            continue
        cash = sum((Decimal(c["cash"]) for c in counted), Decimal(0))
        markers = sum((Decimal(c.get("markers", 0)) for c in counted), Decimal(0))
        b_cash, b_markers = bought.get("cash", Decimal(0)), bought.get("marker", Decimal(0))
        if (cash, markers) != (b_cash, b_markers):
            out.add(("ACCT_DROP_MISMATCH", *key, b_cash + b_markers - cash - markers))
    assert set(night.counts) <= periods, "a count of no period"
    for table, invs in night.inventories.items():
        for before, after in itertools.pairwise(invs):
            if before["kind"] != "closer" or after["kind"] != "opener":
                continue
            if before["chips"] == after["chips"]:
                continue
            gap = value(before["chips"]) - value(after["chips"])
            code = (
                "ACCT_OPENER_MISMATCH"
                if gap <= 25
                else "ACCT_INVENTORY_DISCREPANCY"
                if gap < 100
                else "ACCT_INVENTORY_REPORTABLE"
            )
            s = next(s for s in night.sessions if s.opener is after)
            out.add((code, table, s.day, s.shift, gap))
    seen: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    for c in sorted(night.cage, key=lambda e: e["seq"]):
        seen[(c["series"], c["slip"])].append(c)
    highest: dict[str, int] = {}
    for c in sorted(night.cage, key=lambda e: (e["ts"], e["seq"])):
        key = (c["series"], c["slip"])
        if len(seen[key]) > 1:
            if c is seen[key][1]:
                out.add(("ACCT_SLIP_DUPLICATE", c["table"], *where(c["table"], key, c["ts"]), None))
            continue
        if c["slip"] < highest.get(c["series"], 0):
            out.add(("ACCT_SLIP_SEQUENCE", c["table"], *where(c["table"], key, c["ts"]), None))
        highest[c["series"]] = max(highest.get(c["series"], 0), c["slip"])
    tables = {(t["series"], t["slip"]) for t in night.table_slips}
    voided = {(v["series"], v["slip"]) for v in night.voids}
    for c in night.cage:
        key = (c["series"], c["slip"])
        if key not in tables and key not in voided:
            out.add(("ACCT_SLIP_UNMATCHED", c["table"], *where(c["table"], key, c["ts"]), None))
    for v in night.voids:
        if len({s["id"] for s in v["signers"]}) < 2 or not v["reason"]:
            key = (v["series"], v["slip"])
            out.add(("ACCT_SLIP_VOID", v["table"], *where(v["table"], key, v["ts"]), None))
    for c in [*night.cage, *night.table_slips]:
        if len({s["id"] for s in c["signers"]}) < 2:
            key = (c["series"], c["slip"])
            out.add(("ACCT_SLIP_SIGNATURES", c["table"], *where(c["table"], key, c["ts"]), None))
    for a in night.adjustments:
        if abs(Decimal(a["amount"])) > 2000:
            day = dt.date.fromisoformat(a["gaming_day"])
            out.add(("ACCT_ADJUSTMENT_REPORTABLE", a["table"], day, a.get("shift", "day"), None))
    return out
