"""A live class over HTTP: the students' players follow the lecturer's, and the class answers.

Three routes (``server.py`` adds them to Streamlit's), under the app's ``mpl/class/``:

- ``GET events?class=CODE`` -- the class as it changes, as server-sent events (the
  browser's ``EventSource``, which reconnects by itself: a laptop waking from sleep, or a
  student whose app process was restarted, gets the class as it is now, first thing).
  With the lecturer's ``&key=`` the events also carry the class's answers and how many
  follow.
- ``POST drive?class=CODE`` -- the lecturer's player: the step on screen, predict mode,
  reveal, vote again (its key in the ``X-Class-Key`` header; without the right key nothing
  changes and the answer is a sentence).
- ``POST answer?class=CODE`` -- a student's answer to the round: a training point, or a
  question's choice.

The classes live in :mod:`ui.classroom`'s SQLite file, which every process of ``make serve``
shares: the lecturer and a student may land on different processes.  Each process has one
watcher (:class:`Hub`) that reads the versions of the classes its own followers follow (every
:data:`PERIOD`; at once after a change made in this process), and sends each follower the
class when it changes -- the latest state, never
a queue of old ones, so a slow student skips to where the lecturer is.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import sqlite3
import sys
import time
from collections import OrderedDict, deque

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from serving.clients import address_of
from ui import classroom
from ui.player import ROUTE

PERIOD = 0.05  # seconds between a process's looks at its followers' classes (another process's changes)
COUNT_PERIOD = 1.0  # seconds between its counts of who follows
# Seconds of silence after which a stream says it is alive: a browser that hears nothing for
# longer reconnects (a laptop that slept may hold a connection that is dead).
HEARTBEAT = 15.0
RETRY_MS = 1000  # how soon a browser reconnects a dropped stream
GUESSES = 30  # unknown codes one address may ask for per minute (a code is not guessed by trying)
MAX_BODY = 2_000


class Follower:
    """One open stream: the latest class it has not been sent yet (older ones are dropped)."""

    def __init__(self, code: str, lead: str | None):
        self.code, self.lead = code, lead
        self.latest: dict | None = None
        self.version = 0  # the version last given (a student is never given the same twice)
        self.ready = asyncio.Event()

    def give(self, event: dict) -> None:
        if self.lead is None and not event.get("ended") and event.get("version", 0) <= self.version:
            return
        self.version = max(self.version, event.get("version", 0))
        self.latest = event
        self.ready.set()


class Hub:
    """This process's followers, by class, and the one task that tells them of changes."""

    def __init__(self, store: classroom.Store):
        self.store = store
        self.process = f"{socket.gethostname()}:{os.getpid()}:{id(self)}"
        self.followers: dict[str, set[Follower]] = {}
        self.seen: dict[str, tuple[int, int]] = {}  # code -> the (version, answers) last sent
        self.counts: dict[str, int] = {}  # code -> followers over every process
        self.told: dict[str, int] = {}  # code -> the count of followers its lecturer was last told
        self.wake: asyncio.Event | None = None
        self.task: asyncio.Task | None = None

    def join(self, follower: Follower) -> None:
        self.followers.setdefault(follower.code, set()).add(follower)
        if follower.lead is not None:
            self.told.pop(follower.code, None)  # a lecturer's new stream: its counts at once
        if self.task is None or self.task.done():
            self.wake = asyncio.Event()
            self.task = asyncio.get_running_loop().create_task(self.watch())
        self.nudge()

    def leave(self, follower: Follower) -> None:
        group = self.followers.get(follower.code)
        if group is not None:
            group.discard(follower)
            if not group:
                del self.followers[follower.code]
                self.seen.pop(follower.code, None)
                self.told.pop(follower.code, None)

    def nudge(self) -> None:
        """A change made in this process: look now, not at the next period."""
        if self.wake is not None:
            self.wake.set()

    def students(self) -> dict[str, int]:
        return {code: sum(1 for f in group if f.lead is None) for code, group in self.followers.items()}

    async def watch(self) -> None:
        """For as long as the process runs: while it has followers, look every period; with
        none, once more to say so, then sleep until one joins (it never ends, so a follower
        joining as the last one leaves is never left without a watcher)."""
        counted, idle = 0.0, False
        assert self.wake is not None
        while True:
            if not self.followers:
                if not idle:
                    with contextlib.suppress(Exception):
                        await asyncio.to_thread(self.store.follow_counts, self.process, {})
                    idle = True
                self.wake.clear()
                if not self.followers:  # (one may have joined while the count was written)
                    await self.wake.wait()
                continue
            idle = False
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), PERIOD)
            self.wake.clear()
            try:
                if time.monotonic() - counted >= COUNT_PERIOD:
                    counted = time.monotonic()
                    self.counts = await asyncio.to_thread(self.store.follow_counts, self.process, self.students())
                await self.tell()
            except Exception:  # the file is busy or gone for a moment: the next period tries again
                await asyncio.sleep(PERIOD)

    async def tell(self) -> None:
        codes = list(self.followers)
        versions = await asyncio.to_thread(self.store.versions, codes)
        for code in codes:
            group = self.followers.get(code)
            if not group:
                continue
            mark = versions.get(code)
            if mark is None:  # ended or expired
                for follower in group:
                    follower.give({"code": code, "ended": True})
                continue
            before = self.seen.get(code)
            moved = before is None or before[0] != mark[0]
            leads = [follower for follower in group if follower.lead is not None]
            news = bool(leads) and (before != mark or self.told.get(code) != self.counts.get(code, 0))
            if not moved and not news:
                continue
            found = await asyncio.to_thread(self.store.find, code)
            if found is None:
                continue
            public = found.public()
            if moved:
                for follower in group:
                    if follower.lead is None:
                        follower.give(public)
            for follower in leads if news else ():
                try:
                    counts = await asyncio.to_thread(self.store.counts, code, follower.lead)
                except classroom.ClassError:
                    continue
                follower.give(dict(public, followers=self.counts.get(code, 0), counts=_jsonable(counts)))
            self.told[code] = self.counts.get(code, 0)
            self.seen[code] = mark


