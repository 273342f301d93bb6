"""A live class over HTTP: the students' players follow the lecturer's, and the class answers.

Four routes (``server.py`` adds them to Streamlit's), under the app's ``mpl/class/``:

- ``GET events?class=CODE`` -- the class as it changes, as server-sent events (the page
  reads them with ``fetch`` and reconnects by itself: a laptop waking from sleep, or a
  student whose app process was restarted, gets the class as it is now, first thing).  A
  student's stream is given a seat (a cookie only this route reads: ``HttpOnly``,
  ``SameSite=Strict``) that its answers must carry: one seat, one voice (:mod:`views.classroom`).
  With the lecturer's key in the ``X-Class-Key`` header (never in the address, which logs
  keep) the events also carry the class's answers and who follows.
- ``POST drive?class=CODE`` -- the lecturer's player: the step on screen, predict mode,
  the round's control (a countdown, close, reopen, show the answers, reveal, vote again) and
  the class's pace (its key in the ``X-Class-Key`` header).
- ``POST answer?class=CODE`` -- a student's answer to the round: a training point, or a
  question's choice.
- ``POST status?class=CODE`` -- a student's page says whether it explores on its own or
  follows (the lecturer's bar counts both).

Nothing a client sends can hurt the class (the tests of ``tests/test_class_guard.py`` try):
the posts are the app's own pages' only (``Origin``, ``Sec-Fetch-Site``, a JSON body), their
bodies refused from their length before they are read; the streams are bounded per class,
per client and in all, so that a client holding a thousand of them leaves the process the
files it needs for everyone else's pages; a client's misses (unknown codes, wrong keys,
answers from no seat) are limited per address -- the address the proxy appended, never one
a browser wrote -- and never stop anyone joining a class that exists.

The classes live in :mod:`views.classroom`'s SQLite file, which every process of ``make serve``
shares: the lecturer and a student may land on different processes.  Each process has one
watcher (:class:`Hub`) that reads the versions of the classes its own followers follow (every
:data:`PERIOD`; at once after a change made in this process), and sends each follower the
class when it changes -- the latest state, never a queue of old ones, so a slow student
skips to where the lecturer is -- and, every :data:`COUNT_PERIOD`, says which students it
holds, so that the lecturer's count is of the students present over every process.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import resource
import sqlite3
import sys
import time
from collections import Counter, OrderedDict

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from serving.clients import request_address, same_origin
from views import classroom
from views.player import ROUTE

PERIOD = 0.05  # seconds between a process's looks at its followers' classes (another process's changes)
COUNT_PERIOD = 1.0  # seconds between its counts of who follows
# Seconds of silence after which a stream says it is alive: a browser that hears nothing for
# longer reconnects (a laptop that slept may hold a connection that is dead).
HEARTBEAT = 15.0
RETRY_MS = 1000  # how soon a browser reconnects a dropped stream
BEHIND_AFTER = 2.0  # seconds a student may lack the class's latest change before the lecturer hears of it
#: The largest body a post may have: a lecturer's change with the longest address the app makes.
MAX_BODY = classroom.MAX_ADDRESS + 1_000
LECTURER_STREAMS = 4  # streams of one class's lecturer per process (a projector, a laptop, a phone...)
#: Streams one client address may hold in a process: a lecture hall behind one address (NAT)
#: is hundreds of students, in one class or two.
CLIENT_STREAMS = 2 * classroom.MAX_FOLLOWERS
#: Files a process keeps for everything but the class's streams (pages, static files, health,
#: its file of classes, and a burst of connections being refused): at least these, or half its
#: open-file limit; the streams take at most the rest.
RESERVED_FILES = 256
ANSWERS_PER_SECOND = 5  # a seat's answers (a student changing their mind; a script cannot flood)
SEAT_COOKIE = "mpl_seat_"  # + the class's code
UNREADABLE = "The class's record could not be read just now: the page tries again in a moment."


def raise_file_limit(wanted: int = 65_536) -> None:
    """Raise this process's open-file limit to what it may (at most ``wanted``): each
    stream of a live class holds one (``server.py`` calls this at start)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


