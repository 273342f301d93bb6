"""How one app process serves a class: page scripts take turns (:class:`RunGate`), studies
are computed in a fair line with their place reported (:class:`FairQueue`), each in a child
process of its own (:mod:`serving.children`), each key computed once however many sessions
ask at once, and the stores every session shares are bounded by count and by the bytes of
arrays they hold (:func:`bounded_get`).

Every line is fair between clients (:mod:`serving.clients`: a connection's address, then
its session): clients take turns, so one client asking for thirty studies holds one
client's share of the line, and a store full of one client's studies gives those up before
the ones the class is using.  :class:`Lines` puts all this behind :class:`ui.compute.Plain`'s
methods; :func:`install` makes this process use them (``server.py``).  The measurements
behind each choice are on the performance page.
"""

from __future__ import annotations

import dataclasses
import gc
import itertools
import os
import threading
import time
from collections import Counter, OrderedDict
from contextlib import contextmanager

import numpy as np

from serving import children, clients
from serving.clients import SERVER
from ui import compute

_SHARED = {}  # name -> OrderedDict: the stores every session of this process shares
_SHARED_LOCK = threading.Lock()


def shared(name):
    """The process-wide store called ``name`` (an OrderedDict, made on first use).

    Not ``st.cache_resource``: any browser can send Streamlit's ``clear_cache`` message,
    which empties every cached resource for every user, and a student (or a stray click)
    would then make a whole class recompute its lessons.  These stores are bounded by their
    users (:func:`bounded_get`) and emptied only by restarting the process."""
    with _SHARED_LOCK:
        return _SHARED.setdefault(name, OrderedDict())


def footprint(value, seen=None, depth=0):
    """The bytes of the numpy arrays ``value`` holds (through dataclasses, dicts,
    sequences and attributes; each buffer counted once): what keeping it costs."""
    seen = set() if seen is None else seen
    if id(value) in seen or depth > 8:
        return 0
    seen.add(id(value))
    if isinstance(value, np.ndarray):
        base = value
        while isinstance(base.base, np.ndarray):
            base = base.base
        if base is not value:
            if id(base) in seen:
                return 0
            seen.add(id(base))
        return base.nbytes
    if isinstance(value, dict):
        items = value.values()
    elif isinstance(value, (list, tuple)):
        items = value
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        items = [getattr(value, item.name) for item in dataclasses.fields(value)]
    elif hasattr(value, "__dict__") and not isinstance(value, type):
        items = vars(value).values()
    else:
        return 0
    return sum(footprint(item, seen, depth + 1) for item in items)


_GUARD = threading.Lock()  # every shared store's reads and writes
_COMPUTING = {}  # (store, key) -> the lock its one computation holds
_USERS = {}  # (store, key) -> {client: when it last used the entry (time.monotonic)}
#: How long a client's use of a kept entry counts for keeping it, seconds: a lesson the
#: class is on is used every few minutes.
IN_USE = 1800.0
USERS_KEPT = 64  # clients remembered per entry (enough to tell a class's entry from one client's)


def _cached(store, key, client=None):
    with _GUARD:
        if key in store:
            store.move_to_end(key)
            if client is not None:
                _used(store, key, client)
            return True, store[key]
    return False, None


def _used(store, key, client):
    """Note that ``client`` used ``store[key]`` now (with the guard held)."""
    users = _USERS.setdefault((id(store), key), {})
    users.pop(client, None)
    users[client] = time.monotonic()
    while len(users) > USERS_KEPT:
        del users[next(iter(users))]


def _keeping(store, key, position, now):
    """How much the class needs ``store[key]``: the server's own entries (the lessons the
    lecturer warmed) first, then by how many addresses and sessions used it lately, then
    by how recently it was used (``position`` in the store, oldest 0).  The least is
    given up first."""
    users = [client for client, when in _USERS.get((id(store), key), {}).items() if now - when < IN_USE]
    return (
        SERVER in users,
        len({client.address for client in users}),
        len({client.session for client in users}),
        position,
    )


def _evict_one(store, keep):
    """Give up the entry of ``store`` the class needs least (never ``keep``): its key."""
    now = time.monotonic()
    candidates = [(key, position) for position, key in enumerate(store) if key != keep]
    old, _ = min(candidates, key=lambda item: _keeping(store, item[0], item[1], now))
    del store[old]
    _USERS.pop((id(store), old), None)
    return old


