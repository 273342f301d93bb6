"""Static files served from memory, each read and gzip-compressed once per process.

A browser new to the app fetches, for its first page, over a hundred files: Streamlit's
scripts and fonts, the player's plotly.js and its script.  Through Streamlit's own serving
that first visit cost the server many times the page's own run: Streamlit serves its bundle
uncompressed from disk, file by file through Starlette's ``StaticFiles``, and deflates the
app's static files again for every request.  Its own reason for not compressing its bundle
-- compressing on every request costs more than it saves -- does not hold for a file
compressed once.

These files do not change while a server runs (Streamlit's names carry their content's
hash, plotly.js and the player's script a version in the query), so :class:`KeptFiles`
fetches each from the app once, without compression, gzips it once (level 9, in a worker
thread) and keeps both forms in memory, at most ``limit`` bytes in all: a browser
accepting gzip gets the compressed bytes, others the plain ones, with the app's own
headers (its ``Cache-Control``, its ``ETag``, weakened for the compressed form).  What a
first visit costs each way, in CPU and on the hall's Wi-Fi, is on the performance page.
Not Starlette's ``GZipMiddleware``: it compresses every response again, the cost this avoids.

A file is kept by its path alone (the app's static files ignore the query, so
``?x=1``, ``?x=2``... are the same file, kept once; ``./`` and ``a/../`` segments and
doubled slashes are dropped first, so that a client cannot make one file many), and only when the app served it as
itself: Streamlit answers an unknown path under ``static/`` with its ``index.html`` and a
200, which is passed through, never kept.  The real files are a fixed set that fits the
bound; one that does not fit is still sent compressed to a browser that accepts it,
compressed for that answer at a quicker level.
"""

from __future__ import annotations

import asyncio
import gzip
import mimetypes
import posixpath

LIMIT = 64_000_000  # bytes kept (plain and compressed): Streamlit's whole bundle, plain and gzipped, fits
LARGEST = 16_000_000  # a larger file goes through as the app serves it
PASSING_LEVEL = 6  # gzip level for a file sent compressed without being kept (quicker than 9)
COMPRESSIBLE = (b"text/", b"application/javascript", b"application/json", b"image/svg+xml")
# The app's headers a kept answer repeats; the rest (length, encoding, date) are its own.
KEPT_HEADERS = {
    b"content-type",
    b"cache-control",
    b"etag",
    b"last-modified",
    b"access-control-allow-origin",
    b"x-content-type-options",
}
# A request's headers that would change the app's answer from the plain whole file.
VARYING = {b"accept-encoding", b"range", b"if-none-match", b"if-modified-since", b"if-range"}


class Kept:
    """One file's answers, made once: the app's headers with the plain bytes, and with the
    gzip-compressed bytes (``None`` when compression would not save a tenth), and its ETag."""

    def __init__(self, headers, plain, compressed):
        self.etag = dict(headers).get(b"etag")
        self.size = len(plain) + len(compressed or b"")
        vary = [] if compressed is None else [(b"vary", b"Accept-Encoding")]
        self.plain = ([*headers, *vary, (b"content-length", str(len(plain)).encode())], plain)
        self.gzipped = None
        if compressed is not None:
            weak = [(n, b"W/" + v if n == b"etag" and not v.startswith(b"W/") else v) for n, v in headers]
            length = (b"content-length", str(len(compressed)).encode())
            self.gzipped = ([*weak, *vary, (b"content-encoding", b"gzip"), length], compressed)

    def answer(self, gzip_ok, etag_asked):
        """``(status, headers, body)`` for a request that accepts gzip or not (``gzip_ok``)
        and names an ETag it has (``If-None-Match``) or not (``None``).  The compressed
        form's ETag is weak: another representation of the same file."""
        headers, body = self.gzipped if gzip_ok and self.gzipped is not None else self.plain
        if etag_asked is not None and self.etag is not None and _same_etag(etag_asked, self.etag):
            return 304, [(n, v) for n, v in headers if n in (b"etag", b"cache-control", b"vary")], b""
        return 200, headers, body


def _same_etag(asked, etag):
    """Whether an ``If-None-Match`` value names ``etag`` (weak comparison, as for GET)."""
    etag = etag.removeprefix(b"W/")
    return any(tag.strip() in (etag, b"W/" + etag, b"*") for tag in asked.split(b","))


def accepts_gzip(value):
    """Whether an ``Accept-Encoding`` header value allows gzip (a q of 0 refuses it)."""
    for item in value.split(b","):
        name, _, params = item.strip().partition(b";")
        if name.strip().lower() in (b"gzip", b"*"):
            q = params.strip().lower()
            if q.startswith(b"q="):
                try:
                    return float(q[2:]) > 0
                except ValueError:
                    return False
            return True
    return False