def stream_limit() -> int:
    """The streams this process may hold at once: its open-file limit less what its pages,
    static files and health check need (:data:`RESERVED_FILES`, or half, the larger)."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        soft = 1 << 20
    return max(16, soft - max(RESERVED_FILES, soft // 2))


class Message:
    """An event as the streams send it, written once for all the followers it goes to (it
    was once per follower): with the view's address, and without it for a stream that was
    sent that view already (a lesson from a file travels in the address: tens of kilobytes
    for every student at every step otherwise).  Both name the view by a digest."""

    __slots__ = ("event", "version", "view", "full", "lean")

    def __init__(self, event: dict):
        self.event, self.version = event, event.get("version", 0)
        address = event.get("address")
        head = f"id: {self.version}\ndata: "
        if address is None:
            self.view = None
            self.full = self.lean = (head + json.dumps(event) + "\n\n").encode()
            return
        self.view = hashlib.sha1(address.encode()).hexdigest()[:16]
        named = dict(event, view=self.view)
        self.full = (head + json.dumps(named) + "\n\n").encode()
        del named["address"]
        self.lean = (head + json.dumps(named) + "\n\n").encode()


class Follower:
    """One open stream: the latest class it has not been sent yet (older ones are dropped)."""

    def __init__(self, code: str, lead: str | None, client: str, seat: str | None = None, replaced: int = 0):
        self.code, self.lead, self.client = code, lead, client
        self.seat = seat
        self.digest = classroom.seat_digest(seat) if seat is not None else None
        self.replaced = replaced  # the store's count of lost files when it joined
        self.latest: Message | None = None
        self.version = 0  # the version last given (a student is never given the same twice)
        self.delivered = 0  # the version last written to its connection
        self.view: str | None = None  # the view it was last sent
        self.ready = asyncio.Event()

    def give(self, message: Message) -> None:
        event = message.event
        if self.lead is None and not event.get("ended") and message.version <= self.version:
            return
        self.version = max(self.version, message.version)
        self.latest = message
        self.ready.set()

    def wire(self, message: Message) -> bytes:
        """``message`` as this stream sends it: the address only when its view is new here."""
        sent = message.lean if message.view is not None and message.view == self.view else message.full
        self.view = message.view or self.view
        return sent


class Hub:
    """This process's followers, by class, and the one task that tells them of changes."""

    def __init__(self, store: classroom.Store):
        self.store = store
        self.presence = classroom.Presence(store.folder)
        self.process = self.presence.name
        self.followers: dict[str, set[Follower]] = {}
        self.seen: dict[str, tuple[int, int]] = {}  # code -> the (version, answers) last sent
        self.since: dict[str, tuple[int, float]] = {}  # code -> (its version, when this process first saw it)
        self.counts: dict[str, dict[str, int]] = {}  # code -> {"present", "away", "behind"} over every process
        self.told: dict[str, tuple] = {}  # code -> what its lecturer was last told of who follows
        self.streams = 0  # open here, of every kind (and those being opened)
        self.by_client: Counter = Counter()
        self.leads: Counter = Counter()  # code -> its lecturer's streams here
        self.limit = stream_limit()
        self.wake: asyncio.Event | None = None
        self.task: asyncio.Task | None = None
        self.counting: asyncio.Task | None = None

    # -- the bounds ---------------------------------------------------------------------------

    def reserve(self, client: str, code: str, lead: bool) -> str | None:
        """Hold a place for a stream of ``client`` (the lecturer's of ``code`` when ``lead``),
        or the sentence why there is none."""
        if self.streams >= self.limit:
            return (
                "This server holds as many live-class connections as it can now. The page works on its own, "
                "and tries again in a moment."
            )
        if self.by_client[client] >= CLIENT_STREAMS:
            return f"This address already holds {CLIENT_STREAMS} live-class connections, its most."
        if lead and self.leads[code] >= LECTURER_STREAMS:
            return (
                f"This class's lecturer already has {LECTURER_STREAMS} screens following it here, its most: "
                "close one of them first."
            )
        self.streams += 1
        self.by_client[client] += 1
        if lead:
            self.leads[code] += 1
        return None

    def release(self, client: str, code: str, lead: bool) -> None:
        self.streams -= 1
        self.by_client[client] -= 1
        if not self.by_client[client]:
            del self.by_client[client]
        if lead:
            self.leads[code] -= 1
            if not self.leads[code]:
                del self.leads[code]

    # -- who follows --------------------------------------------------------------------------

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
                for kept in (self.seen, self.told, self.since):
                    kept.pop(follower.code, None)
        if follower.seat is not None:  # in a thread of its own: a cancelled stream cannot wait for it
            asyncio.get_running_loop().run_in_executor(
                None, _quietly, self.store.depart, follower.code, follower.seat, self.process
            )

    def nudge(self) -> None:
        """A change made in this process: look now, not at the next period."""
        if self.wake is not None:
            self.wake.set()

    def holding(self) -> dict[tuple[str, str], int]:
        """The seats whose streams are open here: ``{(code, seat digest): streams}``."""
        held: Counter = Counter()
        for code, group in self.followers.items():
            for follower in group:
                if follower.digest is not None:
                    held[(code, follower.digest)] += 1
        return dict(held)

    def behind(self) -> dict[str, int]:
        """Per class, its students here that have lacked its latest change for longer than
        :data:`BEHIND_AFTER` (a connection too slow to take it, or not taking anything)."""
        now = time.monotonic()
        out = {}
        for code, group in self.followers.items():
            version, since = self.since.get(code, (0, now))
            if now - since >= BEHIND_AFTER:
                late = sum(1 for f in group if f.lead is None and f.delivered < version)
                if late:
                    out[code] = late
        return out

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
                        await asyncio.to_thread(self.store.presence, self.process, {})
                    idle = True
                self.wake.clear()
                if not self.followers:  # (one may have joined while the count was written)
                    await self.wake.wait()
                continue
            idle = False
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), PERIOD)
            self.wake.clear()
            if time.monotonic() - counted >= COUNT_PERIOD and (self.counting is None or self.counting.done()):
                counted = (
                    time.monotonic()
                )  # beside the telling: a write waiting for another process's never delays a step
                self.counting = asyncio.get_running_loop().create_task(self.count())
            try:
                await self.tell()
            except Exception:  # the file is busy or gone for a moment: the next period tries again
                await asyncio.sleep(PERIOD)

    async def count(self) -> None:
        """Say what this process holds, and learn who follows over every process."""
        with contextlib.suppress(Exception):  # (busy or gone for a moment: the next count)
            self.counts = await asyncio.to_thread(self.store.presence, self.process, self.holding(), self.behind())
            self.nudge()

    async def tell(self) -> None:
        codes = list(self.followers)
        versions = await asyncio.to_thread(self.store.versions, codes)
        for code in codes:
            group = self.followers.get(code)
            if not group:
                continue
            mark = versions.get(code)
            if mark is None:  # ended or expired, or its file was lost
                for follower in group:
                    lost = self.store.replaced > follower.replaced
                    follower.give(Message({"code": code, "ended": True, **({"why": classroom.LOST} if lost else {})}))
                continue
            if self.since.get(code, (None,))[0] != mark[0]:
                self.since[code] = (mark[0], time.monotonic())
            before = self.seen.get(code)
            moved = before is None or before[0] != mark[0]
            leads = [follower for follower in group if follower.lead is not None]
            who = _who(self.counts.get(code))
            news = bool(leads) and (before != mark or self.told.get(code) != who)
            if not moved and not news:
                continue
            found = await asyncio.to_thread(self.store.find, code)
            if found is None:
                continue
            public = found.public()
            if moved:
                message = Message(public)  # written once for all its students
                for follower in group:
                    if follower.lead is None:
                        follower.give(message)
            for follower in leads if news else ():
                try:
                    counts = await asyncio.to_thread(self.store.counts, code, follower.lead)
                except classroom.ClassError:
                    continue
                follower.give(Message(dict(public, **who, counts=_jsonable(counts))))
            self.told[code] = who
            self.seen[code] = mark