def fair_order(waiting, busy, served):
    """``waiting`` (entries with a ``client``, a :class:`~serving.clients.Client`, first come
    first) in the order they are served: addresses take turns -- the one with the fewest
    entries ``busy`` now first, then the one ``served`` longest ago -- and within an address
    its sessions take turns the same way; each session's own entries first come, first
    served.  ``busy``: a Counter of ``(level, name)``; ``served``: ``(level, name)`` -> a
    number that grows with time.

    A new address comes first (never served); a session new to its address counts as served
    when its address last was: it shares its address's share, so that a client opening
    session after session does not go ahead of the other sessions at its address (a
    student behind the same campus address)."""

    def ordered(entries, level, inherited=-1):
        if level == len(SERVER):
            return list(entries)
        groups = {}
        for entry in entries:
            groups.setdefault(entry.client[level], []).append(entry)
        last = {name: served.get((level, name), inherited) for name in groups}
        names = sorted(groups, key=lambda name: (busy[(level, name)], last[name]))
        turns = [ordered(groups[name], level + 1, last[name]) for name in names]
        return [turn[rank] for rank in range(max(map(len, turns), default=0)) for turn in turns if rank < len(turn)]

    return ordered(waiting, 0)


class _Waiting:
    """A place in a line: its client and the event set when its turn comes."""

    __slots__ = ("client", "event", "first")

    def __init__(self, client, first=False):
        self.client, self.event, self.first = client, threading.Event(), first


def _levels(client):
    return [(level, name) for level, name in enumerate(client)]


SERVED_KEPT = 4096  # clients a line remembers the last turn of (those in it are never forgotten)


def _forget_idle(served, places):
    """Bound ``served`` (when each client was last given a turn): past ``SERVED_KEPT``
    entries, keep only the clients of ``places`` (waiting or served now)."""
    if len(served) > SERVED_KEPT:
        present = {level for place in places for level in _levels(place.client)}
        for level in [level for level in served if level not in present]:
            del served[level]


class RunGate:
    """Page scripts take turns: at most ``slots`` run at once, the others wait in a line
    fair between clients (:func:`fair_order`), so the first students of a class get their
    page first instead of all of them at the end, and one client's thirty reruns do not
    stand between a student and their page.

    Why: a server's sessions are threads of one interpreter; 200 scripts at once share it
    round robin and all finish together; in turns, half of them are served in half the
    time, with less memory (the performance page).  A
    script that waits for something slow (a study being computed, an upload being read, a
    reproduction) gives its turn up meanwhile (:meth:`released`) and comes back at the head
    of the line; a turn held longer than ``patience`` seconds stops counting, so a slow
    script nobody foresaw delays the line by that much, not for as long as it runs."""

    def __init__(self, slots=1, patience=3.0):
        self.slots, self.patience = max(1, int(slots)), float(patience)
        self._lock = threading.Lock()
        self._line = []  # waiting places, first come first
        self._holders = {}  # place -> when its turn began (time.monotonic)
        self._served = {}  # (level, name) -> when it was last given a turn (a counter)
        self._clock = itertools.count()
        self._local = threading.local()

    def _grant(self, now):
        """Give the free turns to the line's first places (with the lock held): a script back
        from waiting first, then the others in their fair order."""
        counting = [place for place, began in self._holders.items() if now - began < self.patience]
        free = self.slots - len(counting)
        if free <= 0 or not self._line:
            return
        busy = Counter(level for place in counting for level in _levels(place.client))
        back = [place for place in self._line if place.first]
        order = back + fair_order([place for place in self._line if not place.first], busy, self._served)
        for place in order[:free]:
            self._line.remove(place)
            self._holders[place] = now
            for level in _levels(place.client):
                self._served[level] = next(self._clock)
            place.event.set()

    def _enter(self, client, first=False):
        place = _Waiting(client, first)
        with self._lock:
            self._line.append(place)
            self._grant(time.monotonic())
        try:
            while not place.event.wait(timeout=0.5):  # now and then: has a holder overstayed?
                with self._lock:
                    self._grant(time.monotonic())
        except BaseException:  # the session stopped while waiting: give the place up
            self._leave(place)
            raise
        return place

    def _leave(self, place):
        with self._lock:
            if place in self._holders:
                del self._holders[place]
            elif place in self._line:
                self._line.remove(place)
            self._grant(time.monotonic())
            _forget_idle(self._served, [*self._line, *self._holders])

    def waiting(self):
        """How many scripts wait for their turn now."""
        with self._lock:
            return len(self._line)

    @contextmanager
    def run(self, client=SERVER):
        """Run a page script of ``client`` in its turn."""
        self._local.turn = self._enter(client)
        try:
            yield
        finally:
            turn, self._local.turn = self._local.turn, None
            if turn is not None:
                self._leave(turn)

    @contextmanager
    def released(self):
        """Let others run while this script waits or computes; back at the head of the
        line afterwards.  Nothing to give up outside :meth:`run` (a test, a worker)."""
        turn = getattr(self._local, "turn", None)
        if turn is None:
            yield
            return
        self._local.turn = None
        self._leave(turn)
        try:
            yield
        finally:
            self._local.turn = self._enter(turn.client, first=True)


