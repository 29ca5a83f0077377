"""``shoe-audit serve``: the web app under uvicorn (issue 12, points 1 and 4)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

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


def free_port(host: str = "127.0.0.1") -> int:
    """A port nothing listens on now (for tests and benchmarks)."""
    import socket

    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


@contextmanager
def in_background(app: Any, port: int | None = None, host: str = "127.0.0.1") -> Iterator[int]:
    """Serve ``app`` under uvicorn in a thread of this process until the block ends (tests,
    benchmarks); yields the port."""
    import threading
    import time

    import uvicorn

    port = port or free_port(host)
    config = uvicorn.Config(  # as `serve` runs it: the peer's address, never X-Forwarded-For
        app,
        host=host,
        port=port,
        log_level="warning",
        lifespan="off",
        ws="none",
        proxy_headers=False,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(10)
