"""The investigator web app (issue 12): a Starlette application over the audit database.

:func:`create_app` builds it; :mod:`audit.web.server` runs it under uvicorn.
Pages are rendered by the same Jinja environment as the static report (HTML
autoescaped, :mod:`audit.reports.templating`), from templates in
``reports/web/`` and the report's own ``compliance/`` and ``hand/`` templates.

Security (issue 12, point 4):

- sessions are signed cookies (:mod:`audit.web.session`), ``HttpOnly`` and
  ``SameSite=Strict``; every POST carries a CSRF token bound to the session;
  signing out revokes the session for good (:mod:`audit.review.revoked`);
- failed sign-ins back off per account and per client address
  (:mod:`audit.web.throttle`): 429 with ``Retry-After``;
- bad input in a URL or a form is a 4xx page, never a 500;
- reviewing needs signing in to an account (issue 29: without accounts the app
  records no review); with ``require_login`` (any address but loopback) every
  page needs signing in;
- full player ids only for a signed-in reviewer (masked otherwise);
- on loopback, a request naming another host is refused (DNS rebinding);
- no route reads a file: pages come from the database and the templates only,
  and a strict Content-Security-Policy allows no other origin.
"""

from __future__ import annotations

import datetime as dt
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from audit.batch.statistics import report_statistics
from audit.errors import AuditError, InputError, NotFoundError
from audit.findings import Finding
from audit.profiles import ProfileRegistry, load_registry
from audit.reports.report import NothingAuditedError
from audit.reports.templating import render
from audit.review import ReviewTrail, Verdict, os_user, review_of, reviews_of
from audit.review.accounts import accounts, check_password
from audit.review.revoked import is_revoked, revoke
from audit.review.service import review_finding
from audit.store import Store
from audit.store.browse import filter_choices
from audit.web import finder, pages
from audit.web.books import books_routes
from audit.web.data import RETRY_AFTER_S, Busy, Read, Reader
from audit.web.session import COOKIE, MAX_AGE_S, Session, Signer, new_session
from audit.web.throttle import SignInThrottle
from audit.web.urls import finding_url, report_url, safe_next, segments

T = TypeVar("T")
LOOPBACK = {"127.0.0.1", "localhost", "::1"}
MAX_FORM_BYTES = 64 * 1024


@dataclass(frozen=True, slots=True)
class ServeConfig:
    """How ``serve`` runs."""

    db: Path
    host: str = "127.0.0.1"
    port: int = 8750
    profiles: Path | None = None
    templates: Path | None = None
    retry_s: float = 1.5

    @property
    def loopback(self) -> bool:
        return self.host in LOOPBACK


@dataclass(frozen=True, slots=True)
class WebView:
    """What every web page knows of the request (the templates' ``web``)."""

    user: str | None
    role: str | None
    csrf: str
    accounts: bool
    """Reviewer accounts exist (reviewing always needs signing in to one)."""
    banner: str | None
    """"audit in progress, data as of HH:MM" when the page shows older data."""
    nonce: str
    """The CSP nonce of the page's own script."""
    path: str
    page: str
    """Which page (``findings``, ``finding``, ``shoe``, ``hand``, ``report``, ``reviews``)."""
    flash: str | None = None
    """What the reviewer's decision just recorded (``recorded: dismiss by ana; now
    dismissal pending``), on the page the review form redirected to (issue 30, point 3)."""

    @property
    def can_review(self) -> bool:
        """Only a signed-in account reviews: a typed name is no pair of eyes (issue 29)."""
        return self.user is not None