class KeptFiles:
    """ASGI middleware (``server.py``): GET requests for paths under ``prefixes`` are
    answered from memory once the app has answered one of them with a plain 200 (see the
    module's docstring); everything else, and a file the app refuses or that is too
    large, goes to the app as before."""

    def __init__(self, app, prefixes, limit=LIMIT):
        self.app = app
        self.prefixes = tuple(prefixes)
        self.limit = int(limit)
        self._kept = {}  # path -> Kept
        self._pending = {}  # path -> Future of (Kept or None, the app's answer), while it is fetched
        self.kept_bytes = 0

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope.get("method") != "GET" or not scope["path"].startswith(self.prefixes):
            return await self.app(scope, receive, send)
        headers = dict(scope.get("headers") or [])
        if b"range" in headers or b"if-range" in headers:
            return await self.app(scope, receive, send)
        key = normal_path(scope["path"])  # the file, whatever the query and the dot segments
        if key != scope["path"]:
            if not key.startswith(self.prefixes):  # (out of the folders kept: the app answers it as asked)
                return await self.app(scope, receive, send)
            scope = {**scope, "path": key, "raw_path": key.encode()}
        kept = self._kept.get(key)
        if kept is None:
            pending = self._pending.get(key)
            if pending is not None:  # another request is fetching it: its outcome serves this one
                kept, answer = await asyncio.shield(pending)
            else:
                kept, answer = await self._keep(key, scope)
            if kept is None:
                if answer is None:  # (the fetch failed) the app answers it
                    return await self.app(scope, receive, send)
                if not _is_the_file(scope["path"], answer):  # not a file: the app's answer, never kept
                    return await _send(send, *answer)
                kept = await _passing(*answer)  # a file the bound cannot hold, compressed for this answer
                if kept is None:
                    return await _send(send, *answer)
        gzip_ok = accepts_gzip(headers.get(b"accept-encoding", b""))
        await _send(send, *kept.answer(gzip_ok, headers.get(b"if-none-match")))

    async def _keep(self, key, scope):
        """Ask the app for the plain whole file (concurrent requests for it wait for this
        one): ``(Kept or None, the app's answer)``."""
        pending = self._pending[key] = asyncio.get_running_loop().create_future()
        kept, answer = None, None
        try:
            answer = await self._plain(scope)
            if _is_the_file(scope["path"], answer):
                kept = await _kept_form(*answer)
            if kept is not None:
                if self.kept_bytes + kept.size <= self.limit:
                    self._kept[key] = kept
                    self.kept_bytes += kept.size
                else:
                    kept = None
        finally:
            del self._pending[key]
            pending.set_result((kept, answer))
        return kept, answer

    async def _plain(self, scope):
        """The app's answer to ``scope`` asked without compression, conditions or ranges:
        ``(status, headers, body)``."""
        plain_scope = dict(scope)
        plain_scope["headers"] = [(n, v) for n, v in scope.get("headers") or [] if n not in VARYING]
        started, chunks, asked = {}, [], []

        async def capture(message):
            if message["type"] == "http.response.start":
                started.update(message)
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        async def request():  # a GET's empty body, then nothing: no disconnect while kept
            if not asked:
                asked.append(True)
                return {"type": "http.request", "body": b"", "more_body": False}
            await asyncio.Event().wait()  # (the app stops listening when it has answered)

        await self.app(plain_scope, request, capture)
        return started.get("status", 500), list(started.get("headers") or []), b"".join(chunks)


# Types the app may give a file whose name says another of the same kind.
_SAME_KIND = {"application/javascript": "text/javascript", "application/x-javascript": "text/javascript"}


def _kind(content_type):
    name = content_type.split(";")[0].strip().lower()
    return _SAME_KIND.get(name, name)


def _is_the_file(path, answer):
    """Whether the app's ``answer`` (status, headers, body) to ``path`` is that file itself:
    a plain 200 of the type its name says (not Streamlit's ``index.html``, which it sends
    with a 200 for any path under ``static/`` it does not have)."""
    status, headers, _ = answer
    named = dict(headers)
    guessed, _ = mimetypes.guess_type(path)
    return (
        status == 200
        and b"content-encoding" not in named
        and guessed is not None
        and _kind(named.get(b"content-type", b"").decode("latin-1")) == _kind(guessed)
    )


async def _kept_form(status, headers, body, level=9):
    """The :class:`Kept` of a file's answer (compressed at ``level``), or ``None`` for a
    file over ``LARGEST`` bytes."""
    if len(body) > LARGEST:
        return None
    named = dict(headers)
    compressed = None
    if named.get(b"content-type", b"").startswith(COMPRESSIBLE):
        compressed = await asyncio.to_thread(gzip.compress, body, level, mtime=0)
        if len(compressed) > 0.9 * len(body):
            compressed = None
    return Kept([(n, v) for n, v in headers if n in KEPT_HEADERS], body, compressed)


async def _passing(status, headers, body):
    """The :class:`Kept` form of a file that will not be kept, for one answer."""
    return await _kept_form(status, headers, body, PASSING_LEVEL)


async def _send(send, status, headers, body):
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def normal_path(path):
    """``path`` without dot segments and repeated slashes (``/static/./a/../b.js``:
    ``/static/b.js``): each file is kept once, under one name, however a client spells it."""
    normal = "/" + posixpath.normpath(path).lstrip("/")
    return normal + "/" if path.endswith("/") and normal != "/" else normal


def static_prefixes(base_url, own=()):
    """The paths whose files do not change while the server runs: Streamlit's bundle
    (``static/``, content-hashed names), the app's static folder (``app/static/``: the
    player's plotly.js, named with a version) and ``own`` (paths of the app's routes)."""
    base = "/" + base_url.strip("/") if base_url and base_url.strip("/") else ""
    return [f"{base}/{path}" for path in ("static/", "app/static/", *own)]