def _who(counts: dict[str, int] | None) -> dict[str, int]:
    """What a lecturer is told of who follows: ``followers`` (present), ``away``
    (reconnecting), ``behind`` and ``exploring`` (present, on their own)."""
    counts = counts or {}
    return {
        "followers": counts.get("present", 0),
        "away": counts.get("away", 0),
        "behind": counts.get("behind", 0),
        "exploring": counts.get("exploring", 0),
    }


def _quietly(work, *args) -> None:
    with contextlib.suppress(Exception):
        work(*args)


def _jsonable(counts: dict) -> dict:
    out = dict(counts, answers={str(k): v for k, v in counts["answers"].items()})
    if counts["before"] is not None:
        out["before"] = {str(k): v for k, v in counts["before"].items()}
    return out


# --- requests ----------------------------------------------------------------------------------


class Refused(Exception):
    """A request the routes answer with a sentence (``status``), without doing it."""

    def __init__(self, text: str, status: int):
        super().__init__(text)
        self.text, self.status = text, status


def _sentence(text: str, status: int, close: bool = False) -> JSONResponse:
    """A refusal or an error as one sentence.  ``close``: the connection closes after it (a
    body left unread, or a client that must not hold the connection open)."""
    headers = {"Cache-Control": "no-store"}
    if close:
        headers["Connection"] = "close"
    if status in (429, 503):
        headers["Retry-After"] = "5"
    return JSONResponse({"error": text}, status_code=status, headers=headers)


