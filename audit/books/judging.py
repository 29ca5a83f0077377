"""Judging the books: when each part of a period can be judged, the ``ACCT_`` findings
it raises, and the period's status (accounting.md "When a period is judged",
"Findings", "The catalogue", "How many findings").

Used by :func:`audit.books.reconcile.reconcile`, which places the records first.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING

from audit.books.house import House
from audit.books.model import (
    ZERO,
    Adjustment,
    DropCount,
    HandsFinding,
    Inventory,
    Period,
    Side,
    Signer,
    SlipCopy,
)
from audit.books.slips import (
    Slip,
    SlipKey,
    VoidDefect,
    chips_text,
    missing_runs,
    same_chips,
    sequence_breaks,
)
from audit.books.timeline import Lie, PeriodKey
from audit.findings import Code, Finding, money_str

if TYPE_CHECKING:
    from audit.books.reconcile import TableBooks

NO_CODES = (Code.ACCT_NO_INVENTORY, Code.ACCT_NO_DROP_COUNT)
_NAMED = 5
"""How many of a session's hands' findings its ``ACCT_WIN_MISMATCH`` names one by one."""


def _m(d: Decimal | None) -> str | None:
    return money_str(d)


def _signed(signers: Sequence[Signer]) -> str:
    seen: dict[str, str] = {}
    for s in signers:
        seen.setdefault(s.id, s.role)
    return ", ".join(f"{i} ({r})" for i, r in seen.items()) or "nobody"


def _distinct(signers: Sequence[Signer]) -> int:
    return len({s.id for s in signers})


@dataclass(slots=True)
class Judge:
    """Judges one reconciliation's periods; collects which periods still wait."""

    house: House
    horizon_last_count: dt.date | None
    first_cage_day: dt.date | None
    last_cage_day: dt.date | None
    periods: dict[PeriodKey, Period]
    tables: Mapping[str, TableBooks]
    lie: Mapping[str, Lie]
    outside: Mapping[PeriodKey, list[str]]
    period_counts: Mapping[PeriodKey, list[DropCount]]
    hands_findings: Mapping[str, Sequence[HandsFinding]] = field(default_factory=dict)
    """Each table's stored ``PAY_``/``LOG_SEQ_GAP`` findings, named by the
    ``ACCT_WIN_MISMATCH`` of the session they fall in."""
    pending: set[PeriodKey] = field(default_factory=set)
    unjudged_sessions: set[tuple[str, int]] = field(default_factory=set)

    # ---------------------------------------------------------------- when

    def _cage_closed(self, key: PeriodKey) -> bool:
        """Whether the cage copies of the period's gaming day are all stored."""
        if self.last_cage_day is not None and self.last_cage_day > key.gaming_day:
            return True
        return self.house.cage_day_close == "count" and key in self.period_counts

    def session_over(self, table: str, idx: int) -> bool:
        """A session with its closer, or one left without (``ACCT_NO_INVENTORY``)."""
        tb = self.tables[table]
        s = tb.sessions.sessions[idx]
        return s.closer is not None or self.left_without_closer(table, idx)

    def left_without_closer(self, table: str, idx: int) -> bool:
        """accounting.md: without a closer once the table has a later opener, an event
        of a later gaming day, or its period's count."""
        tb = self.tables[table]
        if tb.sessions.sessions[idx].closer is not None:
            return False
        key = tb.session_period[idx]
        return (
            idx in tb.sessions.left_open
            or tb.last_day > key.gaming_day
            or key in self.period_counts
        )

    def slip_judged(self, table: str, where: Lie) -> bool:
        """A slip is judged once its session is over (outside every session: at once)
        and its gaming day's cage copies are all stored; at once while the store holds
        no cage copy at all."""
        if self.first_cage_day is None:
            return True
        if where.session is not None and not self.session_over(table, where.session):
            return False
        return self._cage_closed(where.period)

    def _wait(self, table: str, where: Lie) -> None:
        self.pending.add(where.period)
        if where.session is not None:
            self.unjudged_sessions.add((table, where.session))

    # ---------------------------------------------------------------- inventories

    def inventories(self, invs: Sequence[Inventory]) -> list[Finding]:
        """Each opener against the previous closer (one finding per opener, the first
        that applies of REPORTABLE, DISCREPANCY, OPENER_MISMATCH, by net value), and
        each inventory's signatures (NJ 13:69D-1.21(d)), judged when stored."""
        out: list[Finding] = []
        for tb in self.tables.values():
            for idx, prev in tb.sessions.previous_closer.items():
                opener = tb.sessions.sessions[idx].opener
                f = self._opener(tb.session_period[idx], prev, opener)
                if f is not None:
                    out.append(f)
        roles = self.house.inventory_roles
        for inv in invs:
            books = self.tables.get(inv.table)
            if books is None:
                continue
            missing = [r for r in roles if not any(s.role == r for s in inv.signers)]
            if not missing:
                continue
            at = books.sessions.inventory_session.get(inv.at.id)
            if at is not None:
                key = books.session_period[at]
            else:
                from audit.books.timeline import period_at

                key = period_at(inv.table, inv.at.ts, self.house)
            out.append(
                self._finding(
                    Code.ACCT_SLIP_SIGNATURES,
                    key,
                    f"the {inv.kind} {inv.at.id} is not signed by a "
                    f"{' and a '.join(missing)} (NJ 13:69D-1.21(d): each of "
                    f"{', '.join(roles)} attests the count); signed by {_signed(inv.signers)}",
                    expected=", ".join(roles),
                    actual=_signed(inv.signers),
                    rule="inventory_roles",
                    events=(inv.at.id,),
                    item=inv.at.id,
                    source=inv.at.source,
                )
            )
        return out

    def _opener(self, key: PeriodKey, closer: Inventory, opener: Inventory) -> Finding | None:
        from audit.books.slips import same_chips as same

        delta = closer.chips.value - opener.chips.value
        size = abs(delta)
        h = self.house
        if size >= h.discrepancy_regulator:
            code, rule = Code.ACCT_INVENTORY_REPORTABLE, "discrepancy_regulator"
            why = (
                f"by {money_str(h.discrepancy_regulator)} or more: a report, "
                "copied to the regulator (NJ 13:69D-1.21(e))"
            )
        elif size > h.discrepancy_report:
            code, rule = Code.ACCT_INVENTORY_DISCREPANCY, "discrepancy_report"
            why = f"over {money_str(h.discrepancy_report)}: a report (NJ 13:69D-1.21(e))"
        elif not same(closer.chips, opener.chips):
            code, rule = Code.ACCT_OPENER_MISMATCH, "discrepancy_report"
            why = "in its chips, by denomination"
        else:
            return None
        return self._finding(
            code,
            key,
            f"the opener {opener.at.id} ({chips_text(opener.chips)}) differs from the "
            f"previous closer {closer.at.id} ({chips_text(closer.chips)}) {why}; "
            f"closer - opener = {money_str(delta)}",
            expected=_m(closer.chips.value),
            actual=_m(opener.chips.value),
            impact=delta,
            rule=rule,
            events=(closer.at.id, opener.at.id),
            item=opener.at.id,
            source=opener.at.source,
        )

    # ---------------------------------------------------------------- slips

    def slips(
        self, slips: Sequence[Slip], defects: Sequence[VoidDefect], void_key: Mapping[str, SlipKey]
    ) -> list[Finding]:
        """Every ``ACCT_SLIP_`` finding on the slips judged so far."""
        out: list[Finding] = []
        out_of_sequence = {b.key: b.due for b in sequence_breaks(slips)}
        judged: dict[SlipKey, bool] = {}
        lies: dict[SlipKey, Lie] = {}
        for s in slips:
            table = s.first.table
            where = self.lie.get(s.first.at.id)
            if where is None:
                continue  # a table keeping no books: the slip serves the sequence only
            lies[s.key] = where
            ok = self.slip_judged(table, where)
            judged[s.key] = ok
            if not ok:
                self._wait(table, where)
                continue
            out += self._slip(s, where, out_of_sequence.get(s.key))
        for d in defects:
            where = self.lie.get(d.void.at.id)
            if where is None:
                continue
            slip_where = lies.get(void_key[d.void.at.id]) if d.void.at.id in void_key else None
            if slip_where is not None:
                where = slip_where
            if not self.slip_judged(d.void.table, where):
                self._wait(d.void.table, where)
                continue
            void = self._void(d.void, where, [d.why])
            if void is not None:
                out.append(void)
        if self.house.series_complete:
            for run in missing_runs(slips):
                after = SlipKey(run.series, run.year, run.after)
                where = lies.get(after)
                if where is not None and not judged.get(after, False):
                    continue
                day = where.period.gaming_day if where is not None else None
                first = SlipKey(run.series, run.year, run.first)
                out.append(
                    Finding(
                        code=Code.ACCT_SLIP_SEQUENCE,
                        message=(
                            f"serials {run.first} to {run.after - 1} of series {run.series} "
                            f"({run.year}) are neither recorded nor voided, between two "
                            "recorded ones (the house file says the data holds every slip)"
                        ),
                        expected=str(run.first),
                        actual=str(run.after),
                        rule="series_complete",
                        gaming_day=day,
                        key=str(first),
                    )
                )
        return out

    def _slip(self, s: Slip, where: Lie, due: int | None) -> list[Finding]:
        out: list[Finding] = []
        key = where.period
        dup = s.duplicated_side
        if dup is not None:
            a, b = s.copies[dup][0], s.copies[dup][1]
            out.append(
                self._finding(
                    Code.ACCT_SLIP_DUPLICATE,
                    key,
                    f"{s.first.type} slip {s.key} is recorded {len(s.copies[dup])} times on "
                    f"the {dup} side ({', '.join(c.at.id for c in s.copies[dup])}); "
                    f"each counts on the side that counts",
                    expected=_m(a.chips.value),
                    actual=_m(b.chips.value),
                    events=tuple(s.all_events()),
                    item=str(s.key),
                    source=b.at.source,
                )
            )
        else:
            f = self._unmatched(s, key)
            if f is not None:
                out.append(f)
            if due is not None:
                issuing: Side = "cage" if s.copies["cage"] else "table"
                c = s.copies[issuing][0]
                out.append(
                    self._finding(
                        Code.ACCT_SLIP_SEQUENCE,
                        key,
                        f"{c.type} slip {s.key} was issued ({issuing} side, {c.at.id}) after "
                        f"serial {due - 1} of its series: out of sequence, {due} was due",
                        expected=str(due),
                        actual=str(s.key.serial),
                        events=(c.at.id,),
                        item=str(s.key),
                        source=c.at.source,
                    )
                )
        for c in (*s.copies["table"], *s.copies["cage"]):
            signed = self._copy_signatures(c, key)
            if signed is not None:
                out.append(signed)
        for v in (*s.voids["table"], *s.voids["cage"]):
            why = []
            if self._late(s, where, v.table, v.at.id):
                why.append("placed after the closer of the slip's session")
            void = self._void(v, where, why)
            if void is not None:
                out.append(void)
        return out

    def _late(self, s: Slip, where: Lie, table: str, void_id: str) -> bool:
        if where.session is None or table != s.first.table:
            return False
        tb = self.tables[table]
        closer_at = tb.sessions.closer_position.get(where.session)
        v = self.lie.get(void_id)
        return closer_at is not None and v is not None and v.position > closer_at

    def _unmatched(self, s: Slip, key: PeriodKey) -> Finding | None:
        if self.first_cage_day is None or key.gaming_day < self.first_cage_day:
            return None
        cage, table = s.counts_on("cage"), s.counts_on("table")
        if not cage and not table:
            return None
        if cage and table:
            c, t = s.copies["cage"][0], s.copies["table"][0]
            diffs = [
                what
                for what, differs in (
                    ("type", c.type != t.type),
                    ("table", c.table != t.table),
                    ("chips", not same_chips(c.chips, t.chips)),
                )
                if differs
            ]
            if not diffs:
                return None
            why = (
                f"both copies count but differ in {', '.join(diffs)}: cage {c.at.id} "
                f"{c.type} at {c.table} ({chips_text(c.chips)}), table {t.at.id} {t.type} at "
                f"{t.table} ({chips_text(t.chips)})"
            )
        elif cage:
            c = s.copies["cage"][0]
            voided = " (voided there)" if s.voided("table") else ""
            why = f"the cage's copy {c.at.id} counts, the table's{voided} does not"
        else:
            t = s.copies["table"][0]
            voided = " (voided there)" if s.voided("cage") else ""
            why = f"the table's copy {t.at.id} counts, the cage's{voided} does not"
        return self._finding(
            Code.ACCT_SLIP_UNMATCHED,
            key,
            f"{s.first.type} slip {s.key}: {why}; the cage's copy counts, so chips that "
            "went missing show in the session's tray",
            expected=_m(s.copies["cage"][0].chips.value) if cage else None,
            actual=_m(s.copies["table"][0].chips.value) if table else None,
            events=tuple(s.all_events()),
            item=str(s.key),
            source=s.first.at.source,
        )

    def _copy_signatures(self, c: SlipCopy, key: PeriodKey) -> Finding | None:
        need = self.house.slip_signers
        if _distinct(c.signers) >= need:
            return None
        return self._finding(
            Code.ACCT_SLIP_SIGNATURES,
            key,
            f"the {c.side}'s copy {c.at.id} of {c.type} slip {c.slip} has "
            f"{_distinct(c.signers)} distinct signers, {need} are due: {_signed(c.signers)}",
            expected=f"{need} signers",
            actual=_signed(c.signers),
            rule="slip_signers",
            events=(c.at.id,),
            item=c.at.id,
            source=c.at.source,
        )

    def _void(self, v: object, where: Lie, why: list[str]) -> Finding | None:
        from audit.books.model import SlipVoid

        assert isinstance(v, SlipVoid)
        defects = list(why)
        if not v.reason.strip():
            defects.append("it gives no reason (Ohio 3772-11-31(F))")
        if _distinct(v.signers) < self.house.slip_signers:
            defects.append(
                f"{_distinct(v.signers)} distinct signers, {self.house.slip_signers} due"
            )
        if not defects:
            return None
        rule = "slip_signers" if _distinct(v.signers) < self.house.slip_signers else None
        return self._finding(
            Code.ACCT_SLIP_VOID,
            where.period,
            f"the {v.side} side's void {v.at.id} of {v.of} slip {v.slip}: " + "; ".join(defects),
            actual=f"reason {v.reason!r}; signed by {_signed(v.signers)}",
            rule=rule,
            events=(v.at.id,),
            item=v.at.id,
            source=v.at.source,
        )

    # ---------------------------------------------------------------- trays and drops

    def trays(self) -> list[Finding]:
        """Each session's tray against its hands (``ACCT_WIN_MISMATCH``), once its
        closer and slips are judged; a session left without a closer is
        ``ACCT_NO_INVENTORY``; records outside every session, one per period."""
        out: list[Finding] = []
        tol = self.house.win_tolerance
        for table, tb in self.tables.items():
            for idx, s in enumerate(tb.sessions.sessions):
                key = tb.session_period[idx]
                if s.closer is None:
                    if self.left_without_closer(table, idx):
                        out.append(
                            self._finding(
                                Code.ACCT_NO_INVENTORY,
                                key,
                                f"the session opened by {s.opener.at.id} has no closer, and "
                                "never will: its tray cannot be checked",
                                events=(s.opener.at.id,),
                                item=s.opener.at.id,
                                source=s.opener.at.source,
                            )
                        )
                    else:
                        self.pending.add(key)
                    continue
                if (table, idx) in self.unjudged_sessions:
                    self.pending.add(key)
                    continue
                f = s.figures
                t, r = f.tray_win, f.hands_result
                if t is None or abs(t - r) <= tol:
                    continue
                direction = (
                    "chips left the tray with no record (a payout or hand the log lacks, "
                    "chips walking from the tray), a fill recorded that never arrived, a "
                    "credit not recorded, or a miscounted inventory"
                    if t < r
                    else "chips reached the tray with no record (a collection the log "
                    "lacks), a fill not recorded, a credit recorded that never left, or a "
                    "miscounted inventory"
                )
                out.append(
                    self._finding(
                        Code.ACCT_WIN_MISMATCH,
                        key,
                        f"the session {s.opener.at.id} to {s.closer.at.id}: tray win T = "
                        f"{money_str(t)} (closer {money_str(f.closer)} - opener "
                        f"{money_str(f.opener)} + credits {money_str(f.credits)} - fills "
                        f"{money_str(f.fills)} + buy-ins {money_str(f.buy_ins)}), hands' "
                        f"result R = {money_str(r)}: R - T = {money_str(r - t)}; {direction}"
                        + self._hands_named(table, s.opener.at.ts, s.closer.at.ts),
                        expected=_m(r),
                        actual=_m(t),
                        impact=r - t,
                        rule="win_tolerance",
                        events=(s.opener.at.id, s.closer.at.id),
                        item=s.opener.at.id,
                        source=s.closer.at.source,
                    )
                )
        for key, ids in self.outside.items():
            if not ids:
                continue
            out.append(
                self._finding(
                    Code.ACCT_NO_INVENTORY,
                    key,
                    f"{len(ids)} record(s) of the table lie outside every session (no "
                    f"opener before them, or after a closer): first {ids[0]}",
                    events=tuple(ids),
                    item=ids[0],
                )
            )
        return out

    def drops(self, strays: Sequence[DropCount]) -> list[Finding]:
        """Each period's drop against its buy-ins (``ACCT_DROP_MISMATCH``) once a count is
        stored; ``ACCT_NO_DROP_COUNT`` once a later day's count is; the counts that
        match no period."""
        out: list[Finding] = []
        tol = self.house.drop_tolerance
        later = self.horizon_last_count
        stray_of: dict[tuple[str, dt.date], list[DropCount]] = {}
        for c in strays:
            stray_of.setdefault((c.table, c.gaming_day), []).append(c)
        named: set[str] = set()
        for key, p in sorted(self.periods.items()):
            f = p.figures
            counts = self.period_counts.get(key, [])
            if not counts:
                if later is None or later <= key.gaming_day:
                    self.pending.add(key)
                    continue
                extra = stray_of.get((key.table, key.gaming_day), [])
                named.update(c.at.id for c in extra)
                also = (
                    "; a count of the table and day matches no period: "
                    + ", ".join(f"{c.at.id} (shift {c.shift!r})" for c in extra)
                    if extra
                    else ""
                )
                out.append(
                    self._finding(
                        Code.ACCT_NO_DROP_COUNT,
                        key,
                        f"no drop count is stored for the period, and a later gaming day's "
                        f"count is: its drop cannot be checked (buy-ins {money_str(f.buy_ins)})"
                        + also,
                        expected=_m(f.buy_ins),
                        events=tuple(c.at.id for c in extra),
                    )
                )
                continue
            kinds = [
                (name, b, d)
                for name, b, d in (
                    ("cash", f.buy_ins_cash, f.drop_cash or ZERO),
                    ("markers", f.buy_ins_markers, f.drop_markers or ZERO),
                    ("other", f.buy_ins_other, f.drop_other or ZERO),
                )
                if abs(d - b) > tol
            ]
            drop = f.drop or ZERO
            total_differs = abs(drop - f.buy_ins) > tol
            if not kinds and not total_differs:
                continue
            named_kinds = ", ".join(
                f"{n} counted {money_str(d)} for {money_str(b)} recorded" for n, b, d in kinds
            )
            out.append(
                self._finding(
                    Code.ACCT_DROP_MISMATCH,
                    key,
                    f"the drop D = {money_str(drop)} differs from the buy-ins recorded B = "
                    f"{money_str(f.buy_ins)} ({named_kinds or 'in total'}): "
                    + (
                        "cash or markers missing from the box, or a buy-in recorded that "
                        "never happened"
                        if drop < f.buy_ins
                        else "chips sold off the record"
                        if drop > f.buy_ins
                        else "the kinds differ, the total agrees"
                    ),
                    expected=_m(f.buy_ins),
                    actual=_m(drop),
                    impact=(f.buy_ins - drop) if total_differs else ZERO,
                    rule="drop_tolerance",
                    events=tuple(c.at.id for c in counts),
                    source=counts[0].at.source,
                )
            )
        for c in strays:
            if c.at.id in named:
                continue
            waiting = [
                k
                for k in self.periods
                if (k.table, k.gaming_day) == (c.table, c.gaming_day)
                and k not in self.period_counts
            ]
            if waiting:
                continue  # named in that period's ACCT_NO_DROP_COUNT once it is raised
            why = (
                f"shift {c.shift!r} is not one of the house file's"
                if c.shift is not None
                else "it names no shift, and the house has several"
            )
            out.append(
                Finding(
                    code=Code.ACCT_DROP_MISMATCH,
                    message=(
                        f"the count {c.at.id} ({money_str(c.total)}) matches no period ({why}): "
                        "it enters no figure"
                    ),
                    table=c.table,
                    expected="0",
                    actual=_m(c.total),
                    impact=-c.total,
                    rule="books",
                    events=(c.at.id,),
                    source=c.at.source,
                    gaming_day=c.gaming_day,
                    shift=c.shift,
                    key=c.at.id,
                )
            )
        return out

    # ---------------------------------------------------------------- adjustments

    def adjustments(self, adjustments: Sequence[Adjustment]) -> list[Finding]:
        """An adjustment over ``adjustment_report`` in absolute value (NJ 13:69D-1.34)."""
        out: list[Finding] = []
        limit = self.house.adjustment_report
        names = self.house.shift_names()
        for a in adjustments:
            if abs(a.amount) <= limit:
                continue
            shift = a.shift if a.shift is not None else (names[0] if len(names) == 1 else None)
            out.append(
                Finding(
                    code=Code.ACCT_ADJUSTMENT_REPORTABLE,
                    message=(
                        f"the adjustment {a.id} of {a.line} by {money_str(a.amount)} ({a.source}, "
                        f"by {a.by}: {a.reason}) exceeds {money_str(limit)}: listed in the "
                        "month's report (NJ 13:69D-1.34)"
                    ),
                    table=a.table,
                    expected=_m(limit),
                    actual=_m(a.amount),
                    rule="adjustment_report",
                    events=(a.id,),
                    source=a.at.source if a.at is not None else None,
                    gaming_day=a.gaming_day,
                    shift=shift,
                    key=a.id,
                )
            )
        return out

    # ---------------------------------------------------------------- status

    def statuses(self, findings: Sequence[Finding]) -> None:
        """``incomplete`` with an ``ACCT_NO_`` finding; else ``pending`` while a part
        waits; else ``reconciled``, whatever its findings show."""
        broken = {
            PeriodKey(f.table, f.gaming_day, f.shift)
            for f in findings
            if f.code in NO_CODES and f.table and f.gaming_day and f.shift
        }
        for key, p in self.periods.items():
            if key in broken:
                p.status = "incomplete"
            elif key in self.pending:
                p.status = "pending"
            else:
                p.status = "reconciled"

    # ---------------------------------------------------------------- making

    def _hands_named(self, table: str, opened: dt.datetime, closed: dt.datetime) -> str:
        """The session's ``PAY_``/``LOG_SEQ_GAP`` findings, named for its
        ``ACCT_WIN_MISMATCH`` message (empty when there are none): the hands' own
        findings say which wager; this one, for the money, points at them."""
        within = [h for h in self.hands_findings.get(table, ()) if opened <= h.ts <= closed]
        if not within:
            return ""
        named = [f"{h.code} on {h.place()} (finding {h.id})" for h in within[:_NAMED]]
        if len(within) > _NAMED:
            named.append(f"{len(within) - _NAMED} more")
        those = "that finding" if len(within) == 1 else "those findings"
        return f" (the hands carry {', '.join(named)}: see {those})"

    def _finding(
        self,
        code: Code,
        key: PeriodKey,
        message: str,
        *,
        expected: str | None = None,
        actual: str | None = None,
        impact: Decimal | None = None,
        rule: str | None = None,
        events: tuple[str, ...] = (),
        item: str | None = None,
        source: str | None = None,
    ) -> Finding:
        return Finding(
            code=code,
            message=message,
            table=key.table,
            expected=expected,
            actual=actual,
            impact=impact,
            rule=rule or "books",
            events=events,
            source=source,
            gaming_day=key.gaming_day,
            shift=key.shift,
            key=item,
        )
