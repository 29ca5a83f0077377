"""The compliance report: a span of gaming days, aggregated in DuckDB SQL.

:func:`build_report_context` runs a fixed set of aggregate queries over the
store (never a Python loop over events: a 100,000-round night renders in
seconds), and replays only the shoes that hold a critical finding, to write
their hand pages. :func:`render_report` writes the files.

Only :mod:`audit.reports.sources` knows the store's table and column names.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import re
from collections.abc import Callable, Sequence
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from audit.errors import NotFoundError
from audit.events.models import AnyEvent
from audit.findings import Code, Severity, money_str
from audit.profiles import ProfileRegistry, load_registry
from audit.reports.context import (
    CountRow,
    CriticalRow,
    DataQuality,
    FindingView,
    HandContext,
    HandPage,
    InputFileRow,
    MoneyRow,
    OpenShoeRow,
    ProfileView,
    QuarantineRow,
    RateRow,
    ReportContext,
    Reproducibility,
    RoundLink,
    ShoeIntegrityRow,
    Summary,
)
from audit.reports.sources import FINDINGS, ROUNDS, SHOES, Sources
from audit.reports.templating import render

if TYPE_CHECKING:
    from audit.engine import ShoeReplay
    from audit.store import Store

ReportFormat = Literal["html", "md"]

Replayer = Callable[[str, str], "tuple[ShoeReplay, Sequence[AnyEvent]]"]
"""Replays one stored shoe (table, shoe) and returns the replay and its events."""

INTEGRITY_CODES = (
    Code.SHOE_CARD_EXCESS,
    Code.SHOE_POSITION_GAP,
    Code.SHOE_ORDER_MISMATCH,
    Code.SHOE_RECONCILIATION,
)
SEVERITIES = (Severity.CRITICAL, Severity.MAJOR, Severity.MINOR, Severity.INFO)
QUARANTINE_SAMPLE = 50


def build_report_context(
    store: Store,
    gaming_days: Sequence[dt.date | str],
    *,
    replayer: Replayer | None = None,
    registry: ProfileRegistry | None = None,
    generated_at: str | None = None,
) -> ReportContext:
    """Aggregate the store's findings, shoes, rounds and inputs for ``gaming_days``.

    Every figure is computed in DuckDB SQL (:mod:`audit.reports.sources`).
    Rounds, findings and money are credited per dealer to the dealer in charge
    when the round opened (the latest ``shoe_open`` or ``dealer_change`` before
    its ``round_open``); a finding without a round goes to the shoe's opening
    dealer. With ``replayer(table, shoe) -> (ShoeReplay, events)`` (the batch
    runner's :func:`audit.batch.replay_stored_shoe`, so that pages match
    ``run`` exactly), the shoes holding a critical finding are replayed to
    build one hand page per such round (:attr:`ReportContext.hand_pages`);
    without it the report has no hand pages. ``registry`` is the profile
    registry (default: :func:`audit.profiles.load_registry`). ``generated_at``
    is printed in the report when given; leave it None (the default) for
    byte-identical output from the same input.
    """
    days = sorted({d if isinstance(d, dt.date) else dt.date.fromisoformat(d) for d in gaming_days})
    profiles = registry or load_registry()
    with Sources(store.con, days) as src:
        return _build(src, days, replayer, profiles, generated_at)


def _build(
    src: Sources,
    days: list[dt.date],
    replayer: Replayer | None,
    profiles: ProfileRegistry,
    generated_at: str | None,
) -> ReportContext:
    summary_row = src.one(
        f"""
        SELECT count(DISTINCT table_id), count(*), coalesce(sum(rounds), 0),
               coalesce(sum(wagers), 0), coalesce(sum(handle), 0),
               CASE WHEN count(DISTINCT currency) = 1 THEN min(currency) END
        FROM {SHOES}
        """
    )
    fsum = src.one(
        f"""
        SELECT count(*), count(*) FILTER (WHERE severity = 'critical'),
               coalesce(sum(impact) FILTER (WHERE impact > 0), 0),
               coalesce(-sum(impact) FILTER (WHERE impact < 0), 0),
               coalesce(sum(impact), 0)
        FROM {FINDINGS}
        """
    )
    summary = Summary(
        tables=summary_row[0],
        shoes=summary_row[1],
        rounds=int(summary_row[2]),
        wagers=int(summary_row[3]),
        handle=_money(summary_row[4]),
        currency=summary_row[5],
        findings=fsum[0],
        critical=fsum[1],
        overpaid=_money(fsum[2]),
        underpaid=_money(fsum[3]),
        net=_money(fsum[4]),
    )

    sev_counts = dict(src.all(f"SELECT severity, count(*) FROM {FINDINGS} GROUP BY 1"))
    sev_max = max(sev_counts.values(), default=0)
    by_severity = tuple(
        CountRow(
            str(s), str(s), sev_counts.get(str(s), 0), _pct(sev_counts.get(str(s), 0), sev_max)
        )
        for s in SEVERITIES
    )
    code_rows = src.all(
        f"SELECT code, count(*) AS n FROM {FINDINGS} GROUP BY 1 ORDER BY n DESC, code"
    )
    code_max = max((n for _, n in code_rows), default=0)
    by_code = tuple(CountRow(c, _severity_of(c), n, _pct(n, code_max)) for c, n in code_rows)

    crit = src.all(
        f"""
        SELECT f.code, f.severity, f.message, f.table_id, f.shoe, f.round, f.box, f.hand,
               f.spot, f.expected, f.actual, f.impact, f.rule, f.events, f.source,
               f.dealer, f.gaming_day, s.profile
        FROM {FINDINGS} f LEFT JOIN {SHOES} s USING (table_id, shoe)
        WHERE f.severity = 'critical'
        ORDER BY f.table_id NULLS FIRST, f.shoe NULLS FIRST, f.round NULLS FIRST,
                 f.box NULLS FIRST, f.hand NULLS FIRST, f.spot NULLS FIRST, f.code, f.message
        """
    )
    pages: tuple[HandPage, ...] = ()
    if replayer is not None:
        wanted = sorted({(r[3], r[4], r[5]) for r in crit if None not in (r[3], r[4], r[5])})
        pages = _hand_pages(wanted, replayer, profiles)
    written = {p.href for p in pages}
    critical = tuple(
        CriticalRow(
            finding=_finding_view(r[:15], profiles.get(r[17]) if r[17] in profiles else None),
            dealer=r[15],
            gaming_day=r[16].isoformat() if r[16] is not None else None,
            hand_href=href if (href := _href_or_none(r[3], r[4], r[5])) in written else None,
        )
        for r in crit
    )

    integ = src.all(
        f"""
        SELECT f.table_id, f.shoe, s.gaming_day, s.dealer,
               list(DISTINCT f.code ORDER BY f.code), count(*),
               list(f.message ORDER BY f.round NULLS FIRST, f.message)[1:5]
        FROM {FINDINGS} f JOIN {SHOES} s USING (table_id, shoe)
        WHERE list_contains($codes, f.code)
        GROUP BY ALL ORDER BY 1, 2
        """,
        codes=[str(c) for c in INTEGRITY_CODES],
    )
    shoe_integrity = tuple(
        ShoeIntegrityRow(
            table=r[0],
            shoe=r[1],
            gaming_day=r[2].isoformat(),
            dealer=r[3],
            codes=tuple(r[4]),
            findings=r[5],
            messages=tuple(r[6]),
        )
        for r in integ
    )

    log_counts = dict(
        src.all(f"SELECT code, count(*) FROM {FINDINGS} WHERE code LIKE 'LOG_%' GROUP BY 1")
    )
    qcount, qsample = src.quarantine(QUARANTINE_SAMPLE)
    data_quality = DataQuality(
        quarantined=qcount,
        quarantine_sample=tuple(QuarantineRow(source=s, reason=r) for s, r in qsample),
        malformed=log_counts.get(Code.LOG_MALFORMED, 0),
        seq_gaps=log_counts.get(Code.LOG_SEQ_GAP, 0),
        id_conflicts=log_counts.get(Code.LOG_ID_CONFLICT, 0),
        unknown_profiles=log_counts.get(Code.LOG_UNKNOWN_PROFILE, 0),
        unknown_types=log_counts.get(Code.LOG_UNKNOWN_TYPE, 0),
        incomplete=log_counts.get(Code.LOG_INCOMPLETE, 0),
    )

    open_shoes = tuple(
        OpenShoeRow(
            table=r[0],
            shoe=r[1],
            profile=r[2],
            dealer=r[3],
            gaming_day=r[4].isoformat(),
            rounds=int(r[5]),
            last_ts=r[6],
        )
        for r in src.all(
            f"""
            SELECT table_id, shoe, profile, dealer, gaming_day, rounds, last_ts
            FROM {SHOES} WHERE NOT closed ORDER BY table_id, shoe
            """
        )
    )

    used_profiles = [p for (p,) in src.all(f"SELECT DISTINCT profile FROM {SHOES} ORDER BY 1") if p]
    reproducibility = Reproducibility(
        input_files=tuple(InputFileRow(*r) for r in src.input_files()),
        profiles=tuple(
            ProfileView(p.id, p.title, p.seed, p.digest)
            for p in (profiles.get(pid) for pid in used_profiles if pid in profiles)
        ),
        engine_versions=tuple(src.engine_versions()),
    )

    label = days[0].isoformat() if len(days) == 1 else f"{days[0]} to {days[-1]}" if days else "-"
    return ReportContext(
        title=f"Compliance report, gaming day{'s' if len(days) > 1 else ''} {label}",
        gaming_days=tuple(d.isoformat() for d in days),
        summary=summary,
        by_severity=by_severity,
        by_code=by_code,
        money_by_table=_money_rows(src, "table_id"),
        money_by_dealer=_money_rows(src, "dealer"),
        rates_by_table=_rate_rows(src, "table_id"),
        rates_by_dealer=_rate_rows(src, "dealer"),
        critical=critical,
        shoe_integrity=shoe_integrity,
        data_quality=data_quality,
        open_shoes=open_shoes,
        reproducibility=reproducibility,
        hand_pages=pages,
        generated_at=generated_at,
    )


def render_report(
    ctx: ReportContext,
    out_dir: Path,
    fmt: ReportFormat = "html",
    templates_dir: Path | None = None,
) -> Path:
    """Write ``out_dir/index.html`` (or ``out_dir/report.md``) and return its path.

    Beside it, every hand page of ``ctx.hand_pages`` is written as HTML at the
    link the report gives it (``hands/<table>/<shoe>/r<round>.html``, names made
    safe). Nothing outside ``out_dir`` is written; files are written as UTF-8
    with ``\\n`` line ends, so the same context gives byte-identical files.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    for page in ctx.hand_pages:
        target = out_dir / page.href
        target.parent.mkdir(parents=True, exist_ok=True)
        _write(
            target, render("hand/hand.html.j2", "html", page.context, templates_dir=templates_dir)
        )
    if fmt == "html":
        path = out_dir / "index.html"
        _write(path, render("compliance/index.html.j2", "html", ctx, templates_dir=templates_dir))
    elif fmt == "md":
        path = out_dir / "report.md"
        _write(path, render("compliance/report.md.j2", "md", ctx, templates_dir=templates_dir))
    else:
        raise ValueError(f"unknown report format {fmt!r}: expected 'html' or 'md'")
    return path


