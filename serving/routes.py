"""The step player's payloads served by name: the app's own HTTP routes (a payload by the
hash of its content, the player's script), the ``Link`` header that names them for the
browser to fetch early, and the store of payloads kept for fetching.

Without this layer (``streamlit run app.py``, Streamlit's tests) the player's payload goes
inline on the websocket; ``server.py`` installs it (:func:`install`), and a page open then
carries a reference of a few hundred bytes where it carried the study (see the performance
page).  The component (``ui/component.py``) asks :data:`ui.compute.SERVING` for a payload's name.
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import re
import threading
from collections import Counter, OrderedDict
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import parse_qsl

from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from serving import lines
from serving.clients import Client, request_address, same_origin
from serving.kept_files import accepts_gzip
from ui.component import player_base
from views import site
from views.player import ROUTE, player_modules, player_version, plotly_url, used_modules

MAX_VIEW_QUERY = 4000  # characters of a view's query (a lesson's longest address has a tenth)
#: Views drawn at once for one client address (a dragging browser asks one at a time), and in all.
VIEWS_PER_ADDRESS = 2
VIEWS_AT_ONCE = 16
#: The views' own threads: a client's views that wait for its share of the computing line never
#: hold the threads the live class's routes read and write its record with (asyncio's default pool).
_VIEW_THREADS = ThreadPoolExecutor(max_workers=2, thread_name_prefix="mpl-view")
_VIEWS_IN_FLIGHT = Counter()  # client address -> its views being drawn (the event loop's thread only)
#: Parameters of an address that its page reads, not the view route: a lesson's scene, a live class's.
NOT_A_VIEW = ("lesson", "scene", "class", "key")
AHEAD = "ahead"  # a view's query parameter: a value asked before anyone picks it
KEPT_BYTES = 100_000_000  # compressed payloads kept for fetching (the oldest out first)
_KEPT = OrderedDict()  # name -> gzip bytes of a payload, the most recently shown last
_NAMES = {}  # id(gzip bytes) -> name: each payload hashed once
_KEPT_LOCK = threading.Lock()
_NAME = re.compile(r"[0-9a-f]{40}")


_BASE = ""  # the app's address path, if it sits under one (install)


def install(base=""):
    """Serve payloads by name in this process, the app at the address path ``base``
    (``server.baseUrlPath``, "" or "/path"): :func:`name_for` names them (for
    :func:`serving.install`, which hands it to the pages)."""
    global _BASE
    _BASE = base


def name_for(gz, addresses=(), page=None):
    """The name a page's reference gives ``gz`` (kept for fetching); ``addresses``: the
    queries that reopen its study on ``page`` (the key of the page that ran), remembered at
    that page's own address -- never at the one the browser says it is on, which any
    client can make up."""
    name = served_name(gz)
    if addresses and page is not None:
        path = f"{_BASE}/{site.by_key(page).url_path}"
        for query in addresses:
            remember(path, query.items(), name)
    return name


def routes():
    """The HTTP routes the app adds to Streamlit's (``server.py``): a shown payload by
    name, gzip-encoded as it is kept, and the player's modules at their version."""

    forever = {"Cache-Control": "public, max-age=31536000, immutable"}

    async def payload(request):
        name = request.path_params["name"]
        with _KEPT_LOCK:
            gz = _KEPT.get(name) if _NAME.fullmatch(name) else None
        if gz is None:  # not kept any more: the player asks the page to send it inline
            return PlainTextResponse("No such payload on this server.", status_code=404)
        varying = {**forever, "Vary": "Accept-Encoding"}
        if accepts_gzip(request.headers.get("accept-encoding", "").encode("latin-1")):
            return Response(gz, media_type="application/json", headers={"Content-Encoding": "gzip", **varying})
        plain = await asyncio.to_thread(gzip.decompress, gz)  # a client that cannot read gzip (rare)
        return Response(plain, media_type="application/json", headers=varying)

    modules = {name: text.encode() for name, text in player_modules().items()}
    version = player_version()

    async def player_module(request):
        # Only this version's modules: an older page asking for its own gets a 404 and reloads.
        text = modules.get(request.path_params["name"]) if request.path_params["version"] == version else None
        if text is None:
            return PlainTextResponse("No such player module on this server.", status_code=404)
        return Response(text, media_type="text/javascript", headers=forever)

    return [
        Route(f"/{ROUTE}view/{{page}}", view, methods=["GET"]),
        Route(f"/{ROUTE}payload/{{name}}", payload, methods=["GET"]),
        Route(f"/{ROUTE}player/{{version}}/{{name}}", player_module, methods=["GET"]),
    ]