async def _json_body(request: Request, unreadable: str) -> dict:
    """A post's JSON object, refused before it is read when its declared length is over
    :data:`MAX_BODY`, and while it is read once it passes it (a body without a length)."""
    length = request.headers.get("content-length")
    if length is not None:
        if not length.isdigit():
            raise Refused(unreadable, 400)
        if int(length) > MAX_BODY:
            raise Refused(f"{unreadable} It is longer than {MAX_BODY:,} bytes.", 413)
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise Refused(f"{unreadable} It was not sent as JSON.", 415)
    raw = bytearray()
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_BODY:
            raise Refused(f"{unreadable} It is longer than {MAX_BODY:,} bytes.", 413)
    try:
        value = json.loads(bytes(raw) or b"{}")
    except ValueError:
        raise Refused(unreadable, 400) from None
    if not isinstance(value, dict):
        raise Refused(unreadable, 400)
    return value


class _Stream(StreamingResponse):
    """A stream that calls ``closed()`` once it ends, however it ends: the client gone before
    its first byte too (its generator then never runs, and no ``finally`` in it would)."""

    def __init__(self, content, closed, **options):
        super().__init__(content, **options)
        self.closed = closed

    async def __call__(self, scope, receive, send):
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.closed()


class _Pace:
    """At most ``rate`` posts a second from each of the last ``kept`` seats."""

    def __init__(self, rate: int, kept: int = 20_000):
        self.rate, self.kept = rate, kept
        self.times: OrderedDict[str, list[float]] = OrderedDict()

    def allowed(self, name: str) -> bool:
        now = time.monotonic()
        times = [t for t in self.times.pop(name, []) if t > now - 1.0]
        allowed = len(times) < self.rate
        if allowed:
            times.append(now)
        self.times[name] = times
        while len(self.times) > self.kept:
            self.times.popitem(last=False)
        return allowed