def bounded_get(store, key, compute, limit, budget=None, client=SERVER):
    """``store[key]``, computed by ``compute()`` when missing; ``store`` (an OrderedDict
    shared by all sessions) keeps at most ``limit`` entries.  A key is computed by one
    session at a time: a class opening the same lesson at once waits for the first
    session's computation instead of repeating it.  ``budget``: the most bytes of arrays
    (:func:`footprint`) the entries may hold together (the newest always stays).  Over a
    bound, the entry the class needs least goes first (:func:`_keeping`): one client's
    thirty studies give each other up before they touch a lesson the class is on.
    ``client``: who asks (:mod:`serving.clients`).
    Not cachetools: its caches bound one measure (a count, or a size), not both, evict by
    recency alone, and its ``cached`` cannot give the page script's turn up while a
    session waits."""
    found, value = _cached(store, key, client)
    if found:
        return value
    with RUNS.released():  # waiting for it or computing it: other pages run meanwhile
        return _computed_once(store, key, compute, limit, budget, client)


_SIZES = {}  # (store, key) -> footprint, for the stores kept to a budget


def _computed_once(store, key, compute, limit, budget=None, client=SERVER):
    with _GUARD:
        lock = _COMPUTING.setdefault((id(store), key), threading.Lock())
    with lock:
        found, value = _cached(store, key, client)  # computed while this session waited
        if found:
            return value
        try:
            value = compute()
        except BaseException:
            with _GUARD:
                _COMPUTING.pop((id(store), key), None)
            raise
        size = footprint(value) if budget is not None else 0
        with _GUARD:  # stored before the lock is dropped: a later session finds the value
            store[key] = value
            _used(store, key, client)
            _SIZES[(id(store), key)] = size
            while len(store) > 1 and (
                len(store) > limit
                or (budget is not None and sum(_SIZES.get((id(store), k), 0) for k in store) > budget)
            ):
                _SIZES.pop((id(store), _evict_one(store, key)), None)
            _COMPUTING.pop((id(store), key), None)
        return value


class FairQueue:
    """At most ``slots`` computations run at once; the others wait in a line fair between
    clients (:func:`fair_order`) and can tell how many are ahead of them.

    Why a line: sessions are threads of one process, so ten students asking for ten new
    studies at once would otherwise all get their pages at the end of the burst; in turn,
    the first gets theirs after one study's time.  Why fair: first come, first served let
    one client's thirty expensive studies stand between every other student and theirs.
    A session has at most one computation (its script runs one at a time, and a rerun
    leaves the line)."""

    def __init__(self, slots=1):
        self.slots = max(1, int(slots))
        self._changed = threading.Condition()
        self._line = []  # the waiting computations' places, first come first
        self._places = set()  # the running computations' places
        self._running = Counter()  # (level, name) -> computations running
        self._running_all = 0
        self._served = {}  # (level, name) -> when one of its computations last started
        self._clock = itertools.count()

    def _ahead(self, place):
        """How many computations must end before ``place``'s starts (0: it may start)."""
        order = fair_order(self._line, self._running, self._served)
        return max(0, order.index(place) + self._running_all - self.slots + 1)

    def waiting(self):
        with self._changed:
            return len(self._line)

    def idle(self):
        """Whether a computation asked now would start at once, ahead of no one waiting."""
        with self._changed:
            return not self._line and self._running_all < self.slots

    @contextmanager
    def turn(self, report=None, client=SERVER):
        """Wait for ``client``'s turn; ``report(ahead)`` is called (outside the queue's lock)
        each time the number of computations ahead changes."""
        place, told = _Waiting(client), None
        with self._changed:
            self._line.append(place)
        try:
            while True:
                with self._changed:
                    ahead = self._ahead(place)
                    if ahead == 0:
                        self._line.remove(place)
                        self._places.add(place)
                        self._running_all += 1
                        for level in _levels(client):
                            self._running[level] += 1
                            self._served[level] = next(self._clock)
                        break
                if report is not None and ahead != told:
                    report(ahead)
                    told = ahead
                with self._changed:
                    if self._ahead(place) == ahead:
                        self._changed.wait(timeout=1.0)
        except BaseException:  # the session left or reran while waiting: give the place up
            with self._changed:
                if place in self._line:
                    self._line.remove(place)
                self._changed.notify_all()
            raise
        try:
            yield
        finally:
            with self._changed:
                self._places.discard(place)
                self._running_all -= 1
                for level in _levels(client):
                    self._running[level] -= 1
                    if not self._running[level]:
                        del self._running[level]
                _forget_idle(self._served, [*self._line, *self._places])
                self._changed.notify_all()