def _jsonable(counts: dict) -> dict:
    out = dict(counts, answers={str(k): v for k, v in counts["answers"].items()})
    if counts["before"] is not None:
        out["before"] = {str(k): v for k, v in counts["before"].items()}
    return out


class Guesses:
    """The unknown class codes each client address asked for in the last minute, bounded."""

    def __init__(self, limit: int = GUESSES, addresses: int = 10_000):
        self.limit, self.addresses = limit, addresses
        self.times: OrderedDict[str, deque] = OrderedDict()

    def allowed(self, address: str) -> bool:
        now = time.monotonic()
        seen = self.times.get(address)
        if seen is None:
            return True
        while seen and seen[0] < now - 60:
            seen.popleft()
        return len(seen) < self.limit

    def missed(self, address: str) -> None:
        seen = self.times.setdefault(address, deque())
        self.times.move_to_end(address)
        seen.append(time.monotonic())
        while len(self.times) > self.addresses:
            self.times.popitem(last=False)


def _sentence(text: str, status: int) -> JSONResponse:
    return JSONResponse({"error": text}, status_code=status, headers={"Cache-Control": "no-store"})


def _client(request: Request) -> str:
    peer = request.client.host if request.client else None
    return address_of(peer, request.headers.get("x-forwarded-for"))


async def _body(request: Request) -> dict | None:
    raw = await request.body()
    if len(raw) > MAX_BODY:
        return None
    try:
        value = json.loads(raw or b"{}")
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def routes(store: classroom.Store | None = None) -> list[Route]:
    """The class's routes, on ``store`` (this process's :func:`ui.classroom.store`); none, and
    no live class, when the classes' file cannot be opened (the app serves its pages anyway)."""
    try:
        store = store or classroom.store()
    except (OSError, sqlite3.Error) as error:
        print(f"No live classes on this server: their file could not be opened ({error}).", file=sys.stderr)
        return []
    hub = Hub(store)
    guesses = Guesses()

    def unknown(request: Request, code: str | None) -> JSONResponse:
        guesses.missed(_client(request))
        return _sentence(classroom._no_class(code or str(request.query_params.get("class", ""))), 404)

    async def events(request: Request) -> Response:
        client = _client(request)
        if not guesses.allowed(client):
            return _sentence("Too many class codes that do not exist: wait a minute, then try the link again.", 429)
        code = classroom.normal_code(request.query_params.get("class"))
        found = await asyncio.to_thread(store.find, code) if code else None
        if found is None:
            return unknown(request, code)
        key = request.query_params.get("key")
        if key is not None and not await asyncio.to_thread(store.is_lecturer, found.code, key):
            return _sentence("Only the lecturer's link sees the class's answers.", 403)
        if key is None and hub.counts.get(found.code, 0) >= classroom.MAX_FOLLOWERS:  # (a lecturer never waits)
            return _sentence(classroom.full_class(), 503)
        follower = Follower(found.code, key)
        hub.join(follower)
        follower.give(found.public())
        hub.nudge()  # the lecturer's first counts

        async def stream():
            try:
                yield f"retry: {RETRY_MS}\n\n".encode()
                while True:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(follower.ready.wait(), HEARTBEAT)
                    if not follower.ready.is_set():  # an event the browser hears (a comment it would not)
                        yield b"event: alive\ndata: {}\n\n"
                        continue
                    follower.ready.clear()
                    event = follower.latest
                    yield f"id: {event.get('version', 0)}\ndata: {json.dumps(event)}\n\n".encode()
                    if event.get("ended"):
                        return
            finally:
                hub.leave(follower)

        headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
        return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)

    async def posted(request: Request, unreadable: str, change, refused) -> Response:
        """A post to the class: its JSON body, ``change(code, body)`` done in a thread (the
        file may wait for another process), then this process's followers told at once."""
        code = classroom.normal_code(request.query_params.get("class")) or ""
        body = await _body(request)
        if body is None:
            return _sentence(unreadable, 400)
        try:
            done = await asyncio.to_thread(change, code, body)
        except classroom.ClassError as error:
            return _sentence(str(error), refused(str(error)))
        hub.nudge()
        return JSONResponse(done, headers={"Cache-Control": "no-store"})

    async def drive(request: Request) -> Response:
        key = request.headers.get("x-class-key", "")
        return await posted(
            request,
            "The lecturer's change could not be read.",
            lambda code, body: store.drive(code, key, **body).public(),
            lambda said: 404 if "no live class" in said else 403,
        )

    async def answer(request: Request) -> Response:
        return await posted(
            request,
            "The answer could not be read.",
            lambda code, body: (
                store.answer(code, body.get("ballot"), body.get("round"), body.get("answer")) or {"counted": True}
            ),
            lambda said: 409,
        )

    classroom.SERVED = True
    return [
        Route(f"/{ROUTE}class/events", events, methods=["GET"]),
        Route(f"/{ROUTE}class/drive", drive, methods=["POST"]),
        Route(f"/{ROUTE}class/answer", answer, methods=["POST"]),
    ]
