"""A page opened without a browser: one Streamlit session over its websocket.

What a browser tab is to the server: a websocket to ``/_stcore/stream``, a
``rerun_script`` message naming the page and its query string, and the server's
messages until it says the script finished.  It speaks Streamlit's own websocket protocol
(``streamlit.proto``, which Streamlit may change in any release), so it lives with the
measurements and the tests, never in the app: the class-scale benchmark
(``benchmarks/class_load.py``) and the deployment and browser tests use it.

A browser new to the app also fetches the page's files over HTTP first
(:func:`fetch_files`, as the class benchmark's first visits do).

When the connection drops before the page is done (its server process was stopped),
``open_page(..., reconnect=True)`` opens it again from its address, as Streamlit's own
page does: behind a proxy the new connection reaches a live process.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from urllib.parse import urlsplit

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from websockets.exceptions import WebSocketException

from views.player import REFERENCE, ROUTE, referenced_name

TIMEOUT = 600.0


@dataclass
class Visit:
    seconds: float  # from the first connection until the script finished (or failed), reruns included
    received: int  # bytes of server messages, as sent
    error: str | None = None  # None when the page finished without an exception
    reconnects: int = 0
    cookies: dict = field(default_factory=dict)  # what the last connection's answer set (a proxy's, say)
    rerun_seconds: list = field(default_factory=list)  # each further run of the same session


def stream_url(url):
    """The websocket address of the app at ``url`` (``http://host:port[/base]``)."""
    parts = urlsplit(url.rstrip("/"))
    scheme = "wss" if parts.scheme == "https" else "ws"
    return f"{scheme}://{parts.netloc}{parts.path}/_stcore/stream"


def app_url(ws_url):
    """The app's address (``http://host:port[/base]``) whose websocket is ``ws_url``."""
    parts = urlsplit(ws_url)
    scheme = "https" if parts.scheme == "wss" else "http"
    return f"{scheme}://{parts.netloc}{parts.path[: -len('/_stcore/stream')]}"


def page_url(ws_url, page):
    """The address a browser shows for ``page`` of the app whose websocket is ``ws_url``."""
    return f"{app_url(ws_url)}/{page}"


def _cookies(ws):
    response = getattr(ws, "response", None)  # websockets >= 14; older: response_headers
    headers = response.headers if response is not None else getattr(ws, "response_headers", {})
    jar = SimpleCookie()
    for value in headers.get_all("Set-Cookie") if hasattr(headers, "get_all") else []:
        jar.load(value)
    return {name: morsel.value for name, morsel in jar.items()}


async def _once(ws_url, page, query, timeout, cookies, reruns, headers=None, says=None):
    """``(finished, bytes, error)``; ``finished`` False when the connection dropped.  After
    the page is open, ``reruns`` is a list to fill: the seconds each further run of the
    same session took (as many as it holds ``None``s).  ``headers``: sent with the
    websocket's opening request (a proxy's ``X-Forwarded-For``); ``says``: the address the
    client reports it is at (a browser reports its own; a forged client anything)."""
    received = 0
    try:
        async with websockets.connect(
            ws_url,
            max_size=None,
            subprotocols=["streamlit"],
            open_timeout=timeout,
            ping_timeout=None,
            additional_headers=headers,
        ) as ws:
            cookies.clear()
            cookies.update(_cookies(ws))
            for run in range(1 + len(reruns)):
                started = time.perf_counter()
                message = BackMsg()
                message.rerun_script.query_string = query
                message.rerun_script.page_name = page
                message.rerun_script.context_info.url = says or page_url(ws_url, page)  # as a browser says it
                await ws.send(message.SerializeToString())
                while True:
                    data = await asyncio.wait_for(ws.recv(), timeout)
                    received += len(data)
                    forward = ForwardMsg()
                    forward.ParseFromString(data)
                    kind = forward.WhichOneof("type")
                    if kind == "delta" and forward.delta.new_element.WhichOneof("type") == "exception":
                        return True, received, "exception"
                    if kind == "delta" and forward.delta.new_element.WhichOneof("type") == "bidi_component":
                        received += await _fetch_referenced(ws_url, forward.delta.new_element.bidi_component, cookies)
                    if kind == "script_finished":
                        break
                if forward.script_finished != ForwardMsg.FINISHED_SUCCESSFULLY:
                    return True, received, f"finished {forward.script_finished}"
                if run:
                    reruns[run - 1] = time.perf_counter() - started
            return True, received, None
    except (OSError, WebSocketException) as error:  # refused, dropped, or not a websocket
        return False, received, type(error).__name__
    except TimeoutError:
        return True, received, "TimeoutError"
    except PayloadMissing as error:  # its process stopped between the page and the fetch:
        return False, received, str(error)  # a browser reopens the page (ui/server_watch.py)


async def _fetch_referenced(ws_url, component, cookies):
    """What a browser fetches for a step player's payload reference (``views/player.py``
    ``reference``), as it does: over HTTP, with the session's cookies (behind the proxy
    they lead to the same process).  The bytes received (gzip-encoded, as sent); 0 for a
    component that carries no reference.  A failed fetch raises :class:`PayloadMissing`."""
    data = component.bytes
    if not data.startswith(REFERENCE):
        return 0
    name = referenced_name(data)
    browser = _Browserlike(app_url(ws_url), TIMEOUT)
    browser.cookies.update(cookies)
    try:
        await browser.get_all([f"/{ROUTE}payload/{name}"])
    except (OSError, EOFError) as error:  # refused, or closed before the whole answer
        raise PayloadMissing(f"payload {name}: {type(error).__name__}") from error
    if browser.failed:
        raise PayloadMissing(f"payload {name}: not answered 200")
    return browser.received


class PayloadMissing(Exception):
    """A step player's referenced payload could not be fetched (a page error, not a dropped
    connection: the page would show no charts)."""


class _Browserlike:
    """HTTP/1.1 GETs over kept-alive connections to one app, as a browser makes them:
    gzip accepted, the cookies its answers set sent back (behind the proxy: the same
    process).  ``received`` counts the bytes as sent; ``failed`` the paths not answered 200.
    The answers are read with as little work as HTTP/1.1 allows (a length or chunks):
    the client shares the server's cores, and a class of first visits is 35,000 files."""

    def __init__(self, url, timeout):
        self.parts, self.timeout = urlsplit(url.rstrip("/")), timeout
        self.cookies, self.failed, self.received = {}, [], 0

    async def get_all(self, paths):
        """Fetch ``paths`` one after the other over one connection (reopened if closed)."""
        reader = writer = None
        try:
            for path in paths:
                if writer is None:
                    reader, writer = await asyncio.open_connection(self.parts.hostname, self.parts.port or 80)
                if not await asyncio.wait_for(self._get(reader, writer, path), self.timeout):
                    writer.close()
                    reader = writer = None
        finally:
            if writer is not None:
                writer.close()

    async def _get(self, reader, writer, path):
        """One GET, its answer read whole; whether the connection may be used again."""
        lines = [f"GET {self.parts.path}{path} HTTP/1.1", f"Host: {self.parts.netloc}", "Accept-Encoding: gzip"]
        if self.cookies:
            lines.append("Cookie: " + "; ".join(f"{key}={value}" for key, value in self.cookies.items()))
        writer.write(("\r\n".join([*lines, "", ""])).encode("latin-1"))
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        if status_line.split(" ", 2)[1] != "200":
            self.failed.append(path)
        headers, jar = {}, SimpleCookie()
        for line in header_lines:
            name, _, value = line.partition(":")
            name, value = name.strip().lower(), value.strip()
            if name == "set-cookie":
                jar.load(value)
            elif name:
                headers[name] = value.lower()
        self.cookies.update({name: morsel.value for name, morsel in jar.items()})
        size = len(head)
        if "chunked" in headers.get("transfer-encoding", ""):
            while True:
                line = await reader.readuntil(b"\r\n")
                chunk = int(line.split(b";")[0], 16)
                size += len(line) + len(await reader.readexactly(chunk + 2))
                if chunk == 0:
                    break
        elif "content-length" in headers:
            size += len(await reader.readexactly(int(headers["content-length"])))
        else:  # the answer ends with the connection
            size += len(await reader.read())
            self.received += size
            return False
        self.received += size
        return headers.get("connection") != "close"


async def fetch_files(url, paths, connections=6, timeout=TIMEOUT):
    """What a browser new to the app fetches over HTTP: ``paths[0]`` (the page), then the
    rest over ``connections`` kept-alive connections at once.  ``(bytes received, paths
    not answered 200, cookies set)``."""
    browser = _Browserlike(url, timeout)
    await browser.get_all(paths[:1])
    rest = deque(paths[1:])

    def take():
        while rest:
            yield rest.popleft()

    await asyncio.gather(*(browser.get_all(take()) for _ in range(connections)))
    return browser.received, browser.failed, browser.cookies


async def open_page(ws_url, page, query="", timeout=TIMEOUT, reconnect=False, reruns=0, headers=None, says=None):
    """Open ``page`` (its address path, "" for Home) with ``query`` and wait until its
    script finished: a :class:`Visit`.  ``reconnect``: when the connection drops, open
    the page again (after 0.5 s, as long as ``timeout`` allows).  ``reruns``: then run
    the page again that many times in the same session (as a student's clicks do),
    timing each (``Visit.rerun_seconds``).  ``headers`` and ``says``: as :func:`_once`."""
    started = time.perf_counter()
    received, reconnects, cookies = 0, 0, {}
    while True:
        times = [None] * reruns
        finished, got, error = await _once(ws_url, page, query, timeout, cookies, times, headers, says)
        received += got
        late = time.perf_counter() - started > timeout
        if finished or not reconnect or late:
            return Visit(
                time.perf_counter() - started, received, error, reconnects, cookies, [t for t in times if t is not None]
            )
        reconnects += 1
        await asyncio.sleep(0.5)


async def open_pages(ws_url, opens, **options):
    """Every ``(page, query)`` of ``opens`` at once: their :class:`Visit` in order."""
    return await asyncio.gather(*(open_page(ws_url, page, query, **options) for page, query in opens))


def visit(url, page, query="", **options):
    """:func:`open_page` for code that is not asynchronous."""
    return asyncio.run(open_page(stream_url(url), page, query, **options))