def _refused(status, text):
    return PlainTextResponse(text, status_code=status, headers={"Cache-Control": "no-store"})


async def view(request):
    """A setting's new value (a slider dragged, a select's option or a toggle), fetched as a
    step is: the name of the payload the page ``page`` (its address path) shows at ``?query``,
    the view's address as a live class names it and its every setting
    (:func:`views.pictures.view_values`), as JSON.  The picture is the page's pure function of
    its address (:func:`ui.compute.prepare`: read, compute, draw, as a link opens it),
    computed in the asking client's share of the fair line and kept with the studies every
    session shares, so that the page's own rerun finds it.  Every refusal is a sentence:
    another site's page, an address too long, a page without a step player, a lesson's or a
    class's view (their page opens those), an upload (it lives in its own session), settings
    the page cannot show, more than ``VIEWS_PER_ADDRESS`` views at once from one address (a
    browser asks one at a time: more is a script) or ``VIEWS_AT_ONCE`` in all.  With
    ``ahead=1`` (the player asking for a neighbouring value before it is picked) it is
    computed only when no computation is waiting and a slot is free and no other view of that
    address is being drawn, as another session of its address: a class's own studies never
    wait for one student's guesses.  The views are drawn on threads of their own, so that a
    script's queue of them never holds the threads the live class's routes use."""
    from ui import compute
    from views.pictures import view_values
    from views.pictures.settings import UPLOAD_PREFIX, view_address

    if not same_origin(request):
        return _refused(403, "Only the app's own pages can ask for a view.")
    raw = request.url.query
    if len(raw) > MAX_VIEW_QUERY:
        return _refused(414, f"A view's address has at most {MAX_VIEW_QUERY} characters after the '?'.")
    try:
        page = site.by_path(request.path_params["page"])
    except ValueError:
        page = None
    if page is None or not page.picture:
        return _refused(404, "No page with a step player has this address.")
    query = dict(parse_qsl(raw, keep_blank_values=True))
    if any(name in query for name in NOT_A_VIEW):
        return _refused(400, "A lesson's scene and a live class's view are opened by their page, not fetched.")
    if str(query.get("data", "")).startswith(UPLOAD_PREFIX):
        return _refused(400, "An uploaded dataset's study lives in the browser session that uploaded it.")
    # A value asked ahead (the player's guess at the next one a select or a toggle takes) uses
    # only what no one is waiting for, in its address's share, one at a time
    ahead = query.pop(AHEAD, None) == "1"
    client = Client(request_address(request), "ahead" if ahead else "view")  # its address's share, as its pages'
    if ahead and (_VIEWS_IN_FLIGHT[client.address] or not lines.QUEUE.idle()):
        return _refused(503, "The server is busy: no value is computed ahead now.")
    if _VIEWS_IN_FLIGHT[client.address] >= VIEWS_PER_ADDRESS:
        return _refused(429, "This browser's last values are still being drawn; the latest is asked for after them.")
    if sum(_VIEWS_IN_FLIGHT.values()) >= VIEWS_AT_ONCE:
        return _refused(503, "The server is drawing many views at once; the value is drawn when the slider is let go.")

    # The answer goes as soon as the payload is kept (a study computed in a child sends it
    # before its arrays, which take a while to cross at thousands of points); the view's
    # thread goes on keeping the study, and counts as in flight until it has
    loop = asyncio.get_running_loop()
    early = loop.create_future()

    def ready(gz, address):
        loop.call_soon_threadsafe(lambda: early.done() or early.set_result((None, gz, address)))

    def prepared():
        with compute.SERVING.acting_for(client):
            return compute.prepare(page.key, query, ready)

    def finished(work):
        _VIEWS_IN_FLIGHT[client.address] -= 1
        if not _VIEWS_IN_FLIGHT[client.address]:
            del _VIEWS_IN_FLIGHT[client.address]
        if not work.cancelled():
            work.exception()  # (retrieved: an answer already sent, or raised below)

    _VIEWS_IN_FLIGHT[client.address] += 1
    work = loop.run_in_executor(_VIEW_THREADS, prepared)
    work.add_done_callback(finished)
    await asyncio.wait([work, early], return_when=asyncio.FIRST_COMPLETED)
    try:
        _, gz, address = early.result() if early.done() else work.result()
    except ValueError as error:
        return _refused(400, str(error))
    finally:
        early.cancel()
    written = address.query()
    name = name_for(gz, [written], page.key)
    answer = {"name": name, "address": view_address(page.url_path, written), "values": view_values(address.values)}
    return JSONResponse(answer, headers={"Cache-Control": "no-store"})


