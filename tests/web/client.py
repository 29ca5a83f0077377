"""A real HTTP client and a real uvicorn server for the web tests (stdlib only).

The app runs in uvicorn in a thread of the test process, on a free loopback
port (:func:`audit.web.server.in_background`); the client speaks HTTP to it
with :mod:`http.client`, keeps cookies, and never follows redirects (tests look
at them).
"""

from __future__ import annotations

import http.client
import re
from dataclasses import dataclass, field
from urllib.parse import urlencode

from audit.web.server import free_port as _free_port
from audit.web.server import in_background

free_port = _free_port
running = in_background

PASSWORD = "long enough password"
"""The password the web tests give their accounts."""


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
    source: str | None = None
    """The address to connect from (any 127.x.y.z on Linux): another client address."""

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> Response:
        con = http.client.HTTPConnection(
            "127.0.0.1",
            self.port,
            timeout=30,
            source_address=(self.source, 0) if self.source else None,
        )
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

    def sign_in(self, name: str, password: str = PASSWORD) -> Response:
        """Sign in through the login form (this client's cookie then carries the session)."""
        return self.post(
            "/login", {"csrf": self.csrf("/login"), "name": name, "password": password}
        )

    def csrf(self, page: str = "/findings") -> str:
        """The CSRF token of this client's session, read from a page's form."""
        m = re.search(r'name="csrf" value="([0-9a-f]+)"', self.get(page).text)
        assert m is not None, "no CSRF token on the page"
        return m.group(1)