class App:
    """The state behind the routes: the config, the reader, the trail and the signer."""

    def __init__(self, config: ServeConfig, registry: ProfileRegistry | None = None) -> None:
        self.config = config
        self.registry = registry or load_registry(config.profiles)
        self.reader = Reader(config.db, retry_s=config.retry_s)
        self.trail = ReviewTrail.beside(config.db)
        self.signer = Signer(self.trail.setting_or_create("session_secret", _secret))
        self.throttle = SignInThrottle()

    # ------------------------------------------------------------------ plumbing

    def session(self, request: Request) -> tuple[Session, bool]:
        """The request's session, or a new anonymous one (True: set the cookie); a session
        signed out (revoked) is treated as none."""
        got = self.signer.load(request.cookies.get(COOKIE))
        if got is not None and got.signed_in and is_revoked(self.trail, got.nonce):
            got = None
        return (got, False) if got is not None else (new_session(), True)

    def has_accounts(self) -> bool:
        return bool(accounts(self.trail))

    def view(self, request: Request, session: Session, page: str, banner: str | None) -> WebView:
        return WebView(
            user=session.user,
            role=session.role,
            csrf=self.signer.csrf(session),
            accounts=self.has_accounts(),
            banner=banner,
            nonce=secrets.token_urlsafe(12),
            path=request.url.path + (f"?{request.url.query}" if request.url.query else ""),
            page=page,
            flash=self.flash(request, session),
        )

    def flash(self, request: Request, session: Session) -> str | None:
        """What ``?recorded=FINDING`` (the redirect after a review) recorded, read back from
        the trail: the latest decision on that finding, when it is the signed-in account's.
        Nothing is taken from the URL but the id, so no link can make a page claim a
        decision that was not recorded."""
        fid = (parse_qs(request.url.query).get(RECORDED) or [""])[-1]
        if not fid or session.user is None or not self.trail.exists:
            return None
        history = self.trail.history(fid[:64])
        if not history or history[-1].account != session.user:
            return None
        last = history[-1]
        state = review_of(history).state.label
        return f"recorded: {last.verdict.value.replace('_', ' ')} by {last.by}; now {state}"

    def html(
        self,
        request: Request,
        session: Session,
        template: str,
        ctx: object,
        *,
        page: str,
        banner: str | None = None,
        status: int = 200,
        extra: Mapping[str, Any] | None = None,
        new_cookie: bool = False,
    ) -> Response:
        web = self.view(request, session, page, banner)
        text = render(
            template,
            "html",
            ctx,
            templates_dir=self.config.templates,
            extra={"web": web, **(extra or {})},
        )
        resp = HTMLResponse(text, status_code=status)
        _headers(resp, web.nonce)
        if new_cookie:
            self.set_cookie(resp, session)
        return resp

    def set_cookie(self, resp: Response, session: Session) -> None:
        resp.set_cookie(
            COOKIE,
            self.signer.dump(session),
            max_age=MAX_AGE_S,
            httponly=True,
            samesite="strict",
            path="/",
        )

    def error(
        self, request: Request, session: Session, status: int, message: str, new: bool = False
    ) -> Response:
        return self.html(
            request,
            session,
            "web/error.html.j2",
            {"status": status, "message": message},
            page="error",
            status=status,
            new_cookie=new,
        )

    def busy(self, request: Request, session: Session, exc: Busy, new: bool = False) -> Response:
        """503 "audit in progress" with ``Retry-After``: a writer holds the database and this
        page was never read before (issue 29, point 8)."""
        writer = exc.writer
        resp = self.html(
            request,
            session,
            "web/busy.html.j2",
            {
                "since": _local_hhmm(exc.since),
                "writer": writer.command if writer is not None else None,
                "started": _local_hhmm(writer.since) if writer is not None else None,
                "retry_after": RETRY_AFTER_S,
            },
            page="busy",
            status=503,
            new_cookie=new,
        )
        resp.headers["Retry-After"] = str(RETRY_AFTER_S)
        return resp

    def page(
        self,
        request: Request,
        kind: str,
        template: str,
        key: tuple[Any, ...],
        load: Callable[[Store, Session], T],
        extra: Callable[[T], Mapping[str, Any]] | None = None,
        ctx_of: Callable[[T], object] | None = None,
    ) -> Response:
        """Read (or, while the database is busy, reuse) a page's data, and render it."""
        session, new = self.session(request)
        if (resp := self.gate(request, session, new)) is not None:
            return resp
        try:
            got: Read[T] = self.reader.read(
                (kind, *key, session.signed_in),
                lambda store: _players_masked(load(store, session), store, session),
            )
        except Busy as exc:
            return self.busy(request, session, exc, new)
        except (NotFoundError, NothingAuditedError) as exc:  # a day with no audit: no page
            return self.error(request, session, 404, str(exc), new)
        except InputError as exc:
            return self.error(request, session, 400, str(exc), new)
        except AuditError as exc:
            return self.error(request, session, 500, str(exc), new)
        return self.html(
            request,
            session,
            template,
            ctx_of(got.data) if ctx_of else got.data,
            page=kind,
            banner=got.banner,
            extra=extra(got.data) if extra else None,
            new_cookie=new,
        )

    def gate(self, request: Request, session: Session, new: bool) -> Response | None:
        """Refuse a foreign Host on loopback; ask for signing in where every page needs it."""
        host = (request.headers.get("host") or "").rsplit(":", 1)[0].strip("[]")
        if self.config.loopback and host not in LOOPBACK:
            return self.error(request, session, 400, f"unexpected Host {host!r}", new)
        if not self.config.loopback and not session.signed_in:
            nxt = request.url.path + (f"?{request.url.query}" if request.url.query else "")
            resp = RedirectResponse(f"/login?next={_q(nxt)}", status_code=303)
            if new:
                self.set_cookie(resp, session)
            return resp
        return None

    def trail_by_finding(self) -> dict[str, list[Any]]:
        return self.trail.by_finding() if self.trail.exists else {}

    def reviews(self) -> dict[str, Any]:
        return reviews_of(self.trail_by_finding())


