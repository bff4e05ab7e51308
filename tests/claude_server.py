"""The scripted Messages API of ``fakes.FakeAPI`` served over real HTTP on loopback.

Why: the graph tests drive the proposer in-process over ``httpx2.MockTransport``; the
``drafter draft`` command has to be tested as users run it, in a child process whose
anthropic SDK finds the endpoint through ``$ANTHROPIC_BASE_URL``.  This server turns
each HTTP request into an ``httpx2.Request`` for :class:`fakes.FakeAPI`, so
both kinds of test share one set of canned answers and one request log.

Two controls on top of the fake's scripts, both counted over requests that reach the
server (1-based):

- ``hang_at``: that request (and every later one) is held open — neither logged nor
  answered — until :meth:`ClaudeServer.release`; a test SIGKILLs its child meanwhile.
- ``fail_from`` / ``fail_status``: from that request on, answer with that status
  (401 = a rejected key) without consuming the scripts.

Only ever binds 127.0.0.1; :meth:`ClaudeServer.close` stops the thread.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx2
from fakes import FakeAPI

_ERROR_TYPES = {401: "authentication_error", 403: "permission_error"}


class ClaudeServer:
    def __init__(self, fake: FakeAPI):
        self.fake = fake
        self.hang_at: int | None = None
        self.fail_from: int | None = None
        self.fail_status = 401
        self.hanging = threading.Event()  # set once a request is being held
        self._release = threading.Event()
        self._lock = threading.Lock()
        self.received = 0  # requests that reached the server, held or failed ones included
        self.paths: list[str] = []
        self.refused: list[dict[str, Any]] = []  # bodies answered with fail_status
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def release(self) -> None:
        self._release.set()

    def close(self) -> None:
        self.release()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    # -- one request --------------------------------------------------------------------

    def _answer(self, method: str, path: str, headers: dict[str, str], body: bytes):
        with self._lock:
            self.received += 1
            n = self.received
            self.paths.append(path)
        if self.hang_at is not None and n >= self.hang_at:
            self.hanging.set()
            self._release.wait(timeout=120)
            return None  # the client is gone (killed); close without an answer
        if self.fail_from is not None and n >= self.fail_from:
            self.refused.append(json.loads(body))
            etype = _ERROR_TYPES.get(self.fail_status, "api_error")
            return httpx2.Response(
                self.fail_status,
                json={"type": "error", "error": {"type": etype, "message": "refused"}},
            )
        request = httpx2.Request(method, f"{self.url}{path}", headers=headers, content=body)
        return self.fake.handler(request)

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length)
                response = server._answer("POST", self.path, dict(self.headers), body)
                if response is None:
                    self.close_connection = True
                    return
                content = response.content
                self.send_response(response.status_code)
                for k, v in response.headers.items():
                    if k.lower() not in ("content-length", "transfer-encoding", "connection"):
                        self.send_header(k, v)
                self.send_header("content-length", str(len(content)))
                self.end_headers()
                try:
                    self.wfile.write(content)
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass  # keep pytest output clean

        return Handler