# --------------------------------------------------------------------------- hand pages

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def safe_name(value: str) -> str:
    """A file name made from an id: ``[A-Za-z0-9._-]`` only, unique per id.

    An id that needed changing (or is empty, or starts with a dot) gets a short
    hash of the original, so two different ids never share a file.
    """
    clean = _UNSAFE.sub("_", value)[:80]
    if clean != value or not clean or clean.startswith("."):
        digest = hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:10]
        clean = f"{clean.lstrip('.')}_{digest}"
    return clean


def hand_href(table: str, shoe: str, round_no: int) -> str:
    """The relative link (and path under the report folder) of a round's hand page."""
    return f"hands/{safe_name(table)}/{safe_name(shoe)}/r{int(round_no)}.html"


def _href_or_none(table: str | None, shoe: str | None, round_no: int | None) -> str | None:
    if table is None or shoe is None or round_no is None:
        return None
    return hand_href(table, shoe, round_no)


def _hand_pages(
    wanted: list[tuple[str, str, int]], replayer: Replayer, registry: ProfileRegistry
) -> tuple[HandPage, ...]:
    """One hand page per wanted round, each shoe replayed once; rounds the replay lacks
    (or shoes under a profile the registry does not have) get no page."""
    from audit.reports.hand import build_hand_context

    by_shoe: dict[tuple[str, str], list[int]] = {}
    for table, shoe, rnd in wanted:
        by_shoe.setdefault((table, shoe), []).append(rnd)
    contexts: list[HandContext] = []
    for (table, shoe), rounds in sorted(by_shoe.items()):
        replay, events = replayer(table, shoe)
        if replay.profile_id is None or replay.profile_id not in registry:
            continue
        profile = registry.get(replay.profile_id)
        for rnd in sorted(set(rounds)):
            try:
                contexts.append(build_hand_context(replay, rnd, profile, events=events))
            except NotFoundError:
                continue
    hrefs = {(c.table, c.shoe, c.round): hand_href(c.table, c.shoe, c.round) for c in contexts}

    def link(c: HandContext, rl: RoundLink | None) -> RoundLink | None:
        if rl is None:
            return None
        sibling = hrefs.get((c.table, c.shoe, rl.round))
        return dataclasses.replace(rl, href=f"r{rl.round}.html" if sibling else None)

    return tuple(
        HandPage(
            href=hrefs[(c.table, c.shoe, c.round)],
            context=dataclasses.replace(
                c, previous_round=link(c, c.previous_round), next_round=link(c, c.next_round)
            ),
        )
        for c in contexts
    )