RECORDED = "recorded"
"""The query parameter the redirect after a review names its finding with (the flash)."""


def _players_masked(data: T, store: Store, session: Session) -> T:
    """A page's data with the home-game bankers' ids masked where they stand as dealers
    (a dealer column, a per-dealer table), unless signed in (issue 30, point 8); the
    loaders mask the ids of the players who bet."""
    if session.signed_in:
        return data
    from audit.reports.masking import hide_ids
    from audit.store.lookup import player_dealers

    return hide_ids(data, player_dealers(store.con))


def _local_hhmm(at: dt.datetime | None) -> str | None:
    """``HH:MM`` in the server's zone, as the "data as of" banner shows times."""
    return at.astimezone().strftime("%H:%M") if at is not None else None


def _secret() -> str:
    return secrets.token_hex(32)


def _q(value: str) -> str:
    from urllib.parse import quote

    return quote(value, safe="")


def _headers(resp: Response, nonce: str) -> None:
    resp.headers["Content-Security-Policy"] = (
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
        f"script-src 'nonce-{nonce}'; form-action 'self'; frame-ancestors 'none'; "
        "base-uri 'none'"
    )
    resp.headers["X-Content-Type-Options"] = "nosniff"
    resp.headers["Referrer-Policy"] = "same-origin"
    resp.headers["Cache-Control"] = "no-store"


async def _form(request: Request) -> dict[str, str]:
    """A urlencoded form body (the only kind the app's forms send), size-capped."""
    body = await request.body()
    if len(body) > MAX_FORM_BYTES:
        raise InputError("form too large")
    parsed = parse_qs(body.decode("utf-8", errors="replace"), keep_blank_values=True)
    return {k: v[-1] for k, v in parsed.items()}