class PreloadPlayer:
    """ASGI middleware (``server.py``): every HTML page names plotly.js and the player's
    script in a ``Link`` header (``rel=preload`` / ``rel=modulepreload``), so a browser
    fetches and compiles them while Streamlit's own scripts load, instead of when the
    player's loader asks for them, after the page's elements are drawn: a lesson link's
    first panels come sooner (``benchmarks/browser_open.py``; the performance page).  A page
    without a player fetches them for nothing,
    once: the browser keeps them for the lesson pages.

    An address this process has shown a player at (:func:`linked_payload`: a lesson link,
    a preset, a warmed scene) also names that study's payload (``rel=preload; as=fetch``):
    the browser fetches it while Streamlit starts, where the player would ask for it only
    once mounted, after the page's elements are drawn.  Only a study its address reopens
    is named (never an upload's: it goes inline, on its user's own connection,
    :func:`ui.component.show`)."""

    def __init__(self, app):
        self.app = app
        modules = [f"<{player_base()}{name}>; rel=modulepreload" for name in used_modules("streamlit.js")]
        self.links = ", ".join([f"<{plotly_url()}>; rel=preload; as=script", *modules]).encode()

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope.get("method") != "GET":
            return await self.app(scope, receive, send)

        async def send_linked(message):
            if message["type"] == "http.response.start":
                headers = dict(message.get("headers") or [])
                if headers.get(b"content-type", b"").startswith(b"text/html"):
                    links = self.links
                    name = linked_payload(scope["path"], scope.get("query_string", b"").decode("latin-1"))
                    if name is not None:
                        links += f", <{ROUTE}payload/{name}>; rel=preload; as=fetch; crossorigin".encode()
                    message = {**message, "headers": [*message.get("headers", []), (b"link", links)]}
            await send(message)

        return await self.app(scope, receive, send_linked)


# --- addresses and their payloads: what a page's HTML can name for the browser to fetch early
_LINKED = OrderedDict()  # (address path, query items) -> the payload name last shown there
LINKED_MAX = 2000  # addresses remembered (each a few hundred bytes), the least recent out first
# Query keys the payload does not depend on: the step is the browser's own, and presenter
# mode and the text size (views/pictures/settings.py PRESENT, TEXT) are in the per-view head of a reference.
_NOT_THE_STUDY = frozenset({"step", "present", "text"})


def _address(path, items):
    """The key of an address: its path and, in order, its query's items that choose the
    study (not the step, presenter mode or text size)."""
    return path or "/", tuple(sorted((key, value) for key, value in items if key not in _NOT_THE_STUDY))


def linked_payload(path, query):
    """The name of the payload last shown at the address ``path?query`` and still kept for
    fetching, or None."""
    key = _address(path, parse_qsl(query, keep_blank_values=True))
    with _KEPT_LOCK:
        name = _LINKED.get(key)
        return name if name is not None and name in _KEPT else None


def remember(path, items, name):
    """The address ``path`` with the query ``items`` (pairs) shows the payload ``name``;
    the ``LINKED_MAX`` addresses shown last are remembered."""
    key = _address(path, items)
    with _KEPT_LOCK:
        _LINKED[key] = name
        _LINKED.move_to_end(key)
        while len(_LINKED) > LINKED_MAX:
            _LINKED.popitem(last=False)


def served_name(gz):
    """The name ``gz`` is fetched by (its SHA-1), kept among the served payloads."""
    with _KEPT_LOCK:
        name = _NAMES.get(id(gz))
        if name is not None and _KEPT.get(name) is gz:
            _KEPT.move_to_end(name)
            return name
    name = hashlib.sha1(gz).hexdigest()
    with _KEPT_LOCK:
        _KEPT[name] = gz
        _KEPT.move_to_end(name)
        _NAMES[id(gz)] = name
        total = sum(len(kept) for kept in _KEPT.values())
        while total > KEPT_BYTES and len(_KEPT) > 1:
            old_name, old = _KEPT.popitem(last=False)
            total -= len(old)
            if _NAMES.get(id(old)) == old_name:
                del _NAMES[id(old)]
    return name