# --------------------------------------------------------------------------- helpers


def _write(path: Path, text: str) -> None:
    with path.open("w", encoding="utf-8", newline="\n") as fh:
        fh.write(text)


def _money(v: Any) -> str:
    return money_str(Decimal(v) if v is not None else Decimal(0)) or "0"


def _pct(n: float, largest: float) -> float:
    return round(100.0 * n / largest, 1) if largest else 0.0


def _severity_of(code: str) -> str:
    try:
        return str(Code(code).severity)
    except ValueError:
        return str(Severity.INFO)


def _per_1000(n: int, rounds: int) -> str:
    if not rounds:
        return "-"
    return f"{Decimal(n) * 1000 / Decimal(rounds):.1f}"


_KEYS = {
    "table_id": f"SELECT table_id AS key FROM {SHOES}",
    "dealer": f"SELECT dealer AS key FROM {SHOES} UNION SELECT dealer FROM {ROUNDS}",
}
"""Every table, or every dealer (opening a shoe or taking over one), of the period."""


def _money_rows(src: Sources, key: str) -> tuple[MoneyRow, ...]:
    rows = src.all(
        f"""
        WITH k AS ({_KEYS[key]}),
             m AS (
               SELECT f.{key} AS key,
                      sum(f.impact) FILTER (WHERE f.impact > 0) AS over,
                      -sum(f.impact) FILTER (WHERE f.impact < 0) AS under,
                      sum(f.impact) AS net,
                      count(f.impact) AS n
               FROM {FINDINGS} f SEMI JOIN {SHOES} s USING (table_id, shoe)
               GROUP BY 1)
        SELECT DISTINCT k.key, coalesce(m.over, 0), coalesce(m.under, 0), coalesce(m.net, 0),
               coalesce(m.n, 0)
        FROM k LEFT JOIN m ON k.key IS NOT DISTINCT FROM m.key
        ORDER BY k.key NULLS LAST
        """
    )
    return tuple(
        MoneyRow(
            key=r[0] if r[0] is not None else "?",
            overpaid=_money(r[1]),
            underpaid=_money(r[2]),
            net=_money(r[3]),
            findings=r[4],
        )
        for r in rows
    )


