"""The books in ``serve`` (accounting.md "Command line": ``serve`` shows the MGR and lets a
manager adjust): the Master Game Report of a gaming day by pit, each period's page, and
the manager's adjustment form.

The pages render the report's own objects (:mod:`audit.reports.books`) with web links. An
adjustment is written only to the review trail, by :func:`audit.review.adjustments.record`
(the function ``adjust`` calls), never to DuckDB: the database is only read, to check
that the period exists. Only a signed-in ``manager`` account may record one (403 for any
other, with the reason); the form carries the session's CSRF token, as the review form.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from audit.errors import AuditError, InputError, NotFoundError
from audit.store import Store
from audit.web.data import Busy
from audit.web.urls import hand_url, segments

if TYPE_CHECKING:
    from audit.web.app import App
    from audit.web.session import Session

MANAGER_ONLY = "adjustments are recorded by a manager account only"


def books_url(day: dt.date | str) -> str:
    """The Master Game Report of a gaming day in ``serve``."""
    return f"/books/{day}"


def period_url(table: str, day: dt.date | str, shift: str) -> str:
    """A period's page in ``serve``."""
    return f"/books/{day}/{quote(table, safe='')}/{quote(shift, safe='')}"


def _house(state: App) -> Any:
    from audit.books.house import load_house

    return load_house(None, state.config.profiles)


def _section(state: App, store: Store, day: dt.date) -> Any:
    from audit.batch.books import report_books
    from audit.review.adjustments import trail_adjustments

    adjustments = trail_adjustments(state.trail) if state.trail.exists else []
    section = report_books(
        store,
        _house(state),
        [day],
        adjustments=adjustments,
        reviews={fid: str(r.state) for fid, r in state.reviews().items()},
        hand_link=hand_url,
        link=period_url,
        every=True,
    )
    if section is None:
        raise NotFoundError(f"no table kept books on gaming day {day}")
    return section


def _latest_books_day(store: Store) -> dt.date:
    from audit.store.periods import latest_books_day

    day = latest_books_day(store.con)
    if day is None:
        raise NotFoundError(
            "no table keeps books in this database (`shoe-audit run` reconciles them)"
        )
    return day


