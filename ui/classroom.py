"""A live class: where the lecturer is, shared with every student who follows, and the
class's answers, counted.

A class is a short code (the students' link, ``?class=CODE``) and a key that only the
lecturer's link carries (``?class=CODE&key=KEY``).  Its state is one small record: the
address of the view the lecturer shows (page and settings, lesson scene, text size,
presenter mode), the step on screen, whether the class predicts the next pick or answers a
question, the round of answers and whether it is revealed.  Only the key changes it.

The answers are counted per round: each student's browser makes a random ballot of its
own for the class (no name, nothing else), so a changed answer replaces the first; a
class's counts go only to its own lecturer, and everything of a class is deleted when it
ends or expires.

The state lives in one SQLite file that every app process of a server opens (``make
serve`` runs several, behind a proxy that may send the lecturer and the students to
different ones): SQLite's locking makes the processes' writes safe, a commit survives a
killed process, and no other service has to run.  Each process tells its followers of a
change by reading the classes' versions (``serving/classes.py``).  No Streamlit here: the
pages, the serving layer and the tests share it.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
import sqlite3
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The letters of a class code: no 0/O, 1/I/L or U, which a student copying it from a
#: projector could read as another.
ALPHABET = "23456789ABCDEFGHJKMNPQRSTVWXYZ"
CODE_LENGTH = 8  # 30**8, about 6.6e11 codes (the serving layer limits how fast a client may guess)
MAX_CLASSES = 200  # live classes on one server
MAX_FOLLOWERS = 500  # students following one class
LIFETIME = 4 * 3600.0  # seconds a class lives after the lecturer's last change
MAX_ADDRESS = 8_000  # characters of an address (a lesson read from a file travels in it)
MAX_STEP = 100_000
MAX_CHOICES = 10
ENVIRONMENT = "MPLAB_CLASSES"  # where the classes' file is (make serve gives its processes one)
_BALLOT = re.compile(r"[A-Za-z0-9_-]{8,64}")


class ClassError(ValueError):
    """A request about a class that cannot be done; its message is the sentence to show."""


@dataclass(frozen=True)
class Class:
    """A class as a student sees it: its code, version (one more per change) and state."""

    code: str
    version: int
    state: dict[str, Any]

    def public(self, followers: int | None = None) -> dict[str, Any]:
        """What every follower is sent: the state, the code and the version."""
        sent = dict(self.state, code=self.code, version=self.version)
        if followers is not None:
            sent["followers"] = followers
        return sent


def new_code() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def normal_code(text: object) -> str | None:
    """The code ``text`` names (any case, with or without spaces and dashes), or None when
    it cannot be one."""
    code = re.sub(r"[\s-]", "", str(text or "")).upper()
    if len(code) != CODE_LENGTH or any(letter not in ALPHABET for letter in code):
        return None
    return code


def shown_code(code: str) -> str:
    """A code as the projector shows it: two groups of four."""
    return f"{code[:4]} {code[4:]}"


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def default_path() -> Path:
    """The classes' file: the environment's (:data:`ENVIRONMENT`), else one per user in the
    system's temporary folder (never inside the install, which may be read-only)."""
    named = os.environ.get(ENVIRONMENT)
    if named:
        return Path(named)
    user = os.getuid() if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")
    return Path(tempfile.gettempdir()) / f"matching-pursuit-lab-{user}" / "classes.sqlite3"


SCHEMA = """
CREATE TABLE IF NOT EXISTS classes (
    code TEXT PRIMARY KEY, key TEXT NOT NULL, started REAL NOT NULL, touched REAL NOT NULL,
    version INTEGER NOT NULL, answers INTEGER NOT NULL DEFAULT 0, state TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS answers (
    code TEXT NOT NULL, round INTEGER NOT NULL, ballot TEXT NOT NULL, answer INTEGER NOT NULL,
    PRIMARY KEY (code, round, ballot));
CREATE TABLE IF NOT EXISTS followers (
    process TEXT NOT NULL, code TEXT NOT NULL, count INTEGER NOT NULL, seen REAL NOT NULL,
    PRIMARY KEY (process, code));
"""
FOLLOWERS_FRESH = 10.0  # seconds a process's count of followers holds (a killed one stops renewing it)


def first_state(address: str) -> dict[str, Any]:
    return {
        "address": address,
        "step": 0,
        "predict": False,
        "question": 0,  # the choices of the scene's multiple-choice question, 0: none
        "round": 1,
        "revealed": False,
        "vote": 1,  # 2 for a question's second vote (peer instruction)
        "ended": False,
    }