def _rate_rows(src: Sources, key: str) -> tuple[RateRow, ...]:
    rows = src.all(
        f"""
        WITH k AS ({_KEYS[key]}),
             r AS (SELECT {key} AS key, count(*) AS rounds FROM {ROUNDS} GROUP BY 1),
             f AS (
               SELECT f.{key} AS key, count(*) AS n,
                      count(*) FILTER (WHERE f.severity = 'critical') AS c
               FROM {FINDINGS} f SEMI JOIN {SHOES} s USING (table_id, shoe)
               WHERE f.round IS NOT NULL GROUP BY 1)
        SELECT DISTINCT k.key, coalesce(r.rounds, 0), coalesce(f.n, 0), coalesce(f.c, 0)
        FROM k LEFT JOIN r ON k.key IS NOT DISTINCT FROM r.key
               LEFT JOIN f ON k.key IS NOT DISTINCT FROM f.key
        ORDER BY k.key NULLS LAST
        """
    )
    rates = [(r[0] if r[0] is not None else "?", int(r[1]), int(r[2]), int(r[3])) for r in rows]
    largest = max((n * 1000 / rounds for _, rounds, n, _ in rates if rounds), default=0.0)
    return tuple(
        RateRow(
            key=k,
            rounds=rounds,
            findings=n,
            critical=c,
            per_1000=_per_1000(n, rounds),
            critical_per_1000=_per_1000(c, rounds),
            pct=_pct(n * 1000 / rounds, largest) if rounds else 0.0,
        )
        for k, rounds, n, c in rates
    )


def _finding_view(r: Sequence[Any], profile: Any) -> FindingView:
    rule = r[12]
    src = profile.sources.get(rule) if (profile is not None and rule) else None
    return FindingView(
        code=r[0],
        severity=r[1],
        message=r[2],
        table=r[3],
        shoe=r[4],
        round=r[5],
        box=r[6],
        hand=r[7],
        spot=r[8],
        expected=r[9],
        actual=r[10],
        impact=money_str(r[11]) if r[11] is not None else None,
        rule=rule,
        rule_source=src.source if src is not None else None,
        rule_house_default=src.house_default if src is not None else False,
        events=tuple(r[13] or ()),
        source=r[14],
    )