def create_app(config: ServeConfig, registry: ProfileRegistry | None = None) -> Starlette:
    """The web app over ``config.db`` (which must exist: cli.md, serve never creates one)."""
    state = App(config, registry)

    def findings(request: Request) -> Response:
        try:
            query = pages.ListQuery.parse(parse_qs(request.url.query, keep_blank_values=True))
        except InputError as exc:
            session, new = state.session(request)
            return state.error(request, session, 400, str(exc), new)
        reviews = state.reviews()

        def load(store: Store, session: Session) -> pages.FindingsList:
            choices = state.reader.memo("choices", store, filter_choices)
            got = pages.load_findings_list(store, query, reviews, choices)
            state.reader.remember(r.finding for r in got.rows)
            return got

        return state.page(request, "findings", "web/findings.html.j2", (str(query),), load)

    def finding(request: Request) -> Response:
        segs = segments(request.scope.get("raw_path") or b"", "/findings/")
        if not segs or len(segs) != 1:
            session, new = state.session(request)
            return state.error(request, session, 404, "no such page", new)
        fid = segs[0]
        history = state.trail.history(fid) if state.trail.exists else []

        def load(store: Store, session: Session) -> pages.FindingPage:
            got = pages.load_finding(store, fid, history)
            if got.finding is not None:
                state.reader.remember([got.finding])
            return got

        return state.page(request, "finding", "web/finding.html.j2", (fid, len(history)), load)

    def rounds(request: Request) -> Response:
        query = parse_qs(request.url.query, keep_blank_values=True)

        def load(store: Store, session: Session) -> finder.RoundsPage:
            return finder.search(store, query, session.signed_in)

        return state.page(request, "rounds", "web/rounds.html.j2", (request.url.query,), load)

    def tables(request: Request) -> Response:
        segs = segments(request.scope.get("raw_path") or b"", "/tables/")
        if segs is None or len(segs) > 1:
            session, new = state.session(request)
            return state.error(request, session, 404, "no such page: /tables/TABLE", new)
        if not segs or segs == [""]:
            return state.page(
                request, "tables", "web/tables.html.j2", (), lambda s, _: finder.tables_page(s)
            )
        name = segs[0]

        def load(store: Store, session: Session) -> finder.RoundsPage:
            return finder.table_page(store, name, session.signed_in)

        return state.page(request, "tables", "web/rounds.html.j2", (name,), load)

    def shoe(request: Request) -> Response:
        segs = segments(request.scope.get("raw_path") or b"", "/shoes/")
        if segs is not None and (not segs or segs == [""]):
            return state.page(
                request, "shoes", "web/rounds.html.j2", (), lambda s, _: finder.shoes_page(s)
            )
        if not segs or len(segs) != 2:
            session, new = state.session(request)
            return state.error(request, session, 404, "no such page: /shoes/TABLE/SHOE", new)
        table, shoe_id = segs
        reviews = state.reviews()

        def load(store: Store, session: Session) -> pages.ShoePage:
            got = pages.load_shoe(store, table, shoe_id, reviews)
            state.reader.remember(got.timeline.findings)
            return got

        return state.page(request, "shoe", "web/shoe.html.j2", (table, shoe_id), load)

    def hand(request: Request) -> Response:
        segs = segments(request.scope.get("raw_path") or b"", "/hands/")
        if not segs or len(segs) != 3 or not segs[2].isdigit():
            session, new = state.session(request)
            return state.error(request, session, 404, "no such page: /hands/TABLE/SHOE/ROUND", new)
        table, shoe_id, rnd = segs[0], segs[1], int(segs[2])
        trail = state.trail_by_finding()

        def load(store: Store, session: Session) -> pages.HandPage:
            got = pages.load_hand(
                store,
                state.registry,
                table,
                shoe_id,
                rnd,
                show_players=session.signed_in,
                trail=trail,
                contexts=state.reader.memo(
                    f"contexts:{table}", store, lambda s: pages.table_contexts(s, table)
                ),
            )
            state.reader.remember(h.finding for h in got.findings)
            return got

        return state.page(
            request,
            "hand",
            "hand/hand.html.j2",
            (table, shoe_id, rnd, _stamp(trail)),
            lambda store, session: load(store, session),
            extra=lambda data: {"hand_page": data},
            ctx_of=lambda data: data.context,
        )

    def report(request: Request) -> Response:
        segs = segments(request.scope.get("raw_path") or b"", "/reports/")
        if not segs or segs == [""]:
            return _latest(request)
        try:
            day = dt.date.fromisoformat(segs[0])
        except ValueError:
            session, new = state.session(request)
            return state.error(request, session, 404, f"no gaming day {segs[0]!r}", new)
        reviews = state.reviews()
        if len(segs) == 2 and segs[1] == "flagged":
            return state.page(
                request,
                "report",
                "compliance/flagged.html.j2",
                (day, "flagged", _stamp(reviews)),
                lambda store, session: pages.load_flagged(store, state.registry, day, reviews),
            )
        if len(segs) != 1:
            session, new = state.session(request)
            return state.error(request, session, 404, "no such page", new)
        return state.page(
            request,
            "report",
            "compliance/index.html.j2",
            (day, _stamp(reviews)),
            lambda store, session: pages.load_report(
                store,
                state.registry,
                day,
                show_players=session.signed_in,
                reviews=reviews,
                # the statistics change only with the database (reviews do not touch them)
                statistics=state.reader.memo(
                    f"statistics {day} {session.signed_in}",
                    store,
                    lambda s: report_statistics(
                        s, [day], state.registry, show_players=session.signed_in
                    ),
                ),
            ),
        )

    def _latest(request: Request) -> Response:
        session, new = state.session(request)
        if (resp := state.gate(request, session, new)) is not None:
            return resp
        try:
            got = state.reader.read(("latest-day",), pages.latest_day)
        except Busy as exc:
            return state.busy(request, session, exc, new)
        except AuditError as exc:
            return state.error(request, session, 404, str(exc), new)
        return RedirectResponse(report_url(got.data), status_code=303)

    def reviews_page(request: Request) -> Response:
        show = (parse_qs(request.url.query).get("show") or ["all"])[-1]
        if show not in ("all", "changed", "gone"):
            show = "all"
        reviews = state.reviews()
        check = state.trail.verify() if state.trail.exists else None
        chain = (check.decisions, check.head, check.broken_at) if check else (0, "", None)
        return state.page(
            request,
            "reviews",
            "web/reviews.html.j2",
            (show, _stamp(reviews)),
            lambda store, session: pages.load_trail(store, reviews, show, chain),
        )

    async def post_review(request: Request) -> Response:
        session, new = state.session(request)
        if (resp := state.gate(request, session, new)) is not None:
            return resp
        segs = segments(request.scope.get("raw_path") or b"", "/findings/")
        if not segs or len(segs) != 2 or segs[1] != "review":
            return state.error(request, session, 404, "no such page", new)
        fid = segs[0]
        try:
            form = await _form(request)
        except InputError as exc:
            return state.error(request, session, 400, str(exc), new)
        if not state.signer.csrf_ok(session, form.get("csrf")):
            return state.error(request, session, 403, "the form expired: reload the page", new)
        if not session.signed_in or session.user is None:
            why = (
                "sign in to review"
                if state.has_accounts()
                else "reviewing needs an account: `shoe-audit users add NAME`, then sign in"
            )
            return state.error(request, session, 403, why, new)
        account = session.user
        try:
            verdict = Verdict(form.get("verdict", ""))
        except ValueError:
            return state.error(request, session, 400, "choose confirm, dismiss or needs video", new)

        def record() -> str:
            current = _current_finding(state, fid)
            review_finding(
                state.trail,
                current,
                verdict,
                note=form.get("note", ""),
                by=account,
                via="web",
                user=os_user(),
                account=account,
            )
            return fid

        try:
            await run_in_threadpool(record)
        except NotFoundError as exc:
            return state.error(request, session, 404, str(exc), new)
        except InputError as exc:
            return state.error(request, session, 400, str(exc), new)
        except Busy as exc:
            return state.busy(request, session, exc, new)
        back = safe_next(form.get("next"), finding_url(fid))
        back += ("&" if "?" in back else "?") + f"{RECORDED}={_q(fid)}"
        resp = RedirectResponse(back, status_code=303)
        if new:
            state.set_cookie(resp, session)
        return resp

    def login_page(request: Request) -> Response:
        session, new = state.session(request)
        nxt = safe_next((parse_qs(request.url.query).get("next") or [""])[-1])
        return state.html(
            request,
            session,
            "web/login.html.j2",
            {"next": nxt, "failed": False, "accounts": state.has_accounts()},
            page="login",
            new_cookie=new,
        )

    async def login(request: Request) -> Response:
        session, new = state.session(request)
        try:
            form = await _form(request)
        except InputError as exc:
            return state.error(request, session, 400, str(exc), new)
        if not state.signer.csrf_ok(session, form.get("csrf")):
            return state.error(request, session, 403, "the form expired: reload the page", new)
        name, password = form.get("name", ""), form.get("password", "")
        # the TCP peer: X-Forwarded-For is whatever the client writes
        address = request.client.host if request.client is not None else "?"
        attempt = state.throttle.begin(name, address)
        if isinstance(attempt, int):
            return _too_many(request, session, attempt, new)
        account = await run_in_threadpool(check_password, state.trail, name, password)
        nxt = safe_next(form.get("next"))
        if account is None:
            if (wait := state.throttle.failed_during_wait(attempt)) > 0:
                return _too_many(request, session, wait, new)
            return state.html(
                request,
                session,
                "web/login.html.j2",
                {"next": nxt, "failed": True, "accounts": state.has_accounts()},
                page="login",
                status=401,
                new_cookie=new,
            )
        state.throttle.succeeded(attempt)
        resp = RedirectResponse(nxt, status_code=303)
        state.set_cookie(resp, new_session(account.name, str(account.role)))
        return resp

    def _too_many(request: Request, session: Session, wait_s: int, new: bool) -> Response:
        minutes = f"{wait_s // 60} min {wait_s % 60} s" if wait_s >= 60 else f"{wait_s} s"
        resp = state.error(
            request,
            session,
            429,
            f"too many failed sign-ins: try again in {minutes} (the password is not checked "
            "before then)",
            new,
        )
        resp.headers["Retry-After"] = str(wait_s)
        return resp

    async def logout(request: Request) -> Response:
        session, new = state.session(request)
        try:
            form = await _form(request)
        except InputError as exc:
            return state.error(request, session, 400, str(exc), new)
        if not state.signer.csrf_ok(session, form.get("csrf")):
            return state.error(request, session, 403, "the form expired: reload the page", new)
        if session.signed_in:  # the cookie stays valid by its signature: remember it is not
            await run_in_threadpool(revoke, state.trail, session.nonce, session.issued + MAX_AGE_S)
        resp = RedirectResponse("/findings", status_code=303)
        state.set_cookie(resp, new_session())
        return resp

    def home(request: Request) -> Response:
        return RedirectResponse("/findings", status_code=303)

    routes = [
        Route("/", home),
        Route("/findings", findings),
        Route("/findings/{rest:path}", post_review, methods=["POST"]),
        Route("/findings/{rest:path}", finding, methods=["GET", "HEAD"]),
        Route("/rounds", rounds),
        Route("/tables", lambda request: RedirectResponse("/tables/", status_code=308)),
        Route("/tables/{rest:path}", tables),
        Route("/shoes", lambda request: RedirectResponse("/shoes/", status_code=308)),
        Route("/shoes/{rest:path}", shoe),
        Route("/hands/{rest:path}", hand),
        Route("/reports", _latest),
        Route("/reports/{rest:path}", report),
        Route("/reviews", reviews_page),
        *books_routes(state),
        Route("/login", login_page, methods=["GET", "HEAD"]),
        Route("/login", login, methods=["POST"]),
        Route("/logout", logout, methods=["POST"]),
    ]
    app = Starlette(routes=routes)
    app.state.shoe_audit = state
    return app


def _stamp(obj: Mapping[str, Any]) -> int:
    """A cache key part that changes whenever the trail does, so that a page kept while the
    database is busy never hides a review just taken: the number of decisions (the trail
    only grows)."""
    return sum(
        len(v) if isinstance(v, list) else int(getattr(v, "decisions", 0)) for v in obj.values()
    )


def _current_finding(state: App, finding_id: str) -> Finding:
    """The finding as the database holds it; while it is busy, as a page last showed it."""
    from audit.review.service import find_finding

    try:
        got = state.reader.read(
            ("finding-for-review", finding_id), lambda s: find_finding(s, finding_id)
        )
        if not got.stale:
            return got.data
    except Busy:
        pass
    known = state.reader.remembered(finding_id)
    if known is None:
        raise Busy(state.reader.last_read)
    return known


__all__ = ["ServeConfig", "WebView", "create_app"]
