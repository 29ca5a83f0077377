"""A real HTTP client and a real uvicorn server for the web tests (stdlib only).

The app runs in uvicorn in a thread of the test process, on a free loopback
port; the client speaks HTTP to it with :mod:`http.client`, keeps cookies, and
never follows redirects (tests look at them).
"""

from __future__ import annotations

import http.client
import re
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def running(app: Any, port: int | None = None) -> Iterator[int]:
    """Serve ``app`` on 127.0.0.1 until the block ends; yields the port."""
    import uvicorn

    port = port or free_port()
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", lifespan="off", ws="none"
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


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    text: str

    @property
    def location(self) -> str:
        return self.headers.get("location", "")


@dataclass
class Client:
    port: int
    host: str = "127.0.0.1"
    cookies: dict[str, str] = field(default_factory=dict)

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> Response:
        con = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        hdrs = {"Host": f"{self.host}:{self.port}", **(headers or {})}
        if self.cookies:
            hdrs["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        try:
            con.request(method, path, body=body, headers=hdrs)
            resp = con.getresponse()
            text = resp.read().decode("utf-8")
            got = {k.lower(): v for k, v in resp.getheaders()}
            for k, v in resp.getheaders():
                if k.lower() == "set-cookie":
                    name, _, rest = v.partition("=")
                    self.cookies[name] = rest.split(";", 1)[0].strip('"')
            return Response(resp.status, got, text)
        finally:
            con.close()

    def get(self, path: str) -> Response:
        return self.request("GET", path)

    def post(self, path: str, form: dict[str, str]) -> Response:
        return self.request(
            "POST",
            path,
            urlencode(form).encode(),
            {"Content-Type": "application/x-www-form-urlencoded"},
        )

    def csrf(self, page: str = "/findings") -> str:
        """The CSRF token of this client's session, read from a page's form."""
        m = re.search(r'name="csrf" value="([0-9a-f]+)"', self.get(page).text)
        assert m is not None, "no CSRF token on the page"
        return m.group(1)