def routes(store: classroom.Store | None = None) -> list[Route]:
    """The class's routes, on ``store`` (this process's :func:`views.classroom.store`); none, and
    no live class, when the classes' file cannot be opened (the app serves its pages anyway)."""
    try:
        store = store or classroom.store()
        hub = Hub(store)
    except (OSError, sqlite3.Error) as error:
        print(f"No live classes on this server: their file could not be opened ({error}).", file=sys.stderr)
        return []
    pace = _Pace(ANSWERS_PER_SECOND)

    def missed(client: str, text: str, status: int) -> Response:
        """A miss of ``client`` (refused ``status`` with ``text``), counted in the process's
        count (:data:`views.classroom.GUESSED`, the pages' too); past the limit the same
        refusal for every kind of miss."""
        guesses = classroom.GUESSED
        guesses.missed(client)
        if not guesses.allowed(client):
            return _sentence(classroom.TOO_MANY, 429, close=True)
        return _sentence(text, status)

    async def events(request: Request) -> Response:
        client = request_address(request)
        code = classroom.normal_code(request.query_params.get("class"))
        key = request.headers.get("x-class-key")
        lead = key is not None
        # a place first, from what this process counts: a stream past a bound is refused
        # before anything is read or opened for it (a burst of them must not take the files)
        refusal = hub.reserve(client, code or "", lead)
        if refusal is not None:
            return _sentence(refusal, 503, close=True)
        try:
            found = await asyncio.to_thread(store.find, code) if code else None
            if found is None:
                hub.release(client, code or "", lead)
                return missed(client, classroom._no_class(code or str(request.query_params.get("class", ""))), 404)
            if lead and not await asyncio.to_thread(store.is_lecturer, found.code, key):
                hub.release(client, found.code, lead)
                return missed(client, "Only the lecturer's link sees the class's answers.", 403)
            seat = None
            if not lead:
                cookie = request.cookies.get(SEAT_COOKIE + found.code)
                seat = await asyncio.to_thread(store.admit, found.code, cookie, hub.process)
        except classroom.ClassError as error:
            hub.release(client, found.code, lead)
            return _sentence(str(error), error.status, close=True)
        except (OSError, sqlite3.Error):
            hub.release(client, code or "", lead)
            return _sentence(UNREADABLE, 503, close=True)
        follower = Follower(found.code, key, client, seat, store.replaced)
        hub.join(follower)
        follower.give(Message(found.public()))
        hub.nudge()  # the lecturer's first counts

        async def stream():
            yield f"retry: {RETRY_MS}\n\n".encode()
            while True:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(HEARTBEAT):  # (no task made per wait, as wait_for made)
                        await follower.ready.wait()
                if not follower.ready.is_set():  # an event the page hears (a comment it would not)
                    yield b"event: alive\ndata: {}\n\n"
                    continue
                follower.ready.clear()
                message = follower.latest
                yield follower.wire(message)
                follower.delivered = message.version
                if message.event.get("ended"):
                    return

        def closed():
            hub.leave(follower)
            hub.release(client, follower.code, lead)

        headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
        response = _Stream(stream(), closed, media_type="text/event-stream", headers=headers)
        if seat is not None:  # the seat: sent back by this browser's stream and answers only
            response.set_cookie(
                SEAT_COOKIE + found.code,
                seat,
                max_age=int(classroom.LIFETIME),
                path=request.url.path.rsplit("/", 1)[0] + "/",
                httponly=True,
                samesite="strict",
            )
        return response

    async def posted(request: Request, unreadable: str, change, seat: str = "") -> Response:
        """A post to the class: its JSON body, ``change(code, body)`` done in a thread (the
        file may wait for another process), then this process's followers told at once.
        ``seat``: a student's, whose answers come at a bounded pace."""
        if not same_origin(request):
            return _sentence("The live class takes changes and answers from the app's own pages only.", 403, True)
        code = classroom.normal_code(request.query_params.get("class")) or ""
        try:
            body = await _json_body(request, unreadable)
        except Refused as refusal:
            return _sentence(refusal.text, refusal.status, close=refusal.status == 413)
        if seat and not pace.allowed(seat):
            return _sentence("Too many answers at once from this page: one is enough.", 429)
        try:
            done = await asyncio.to_thread(change, code, body)
        except classroom.ClassError as error:
            if error.status == 403:
                return missed(request_address(request), str(error), 403)
            return _sentence(str(error), error.status)
        except (OSError, sqlite3.Error):
            return _sentence(UNREADABLE, 503)
        hub.nudge()
        return JSONResponse(done, headers={"Cache-Control": "no-store"})

    async def drive(request: Request) -> Response:
        key = request.headers.get("x-class-key", "")
        return await posted(
            request,
            "The lecturer's change could not be read.",
            lambda code, body: store.drive(code, key, **body).public(),
        )

    async def from_seat(request: Request, unreadable: str, change) -> Response:
        """A student's post: ``change(code, seat, body)`` with the seat of the page's stream
        (its cookie), at the seat's bounded pace."""
        code = classroom.normal_code(request.query_params.get("class")) or ""
        seat = request.cookies.get(SEAT_COOKIE + code, "")
        return await posted(request, unreadable, lambda code, body: change(code, seat, body) or {"counted": True}, seat)

    async def answer(request: Request) -> Response:
        return await from_seat(
            request,
            "The answer could not be read.",
            lambda code, seat, body: store.answer(code, seat, body.get("round"), body.get("answer")),
        )

    async def status(request: Request) -> Response:
        return await from_seat(
            request,
            "The page's status could not be read.",
            lambda code, seat, body: store.explores(code, seat, body.get("exploring")),
        )

    classroom.SERVED = True
    return [
        Route(f"/{ROUTE}class/status", status, methods=["POST"]),
        Route(f"/{ROUTE}class/events", events, methods=["GET"]),
        Route(f"/{ROUTE}class/drive", drive, methods=["POST"]),
        Route(f"/{ROUTE}class/answer", answer, methods=["POST"]),
    ]