class Store:
    """The classes of a server, in the SQLite file ``path`` (``":memory:"``: this object's
    own, for a test).  Safe to use from any thread of any process."""

    def __init__(self, path: str | Path | None = None, clock=time.time):
        self.path = str(path) if path is not None else str(default_path())
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.clock = clock
        self._local = threading.local()
        self._shared: sqlite3.Connection | None = None
        self._shared_lock = threading.RLock()
        with self._shared_lock:
            self._connection().executescript(SCHEMA)

    def _connection(self) -> sqlite3.Connection:
        if self.path == ":memory:":  # one connection, shared under a lock
            if self._shared is None:
                self._shared = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
            return self._shared
        db = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(self.path, timeout=10, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")  # readers never wait for the writer
            db.execute("PRAGMA synchronous=NORMAL")  # a commit survives the process (not the machine's power)
            self._local.db = db
        return db

    class _Transaction:
        def __init__(self, store: Store, write: bool):
            self.store, self.begin = store, "BEGIN IMMEDIATE" if write else "BEGIN"

        def __enter__(self) -> sqlite3.Connection:
            self.store._shared_lock.acquire()
            try:
                self.db = self.store._connection()
                # a write waits for another process's (the timeout); a read, in WAL, for nobody
                self.db.execute(self.begin)
            except BaseException:
                self.store._shared_lock.release()
                raise
            return self.db

        def __exit__(self, kind, *_):
            try:
                self.db.execute("COMMIT" if kind is None else "ROLLBACK")
            finally:
                self.store._shared_lock.release()

    def _db(self, write: bool = True) -> Store._Transaction:
        """A transaction: one that writes, or (``write=False``) reads one state of the file."""
        return Store._Transaction(self, write)

    # -- the lecturer -------------------------------------------------------------------------

    def start(self, address: str) -> tuple[str, str]:
        """A new class showing ``address``: ``(code, key)``."""
        address = _address(address)
        now = self.clock()
        key = secrets.token_urlsafe(18)
        with self._db() as db:
            self._expire(db, now)
            live = db.execute("SELECT COUNT(*) FROM classes").fetchone()[0]
            if live >= MAX_CLASSES:
                raise ClassError(
                    f"This server already runs {MAX_CLASSES} live classes, its most. One ends when its "
                    f"lecturer ends it or after {LIFETIME / 3600:.0f} hours without a change."
                )
            while True:
                code = new_code()
                if db.execute("SELECT 1 FROM classes WHERE code = ?", (code,)).fetchone() is None:
                    break
            db.execute(
                "INSERT INTO classes (code, key, started, touched, version, state) VALUES (?, ?, ?, ?, 1, ?)",
                (code, _digest(key), now, now, json.dumps(first_state(address))),
            )
        return code, key

    def drive(self, code: str, key: str, **changes: Any) -> Class:
        """Change the class ``code`` as its lecturer (``key``): ``address``, ``step``,
        ``predict`` (on or off), ``question`` (the number of choices of the scene's
        question, 0 for none), ``reveal`` (the round's answers), ``again`` (a second vote
        on the question) or ``end``.  A new round of answers starts when the step, the
        address or the question changes, or predict mode is turned on.  Raises
        :class:`ClassError` for a wrong key or value."""
        wanted = _changes(changes)
        now = self.clock()
        with self._db() as db:
            found = self._row(db, code, now)
            if found is None:
                raise ClassError(_no_class(code))
            if not hmac.compare_digest(found["key"], _digest(str(key))):
                raise ClassError("Only the lecturer's link drives this class; this one has no key or a wrong one.")
            state = dict(found["state"])
            if wanted.pop("end", False):
                db.execute("DELETE FROM classes WHERE code = ?", (code,))
                db.execute("DELETE FROM answers WHERE code = ?", (code,))
                db.execute("DELETE FROM followers WHERE code = ?", (code,))
                return Class(code, found["version"] + 1, dict(state, ended=True))
            before = dict(state)
            new_round = False
            if wanted.pop("again", False) and (state["question"] or state["predict"]):
                state["vote"] = 2
                new_round = True
            if wanted.pop("reveal", False):
                state["revealed"] = True
            for name in ("address", "step", "question"):
                if name in wanted and wanted[name] != state[name]:
                    state[name] = wanted[name]
                    state["vote"] = 1
                    new_round = True
            if "predict" in wanted and wanted["predict"] != state["predict"]:
                state["predict"] = wanted["predict"]
                new_round = new_round or wanted["predict"]
            if new_round:
                state["round"] += 1
                state["revealed"] = False
            if state == before:
                return Class(code, found["version"], state)
            version = found["version"] + 1
            db.execute(
                "UPDATE classes SET state = ?, version = ?, touched = ? WHERE code = ?",
                (json.dumps(state), version, now, code),
            )
            db.execute("DELETE FROM answers WHERE code = ? AND round < ?", (code, state["round"] - 1))
        return Class(code, version, state)

    def counts(self, code: str, key: str) -> dict[str, Any]:
        """The answers of the class's current round and of the one before, for its lecturer
        only: ``{"round", "answers": {answer: n}, "answered", "before": {...} or None}``
        (``before``: a question's first vote, when this is the second)."""
        with self._db(write=False) as db:
            found = self._row(db, code, self.clock())
            if found is None:
                raise ClassError(_no_class(code))
            if not hmac.compare_digest(found["key"], _digest(str(key))):
                raise ClassError("Only the lecturer's link sees the class's answers.")
            state = found["state"]
            current = _round_counts(db, code, state["round"])
            before = _round_counts(db, code, state["round"] - 1) if state["vote"] == 2 else None
        return {"round": state["round"], "answers": current, "answered": sum(current.values()), "before": before}

    def is_lecturer(self, code: str, key: str) -> bool:
        """Whether ``key`` is the key of the live class ``code``."""
        with self._db(write=False) as db:
            found = self._row(db, code, self.clock())
        return found is not None and hmac.compare_digest(found["key"], _digest(str(key)))

    # -- the students -------------------------------------------------------------------------

    def find(self, code: str) -> Class | None:
        """The class ``code`` names, or None (no such class, or it ended or expired)."""
        code = normal_code(code) or ""
        db = self._connection()
        with self._shared_lock:
            row = db.execute("SELECT version, state, touched FROM classes WHERE code = ?", (code,)).fetchone()
        if row is None or row[2] < self.clock() - LIFETIME:
            return None
        return Class(code, row[0], json.loads(row[1]))

    def versions(self, codes: list[str]) -> dict[str, tuple[int, int]]:
        """``{code: (version, answers)}`` of the live classes among ``codes``: what a server
        process reads to learn which of its followers' classes changed."""
        if not codes:
            return {}
        db = self._connection()
        marks = ",".join("?" * len(codes))
        with self._shared_lock:
            rows = db.execute(f"SELECT code, version, answers FROM classes WHERE code IN ({marks})", codes).fetchall()
        return {code: (version, answers) for code, version, answers in rows}

    def answer(self, code: str, ballot: str, round_: int, answer: int) -> None:
        """Count a student's ``answer`` (a training point's index, or a question's choice,
        1-based) to the class's round ``round_``; the same ``ballot`` again replaces its
        answer.  Raises :class:`ClassError` with the sentence when it cannot count."""
        if not isinstance(ballot, str) or not _BALLOT.fullmatch(ballot):
            raise ClassError("This answer carries no ballot the class can count.")
        if isinstance(answer, bool) or not isinstance(answer, int) or not 0 <= answer <= MAX_STEP:
            raise ClassError("An answer is a training point or a choice, as a whole number.")
        with self._db() as db:
            found = self._row(db, code, self.clock())
            if found is None:
                raise ClassError(_no_class(code))
            state = found["state"]
            if not (state["predict"] or state["question"]):
                raise ClassError("The lecturer is not asking the class anything now.")
            if round_ != state["round"] or state["revealed"]:
                raise ClassError("This question is closed: the lecturer has moved on or revealed the answer.")
            if state["question"] and not 1 <= answer <= state["question"]:
                raise ClassError(f"This question has {state['question']} choices.")
            taken = db.execute("SELECT COUNT(*) FROM answers WHERE code = ? AND round = ?", (code, round_)).fetchone()[
                0
            ]
            if taken >= MAX_FOLLOWERS:
                raise ClassError(f"This round already has {MAX_FOLLOWERS} answers, a class's most.")
            db.execute(
                "INSERT INTO answers (code, round, ballot, answer) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (code, round, ballot) DO UPDATE SET answer = excluded.answer",
                (code, round_, _digest(ballot), answer),
            )
            db.execute("UPDATE classes SET answers = answers + 1 WHERE code = ?", (code,))

    # -- who follows --------------------------------------------------------------------------

    def follow_counts(self, process: str, counts: dict[str, int]) -> dict[str, int]:
        """Record that this ``process`` has ``counts[code]`` followers of each class now (its
        count of another class is dropped); returns every class's followers over all
        processes whose counts are fresh."""
        now = self.clock()
        with self._db() as db:
            db.execute("DELETE FROM followers WHERE process = ? OR seen < ?", (process, now - FOLLOWERS_FRESH))
            db.executemany(
                "INSERT INTO followers (process, code, count, seen) VALUES (?, ?, ?, ?)",
                [(process, code, count, now) for code, count in counts.items() if count > 0],
            )
            rows = db.execute("SELECT code, SUM(count) FROM followers GROUP BY code").fetchall()
        return {code: int(total) for code, total in rows}

    def followers(self, code: str) -> int:
        """How many students follow the class now, over every process."""
        db = self._connection()
        with self._shared_lock:
            row = db.execute(
                "SELECT SUM(count) FROM followers WHERE code = ? AND seen >= ?",
                (code, self.clock() - FOLLOWERS_FRESH),
            ).fetchone()
        return int(row[0] or 0)

    # -- keeping it small ---------------------------------------------------------------------

    def expire(self) -> int:
        """Delete the classes past their lifetime, with their answers; how many."""
        with self._db() as db:
            return self._expire(db, self.clock())

    def _expire(self, db: sqlite3.Connection, now: float) -> int:
        old = [row[0] for row in db.execute("SELECT code FROM classes WHERE touched < ?", (now - LIFETIME,))]
        for code in old:
            for table in ("classes", "answers", "followers"):
                db.execute(f"DELETE FROM {table} WHERE code = ?", (code,))
        return len(old)

    def _row(self, db: sqlite3.Connection, code: str, now: float) -> dict[str, Any] | None:
        row = db.execute("SELECT key, version, state, touched FROM classes WHERE code = ?", (code,)).fetchone()
        if row is None or row[3] < now - LIFETIME:
            return None
        return {"key": row[0], "version": row[1], "state": json.loads(row[2])}


def _round_counts(db: sqlite3.Connection, code: str, round_: int) -> dict[int, int]:
    rows = db.execute(
        "SELECT answer, COUNT(*) FROM answers WHERE code = ? AND round = ? GROUP BY answer", (code, round_)
    ).fetchall()
    return {int(answer): int(count) for answer, count in rows}


def full_class() -> str:
    return f"This class is full: {MAX_FOLLOWERS} students follow it already. The page works on its own."


def _no_class(code: str) -> str:
    return (
        f"There is no live class {shown_code(code) if normal_code(code) else repr(str(code)[:20])}: "
        "its lecturer may have ended it, or it expired. Ask for the class's link again."
    )


def _address(value: object) -> str:
    if not isinstance(value, str) or len(value) > MAX_ADDRESS or not value or value.startswith(("/", "http")):
        raise ClassError("A class shows one of the app's pages: its address was not one.")
    return value


def _changes(changes: dict[str, Any]) -> dict[str, Any]:
    """The lecturer's ``changes``, checked: each of a known name and type."""
    wanted: dict[str, Any] = {}
    for name, value in changes.items():
        if name == "address":
            wanted[name] = _address(value)
        elif name == "step":
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_STEP:
                raise ClassError(f"A step is a whole number from 0 to {MAX_STEP}.")
            wanted[name] = value
        elif name == "question":
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_CHOICES:
                raise ClassError(f"A question has from 2 to {MAX_CHOICES} choices (0: no question).")
            wanted[name] = value
        elif name in ("predict", "reveal", "again", "end"):
            if not isinstance(value, bool):
                raise ClassError(f"{name} is on or off (true or false).")
            wanted[name] = value
        else:
            raise ClassError(f"A class has no setting {str(name)[:30]!r}.")
    return wanted


_STORE: Store | None = None
_STORE_LOCK = threading.Lock()


def store() -> Store:
    """This process's :class:`Store` of the classes (:func:`default_path`)."""
    global _STORE
    with _STORE_LOCK:
        if _STORE is None:
            _STORE = Store()
        return _STORE


#: Whether this process serves the classes' routes (the serving layer sets it): without
#: them a class can be neither followed nor driven from the browser.
SERVED = False