def _slots(value, default=1):
    try:
        return max(1, int(value))
    except (TypeError, ValueError):
        return default


def cores():
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


#: The page scripts' turns (``app.py``); MPLAB_RUN_SLOTS scripts at once (default 1: one
#: interpreter runs one script at a time anyway).
RUNS = RunGate(_slots(os.environ.get("MPLAB_RUN_SLOTS")))

# One computation per core at once by default (MPLAB_COMPUTE_SLOTS to change it; make serve
# gives each of its processes its share of the cores).  A computation holds the interpreter
# for a small part of its time (BLAS does the rest), so two cores compute two studies; with
# one at a time, the second core idled between payload builds (the performance page).
QUEUE = FairQueue(_slots(os.environ.get("MPLAB_COMPUTE_SLOTS"), default=cores()))
#: Building the players' payloads, one at a time, beside the computations.
BUILDS = FairQueue(1)


_FROZEN = threading.Event()


def freeze_heap_once():
    """After the process's first page run, move every object alive then -- the libraries'
    and the app's modules, most of the heap -- out of the garbage collector's scans
    (``gc.freeze``): the collections a class's sessions trigger walk only what they made.
    A cached page open costs less CPU (the performance page).  Objects frozen are
    still freed when nothing refers to them; only cycles among them are kept."""
    if not _FROZEN.is_set():
        _FROZEN.set()
        gc.freeze()


class Lines(compute.Plain):
    """:class:`ui.compute.Plain` with the turns, the fair line, the child processes and the
    byte-bounded stores, each fair between clients: the client of a page script is read
    once per run (:meth:`page`) and stays with its thread."""

    def __init__(self, in_children=True, namer=None):
        super().__init__()
        self.in_children = in_children
        self._namer = namer  # the routes' naming of payloads (serving.routes.name_for), or None
        self.routed = namer is not None
        self._local = threading.local()

    def payload_name(self, gz, addresses=(), page=None):
        return None if self._namer is None else self._namer(gz, addresses, page)

    def client(self):
        """The client whose page script this thread runs, or the server's own."""
        return getattr(self._local, "client", None) or SERVER

    def store(self, name):
        return shared(name)

    def cached(self, name, key):
        return _cached(shared(name), key, self.client())

    def kept(self, name, key, make, limit, budget=None):
        return bounded_get(shared(name), key, make, limit, budget, self.client())

    def computing(self, report=None):
        return QUEUE.turn(report, self.client())

    def run(self, settings, progress=None, drawn=None):
        if self.in_children:
            return children.compute(settings, progress, drawn)
        return super().run(settings, progress, drawn)

    def building(self):
        return BUILDS.turn(client=self.client())

    def released(self):
        return RUNS.released()

    @contextmanager
    def acting_for(self, client):
        self._local.client = client
        try:
            yield
        finally:
            self._local.client = None

    @contextmanager
    def page(self):
        self._local.client = clients.current()
        try:
            with RUNS.run(self._local.client):
                yield
        finally:
            self._local.client = None

    def after_page(self):
        freeze_heap_once()

    def client_address(self):
        return clients.current().address


def install(in_children=True, namer=None):
    """This process keeps and queues its work here (:data:`ui.compute.SERVING`), its
    studies computed in child processes (``in_children``; the fork server started now,
    from the server's start-up) and its payloads named by ``namer`` (see :class:`Lines`)."""
    if in_children:
        children.start()
    compute.install(Lines(in_children, namer))
