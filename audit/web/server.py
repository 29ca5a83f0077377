"""``shoe-audit serve``: the web app under uvicorn (issue 12, points 1 and 4)."""

from __future__ import annotations

from audit.errors import AuditError
from audit.review import ReviewTrail
from audit.review.accounts import accounts
from audit.web.app import ServeConfig, create_app


def check_can_serve(config: ServeConfig) -> None:
    """Refuse to start where the contract says no: no database (cli.md: serve never creates
    one), or an address other than loopback without reviewer accounts."""
    if not config.db.is_file():
        raise AuditError(f"no audit database at {str(config.db)!r}: run `shoe-audit ingest` first")
    if not config.loopback and not accounts(ReviewTrail.beside(config.db)):
        raise AuditError(
            f"refusing to serve on {config.host!r} without reviewer accounts: add one with "
            "`shoe-audit users add NAME --role reviewer` (or serve on 127.0.0.1)"
        )


def serve(config: ServeConfig) -> None:
    """Run the app until stopped (Ctrl-C)."""
    import uvicorn

    check_can_serve(config)
    app = create_app(config)
    uvicorn.run(
        app,
        host=config.host,
        port=config.port,
        log_level="warning",
        access_log=False,
        server_header=False,
        proxy_headers=False,
    )
