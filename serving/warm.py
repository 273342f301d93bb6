"""Warming a server process before a class arrives: every scene of the lessons it is given
computed and drawn in the process that will serve it (:func:`ui.compute.prepare`, the same
stores a page's first visitor fills), one after another in the computations' line, and its
address remembered so that a browser opening it is told to fetch the payload early
(:class:`serving.routes.PreloadPlayer`).

``make serve`` (``deploy/serve.py``) hands each process its addresses in the environment
(:data:`ENVIRONMENT`); the server (``server.py``) starts :func:`start_from_environment`, and
``GET /mpl/warmed`` (:func:`routes`) says when it is done and what failed.  Each process
warms itself, at every start, in its own computations' line: a student who arrives early
waits for at most the scene being computed.
"""

from __future__ import annotations

import json
import os
import threading
import time
from urllib.parse import parse_qsl

from serving import routes as payload_routes
from ui import compute
from views import player, site

ENVIRONMENT = "MPLAB_WARM"  # JSON: [[page address, query string], ...]
_STATUS = {"warming": False, "done": False, "scenes": 0, "seconds": None, "failed": []}
_LOCK = threading.Lock()


def status():
    """What warming has done so far: ``done``, ``scenes``, ``seconds`` and the ``failed`` addresses."""
    with _LOCK:
        return dict(_STATUS, failed=list(_STATUS["failed"]))


def warm(addresses, base=""):
    """Prepare each ``(page address, query string)`` in turn; the app's addresses start
    with ``base`` (Streamlit's ``server.baseUrlPath``)."""
    started, failed = time.perf_counter(), []
    with _LOCK:
        _STATUS.update(warming=True, done=False)
    for path, query in addresses:
        items = parse_qsl(query, keep_blank_values=True)
        try:
            page = site.by_path(path)
            if not page.picture:  # a page without a study (the bounds explorer) has nothing to warm
                continue
            _, gz, _ = compute.prepare(page.key, dict(items))
        except ValueError as error:
            failed.append(f"/{path}?{query} ({error})")
            continue
        payload_routes.remember(f"{base.rstrip('/')}/{page.url_path}", items, payload_routes.served_name(gz))
    with _LOCK:
        _STATUS.update(
            warming=False, done=True, scenes=len(addresses), seconds=time.perf_counter() - started, failed=failed
        )


def start_from_environment(base=""):
    """Warm the addresses :data:`ENVIRONMENT` names, in a thread of their own (none: nothing to do)."""
    text = os.environ.get(ENVIRONMENT)
    if not text:
        return None
    thread = threading.Thread(target=warm, args=(json.loads(text), base), name="warm", daemon=True)
    thread.start()
    return thread


def routes():
    """``GET /mpl/warmed``: :func:`status` as JSON (the deployment waits for ``done``)."""
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def warmed(request):
        return JSONResponse(status(), headers={"Cache-Control": "no-store"})

    return [Route(f"/{player.ROUTE}warmed", warmed, methods=["GET"])]
