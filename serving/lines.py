"""How one app process serves a class: page scripts take turns (:class:`RunGate`), studies
are computed in a fair line with their place reported (:class:`FairQueue`), each key
computed once however many sessions ask at once, and the stores every session shares are
bounded by count and by the bytes of arrays they hold (:func:`bounded_get`).
:class:`Lines` puts them behind :class:`ui.compute.Plain`'s methods; :func:`install`
makes this process use them (``server.py``).  The measurements behind each choice are on
the performance page.
"""

from __future__ import annotations

import dataclasses
import gc
import os
import threading
import time
from collections import OrderedDict, deque
from contextlib import contextmanager

import numpy as np

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


def _cached(store, key):
    with _GUARD:
        if key in store:
            store.move_to_end(key)
            return True, store[key]
    return False, None


class RunGate:
    """Page scripts take turns: at most ``slots`` run at once, the others wait in the order
    they asked (first come, first served), so the first students of a class get their page
    first instead of all of them at the end.

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
        self._line = deque()  # waiting turns (an Event each), first come first
        self._holders = {}  # turn -> when it began (time.monotonic)
        self._local = threading.local()

    def _grant(self, now):
        """Give the free turns to the first in line (with the lock held)."""
        free = self.slots - sum(now - began < self.patience for began in self._holders.values())
        while free > 0 and self._line:
            turn = self._line.popleft()
            self._holders[turn] = now
            turn.set()
            free -= 1

    def _enter(self, first=False):
        turn = threading.Event()
        with self._lock:
            self._line.appendleft(turn) if first else self._line.append(turn)
            self._grant(time.monotonic())
        try:
            while not turn.wait(timeout=0.5):  # now and then: has a holder overstayed?
                with self._lock:
                    self._grant(time.monotonic())
        except BaseException:  # the session stopped while waiting: give the place up
            self._leave(turn)
            raise
        return turn

    def _leave(self, turn):
        with self._lock:
            if turn in self._holders:
                del self._holders[turn]
            elif turn in self._line:
                self._line.remove(turn)
            self._grant(time.monotonic())

    def waiting(self):
        """How many scripts wait for their turn now."""
        with self._lock:
            return len(self._line)

    @contextmanager
    def run(self):
        """Run a page script in its turn."""
        self._local.turn = self._enter()
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
            self._local.turn = self._enter(first=True)


def bounded_get(store, key, compute, limit, budget=None):
    """``store[key]``, computed by ``compute()`` when missing; ``store`` (an OrderedDict
    shared by all sessions) keeps the ``limit`` most recently used entries.  A key is
    computed by one session at a time: a class opening the same lesson at once waits for
    the first session's computation instead of repeating it.  ``budget``: the most bytes
    of arrays (:func:`footprint`) the entries may hold together (the newest always stays).
    Not cachetools: its caches bound one measure (a count, or a size), not both, and its
    ``cached`` cannot give the page script's turn up while a session waits."""
    found, value = _cached(store, key)
    if found:
        return value
    with RUNS.released():  # waiting for it or computing it: other pages run meanwhile
        return _computed_once(store, key, compute, limit, budget)


_SIZES = {}  # (store, key) -> footprint, for the stores kept to a budget


def _computed_once(store, key, compute, limit, budget=None):
    with _GUARD:
        lock = _COMPUTING.setdefault((id(store), key), threading.Lock())
    with lock:
        found, value = _cached(store, key)  # computed while this session waited
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
            _SIZES[(id(store), key)] = size
            while len(store) > 1 and (
                len(store) > limit
                or (budget is not None and sum(_SIZES.get((id(store), k), 0) for k in store) > budget)
            ):
                old, _ = store.popitem(last=False)
                _SIZES.pop((id(store), old), None)
            _COMPUTING.pop((id(store), key), None)
        return value


class FairQueue:
    """First come, first served: at most ``slots`` computations run at once, the others
    wait in the order they arrived and can tell how many are ahead of them.

    Why: sessions are threads of one process, so ten students asking for ten new studies
    at once would otherwise share the interpreter and all get their pages at the end of
    the burst; in turn, the first gets theirs after one study's time.  A session has at
    most one computation (its script runs one at a time, and a rerun leaves the line)."""

    def __init__(self, slots=1):
        self.slots = max(1, int(slots))
        self._changed = threading.Condition()
        self._line = []  # the waiting computations' tickets, first come first
        self._running = 0

    def _ahead(self, ticket):
        """How many computations must end before ``ticket``'s starts (0: it may start)."""
        return max(0, self._line.index(ticket) + self._running - self.slots + 1)

    def waiting(self):
        with self._changed:
            return len(self._line)

    @contextmanager
    def turn(self, report=None):
        """Wait for a turn; ``report(ahead)`` is called (outside the queue's lock) each
        time the number of computations ahead changes."""
        ticket, told = object(), None
        with self._changed:
            self._line.append(ticket)
        try:
            while True:
                with self._changed:
                    ahead = self._ahead(ticket)
                    if ahead == 0:
                        self._line.remove(ticket)
                        self._running += 1
                        break
                if report is not None and ahead != told:
                    report(ahead)
                    told = ahead
                with self._changed:
                    if self._ahead(ticket) == ahead:
                        self._changed.wait(timeout=1.0)
        except BaseException:  # the session left or reran while waiting: give the place up
            with self._changed:
                if ticket in self._line:
                    self._line.remove(ticket)
                self._changed.notify_all()
            raise
        try:
            yield
        finally:
            with self._changed:
                self._running -= 1
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
    """:class:`ui.compute.Plain` with the turns, the fair line and the byte-bounded stores."""

    def store(self, name):
        return shared(name)

    def cached(self, name, key):
        return _cached(shared(name), key)

    def kept(self, name, key, make, limit, budget=None):
        return bounded_get(shared(name), key, make, limit, budget)

    def computing(self, report=None):
        return QUEUE.turn(report)

    def building(self):
        return BUILDS.turn()

    def released(self):
        return RUNS.released()

    def page(self):
        return RUNS.run()

    def after_page(self):
        freeze_heap_once()


def install():
    """This process keeps and queues its work here (:data:`ui.compute.SERVING`)."""
    compute.install(Lines())