def books_routes(state: App) -> list[Route]:
    """The routes of the books: ``/books``, ``/books/DAY``, ``/books/DAY/TABLE/SHIFT`` and
    its ``/adjust`` (POST)."""

    def latest(request: Request) -> Response:
        session, new = state.session(request)
        if (resp := state.gate(request, session, new)) is not None:
            return resp
        try:
            got = state.reader.read(("books-latest",), _latest_books_day)
        except Busy as exc:
            return state.busy(request, session, exc, new)
        except AuditError as exc:
            return state.error(request, session, 404, str(exc), new)
        return RedirectResponse(books_url(got.data), status_code=303)

    def books(request: Request) -> Response:
        segs = segments(request.scope.get("raw_path") or b"", "/books/")
        if not segs or segs == [""]:
            return latest(request)
        try:
            day = dt.date.fromisoformat(segs[0])
        except ValueError:
            session, new = state.session(request)
            return state.error(request, session, 404, f"no gaming day {segs[0]!r}", new)
        stamp = _stamp(state)
        if len(segs) == 1:
            return state.page(
                request,
                "books",
                "web/books.html.j2",
                (day, stamp),
                lambda store, session: _section(state, store, day),
                extra=lambda data: {"day": day.isoformat()},
            )
        if len(segs) != 3:
            session, new = state.session(request)
            return state.error(request, session, 404, "no such page", new)
        table, shift = segs[1], segs[2]

        def load(store: Store, session: Session) -> Any:
            section = _section(state, store, day)
            for p in section.pages:
                if (p.table, p.shift) == (table, shift):
                    return p
            raise NotFoundError(f"no books for {table} gaming day {day} shift {shift}")

        return state.page(
            request,
            "books",
            "compliance/period.html.j2",
            (day, table, shift, stamp),
            load,
            extra=lambda data: {"adjust_url": period_url(table, day, shift) + "/adjust"},
            ctx_of=lambda data: _for_web(data, day),
        )

    async def adjust(request: Request) -> Response:
        session, new = state.session(request)
        if (resp := state.gate(request, session, new)) is not None:
            return resp
        segs = segments(request.scope.get("raw_path") or b"", "/books/")
        if not segs or len(segs) != 4 or segs[3] != "adjust":
            return state.error(request, session, 404, "no such page", new)
        try:
            day = dt.date.fromisoformat(segs[0])
        except ValueError:
            return state.error(request, session, 404, f"no gaming day {segs[0]!r}", new)
        table, shift = segs[1], segs[2]
        from audit.web.app import _form

        try:
            form = await _form(request)
        except InputError as exc:
            return state.error(request, session, 400, str(exc), new)
        if not state.signer.csrf_ok(session, form.get("csrf")):
            return state.error(request, session, 403, "the form expired: reload the page", new)
        if not session.signed_in or session.user is None:
            return state.error(request, session, 403, f"sign in: {MANAGER_ONLY}", new)
        if session.role != "manager":
            return state.error(
                request,
                session,
                403,
                f"{session.user} is a {session.role}: {MANAGER_ONLY}",
                new,
            )
        try:
            new_adj = _request(form, table, day, shift, state.trail)
        except NotFoundError as exc:
            return state.error(request, session, 404, str(exc), new)
        except InputError as exc:
            return state.error(request, session, 400, str(exc), new)
        account = session.user

        def record() -> str:
            from audit.review import os_user
            from audit.review.adjustments import record
            from audit.store.periods import has_period

            got = state.reader.read(
                ("has-period", table, day, shift, _stamp(state)),
                lambda store: has_period(store.con, table, day, shift),
            )
            if not got.data:
                raise NotFoundError(f"no books for {table} gaming day {day} shift {shift}")
            return record(state.trail, new_adj, account=account, user=os_user(), via="web").id

        try:
            made = await run_in_threadpool(record)
        except NotFoundError as exc:
            return state.error(request, session, 404, str(exc), new)
        except InputError as exc:
            return state.error(request, session, 400, str(exc), new)
        except Busy as exc:
            return state.busy(request, session, exc, new)
        except AuditError as exc:
            return state.error(request, session, 403, str(exc), new)
        resp = RedirectResponse(
            period_url(table, day, shift) + f"?adjusted={quote(made)}", status_code=303
        )
        if new:
            state.set_cookie(resp, session)
        return resp

    return [
        Route("/books", latest),
        Route("/books/{rest:path}", adjust, methods=["POST"]),
        Route("/books/{rest:path}", books, methods=["GET", "HEAD"]),
    ]


def _request(form: dict[str, str], table: str, day: dt.date, shift: str, trail: Any) -> Any:
    """The form's adjustment, checked as ``adjust`` checks its options: a line and a signed
    amount, or ``reverses`` (that adjustment's line and minus its amount, of this period)."""
    from audit.books.model import ADJUSTMENT_LINES
    from audit.review.adjustments import NewAdjustment, check_amount, find

    reverses = form.get("reverses", "").strip() or None
    reason = form.get("reason", "").strip()
    if not reason:
        raise InputError("say why: an adjustment needs its reason")
    if reverses is not None:
        old = find(trail, reverses)
        if (old.table_id, old.gaming_day, old.shift) != (table, day.isoformat(), shift):
            raise InputError(f"adjustment {old.id} is of another period")
        line, amount = old.line, -Decimal(old.amount)
    else:
        line = form.get("line", "").strip()
        text = form.get("amount", "").strip()
        if line not in ADJUSTMENT_LINES:
            raise InputError(f"unknown line {line!r}; the lines are {', '.join(ADJUSTMENT_LINES)}")
        try:
            amount = Decimal(text)
        except InvalidOperation:
            raise InputError(
                f"the amount is a signed amount such as -25.50, got {text!r}"
            ) from None
    check_amount(amount)
    return NewAdjustment(
        table=table,
        gaming_day=day,
        shift=shift,
        line=line,
        amount=amount,
        reason=reason,
        ref=form.get("ref", "").strip() or None,
        reverses=reverses,
    )


def _for_web(page: Any, day: dt.date) -> Any:
    import dataclasses

    return dataclasses.replace(page, report_href=books_url(day), hand_prefix="")


def _stamp(state: App) -> int:
    """Changes when the trail's adjustments or reviews do (a page cached before is stale)."""
    from audit.review.adjustments import stored

    if not state.trail.exists:
        return 0
    return len(stored(state.trail)) * 1_000_003 + len(state.trail_by_finding())
