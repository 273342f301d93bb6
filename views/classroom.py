"""A live class: where the lecturer is, shared with every student who follows, and the
class's answers, counted.

A class is a short code (the students' link, ``?class=CODE``) and a key that only the
lecturer's link carries (``?class=CODE&key=KEY``).  Its state is one small record: the
address of the view the lecturer shows (page and settings, lesson scene, text size,
presenter mode), the step on screen, whether the class predicts the next pick or answers a
question, the round of answers and whether it is revealed.  Only the key changes it.

A student's page that joins the class (its stream of the class's events) is given a *seat*
by the server: a random token, kept by the browser for the class and sent back with its
answers.  One seat is one voice: an answer counts only with a seat this class gave, once
per seat per round (a changed answer replaces the first), so a script cannot stuff a
round with made-up ballots, and the seats a class gives are bounded by its students
(:data:`MAX_FOLLOWERS`), taken in one transaction, so a burst cannot overfill it.  Nothing
else is known of a student: no name, and the seat is stored hashed.  A class's counts go
only to its own lecturer, and everything of a class is deleted when it ends or expires.

Who follows is counted from the seats whose streams are open (:meth:`Store.presence`), over
every process: a student who reconnects keeps the seat and is counted once, and a process
that dies drops its students from the count at the next look of any other (each process
holds a lock on a file of its own, which the system releases when it dies).

The state lives in one SQLite file that every app process of a server opens (``make
serve`` runs several, behind a proxy that may send the lecturer and the students to
different ones): SQLite's locking makes the processes' writes safe, a commit survives a
killed process, and no other service has to run.  The file's folder must be the user's own
and private; a file that is deleted or damaged is made afresh, and every process notices and
says so (:data:`LOST`).  No Streamlit here: the pages, the serving layer and the tests share it.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import re
import secrets
import socket
import sqlite3
import stat
import sys
import tempfile
import threading
import time
from collections import OrderedDict, deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

try:  # the lock each process holds while it runs (not on Windows: there, counts expire instead)
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

from views import lessons

#: The letters of a class code: no 0/O, 1/I/L or U, which a student copying it from a
#: projector could read as another.
ALPHABET = "23456789ABCDEFGHJKMNPQRSTVWXYZ"
CODE_LENGTH = 8  # 30**8, about 6.6e11 codes
MAX_CLASSES = 200  # live classes on one server
MAX_CLASSES_PER_CLIENT = 10  # live classes one client address may have started
MAX_FOLLOWERS = 500  # students (seats) in one class
LIFETIME = 4 * 3600.0  # seconds a class lives after the lecturer's last change
#: Characters of an address: the longest the app makes, a lesson read from a file travelling
#: in it (its ``lesson=`` value, at most twice the lesson's bytes: views/lessons.py), with the page's settings.
MAX_ADDRESS = 2 * lessons.MAX_BYTES + 4_000
MAX_STEP = 100_000
MAX_CHOICES = 10
MAX_COUNTDOWN = 600  # seconds a vote's countdown may run
MAX_LABEL = 300  # characters of what a round asks (the report's line)
MAX_ROUNDS = 1_000  # rounds a class's report keeps (the oldest dropped first)
LATE = 1.0  # seconds an answer may arrive after its countdown ended (it was clicked in time)
PACES = ("free", "hold", "explore")
ENVIRONMENT = "MPLAB_CLASSES"  # where the classes' file is (make serve gives its processes one)
#: Seconds a student whose stream dropped stays in the class (counted as reconnecting, and
#: its answers count): a laptop waking, a process restarted, a Wi-Fi hiccup.
GRACE = 120.0
#: Seconds a process's open streams count without it saying so again (where the lock that
#: tells a dead process at once is not to be had: another machine, Windows).
FOLLOWERS_FRESH = 10.0
MAX_SEATS = 4 * MAX_FOLLOWERS  # seats a class remembers (the oldest gone ones forgotten first)
GUESSES = 30  # unknown codes (or wrong keys, or answers from no seat) one address may try per minute
_SEAT = re.compile(r"[A-Za-z0-9_-]{16,64}")
SCHEMA_VERSION = 4  # a file of another version holds no class this version can read: made afresh

#: What a page says when the file of classes was lost (deleted, or damaged and set aside).
LOST = (
    "The server lost its record of live classes (its file was deleted or damaged), so this class "
    "has ended. The lecturer can start a new one."
)


class ClassError(ValueError):
    """A request about a class that cannot be done; its message is the sentence to show and
    ``status`` the HTTP status that says why (400 a bad value, 403 refused, 404 no such
    class, 409 closed, 503 full)."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


class Unavailable(OSError):
    """The classes' file cannot be used here; its message says why and what to do."""


@dataclass(frozen=True)
class Class:
    """A class as a student sees it: its code, version (one more per change) and state."""

    code: str
    version: int
    state: dict[str, Any]
    at: float = 0.0  # the server's clock when the state was read (a countdown's start for the page)

    def public(self, followers: int | None = None) -> dict[str, Any]:
        """What every follower is sent: the state (the right answer only once revealed),
        the code, the version and the server's clock (``now``: a countdown's time left is
        ``closes - now``, whatever the student's own clock says)."""
        sent = dict(first_state(""), **self.state, code=self.code, version=self.version, now=round(self.at, 3))
        if not sent["revealed"]:
            sent["right"] = 0
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


def seat_digest(seat: str) -> str:
    """How the file of classes names a seat (never the seat itself)."""
    return _digest(seat)


def default_path() -> Path:
    """The classes' file: the environment's (:data:`ENVIRONMENT`), else one per user in the
    user's runtime folder (``XDG_RUNTIME_DIR``, private to the user) or the system's
    temporary folder -- never inside the install, which may be read-only."""
    named = os.environ.get(ENVIRONMENT)
    if named:
        return Path(named)
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and Path(runtime).is_dir():
        return Path(runtime) / "matching-pursuit-lab" / "classes.sqlite3"
    user = os.getuid() if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")
    return Path(tempfile.gettempdir()) / f"matching-pursuit-lab-{user}" / "classes.sqlite3"


def private_folder(folder: Path) -> None:
    """Make ``folder`` (only the user can enter it), or check that it is the user's own and
    private: a folder another user made first (in a shared temporary folder) could be read,
    or its file swapped, by them.  :class:`Unavailable` with the sentence otherwise."""
    try:
        folder.mkdir(mode=0o700)
        created = True
    except FileExistsError:
        created = False
    except OSError as error:
        raise Unavailable(f"The live classes' folder {folder} could not be made ({error.strerror}).") from None
    if created:
        os.chmod(folder, 0o700)  # whatever the umask
    info = os.lstat(folder)
    how = f"set {ENVIRONMENT} to a file in a folder of your own"
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        raise Unavailable(f"The live classes' folder {folder} is not a folder of its own (a link?): {how}.")
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        raise Unavailable(f"The live classes' folder {folder} belongs to another user: {how}.")
    if hasattr(os, "getuid") and info.st_mode & 0o077:
        raise Unavailable(
            f"The live classes' folder {folder} is open to other users (mode {stat.S_IMODE(info.st_mode):o}): "
            f"run chmod 700 on it, or {how}."
        )


SCHEMA = """
CREATE TABLE IF NOT EXISTS classes (
    code TEXT PRIMARY KEY, key TEXT NOT NULL, client TEXT NOT NULL, started REAL NOT NULL,
    touched REAL NOT NULL, version INTEGER NOT NULL, answers INTEGER NOT NULL DEFAULT 0, state TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS answers (
    code TEXT NOT NULL, round INTEGER NOT NULL, seat TEXT NOT NULL, answer INTEGER NOT NULL,
    PRIMARY KEY (code, round, seat));
CREATE TABLE IF NOT EXISTS members (
    code TEXT NOT NULL, seat TEXT NOT NULL, process TEXT NOT NULL, streams INTEGER NOT NULL,
    seen REAL NOT NULL, exploring INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (code, seat, process));
CREATE INDEX IF NOT EXISTS members_by_process ON members (process, streams);
CREATE TABLE IF NOT EXISTS rounds (
    code TEXT NOT NULL, round INTEGER NOT NULL, record TEXT NOT NULL, PRIMARY KEY (code, round));
CREATE TABLE IF NOT EXISTS lags (
    process TEXT NOT NULL, code TEXT NOT NULL, behind INTEGER NOT NULL, seen REAL NOT NULL,
    PRIMARY KEY (process, code));
"""
_TABLES = ("classes", "answers", "members", "rounds", "lags", "followers")  # (followers: version 1's)
_OF_A_CLASS = ("classes", "answers", "members", "rounds")  # what a class's end deletes


def first_state(address: str) -> dict[str, Any]:
    return {
        "address": address,
        "step": 0,
        "predict": False,
        "question": 0,  # the choices of the scene's multiple-choice question, 0: none
        "round": 1,
        "revealed": False,
        "vote": 1,  # 2 for a question's second vote (peer instruction)
        "open": True,  # the round takes answers (until ``closes``, when set)
        "closes": None,  # when a countdown closes the round (the server's clock, seconds)
        "shown": False,  # the class's answers shown to the room (``results``)
        "results": None,  # what the room is shown: :func:`_results`, taken when shown or revealed
        "right": 0,  # the round's right answer (the choice, or the pick), the lecturer's; said once revealed
        "label": "",  # what the round asks, for the lecturer's report
        "pace": "free",  # "free", "hold" (on the lecturer's view) or "explore" (within ``range``)
        "range": None,  # [first, last] step a class exploring may take
        "ended": False,
    }


def _corrupt(error: sqlite3.Error) -> bool:
    """Whether ``error`` says the file is not (or no longer) a database SQLite can read."""
    code = getattr(error, "sqlite_errorcode", None)
    if code in (11, 26):  # SQLITE_CORRUPT, SQLITE_NOTADB
        return True
    said = str(error)
    return type(error) is sqlite3.DatabaseError and ("malformed" in said or "not a database" in said)


class Store:
    """The classes of a server, in the SQLite file ``path`` (``":memory:"``: this object's
    own, for a test).  Safe to use from any thread of any process."""

    def __init__(self, path: str | Path | None = None, clock=time.time):
        self.path = str(path) if path is not None else str(default_path())
        self.clock = clock
        self._local = threading.local()
        self._shared: sqlite3.Connection | None = None
        self._shared_lock = threading.RLock()
        self._writer = threading.Lock()
        #: How many times this store found its file replaced (deleted, or damaged and set aside).
        self.replaced = 0
        self._identity: tuple[int, int] | None = None
        if self.path != ":memory:":
            private_folder(Path(self.path).parent)
        with self._shared_lock:
            self._connection()

    # -- the file -----------------------------------------------------------------------------

    @property
    def folder(self) -> Path | None:
        return None if self.path == ":memory:" else Path(self.path).parent

    def _file_identity(self) -> tuple[int, int] | None:
        try:
            info = os.stat(self.path)
        except FileNotFoundError:
            return None
        return info.st_dev, info.st_ino

    def _connection(self) -> sqlite3.Connection:
        if self.path == ":memory:":  # one connection, shared under a lock
            if self._shared is None:
                self._shared = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
                self._shared.executescript(SCHEMA)
            return self._shared
        db = getattr(self._local, "db", None)
        if db is not None and self._file_identity() != getattr(self._local, "identity", None):
            # the file was deleted, or set aside and made again: this connection holds the old one
            with contextlib.suppress(sqlite3.Error):
                db.close()
            db = self._local.db = None
        if db is None:
            db = self._open()
        return db

    def _open(self) -> sqlite3.Connection:
        for attempt in range(2):
            db = None
            try:
                db = sqlite3.connect(self.path, timeout=10, isolation_level=None)
                db.execute("PRAGMA journal_mode=WAL")  # readers never wait for the writer
                db.execute("PRAGMA synchronous=NORMAL")  # a commit survives the process (not the machine's power)
                self._schema(db)
            except sqlite3.DatabaseError as error:
                if db is not None:
                    db.close()
                if attempt or not _corrupt(error):
                    raise
                self._set_aside()
                continue
            identity = self._file_identity()
            if self._identity is not None and identity != self._identity:
                self.replaced += 1  # another process (or this one) made the file afresh
            self._identity = identity
            self._local.db, self._local.identity = db, identity
            return db
        raise AssertionError("unreachable")

    def _schema(self, db: sqlite3.Connection) -> None:
        """The tables, made once per file (a file of another version's made afresh)."""
        if db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION:
            return
        db.execute("BEGIN IMMEDIATE")
        try:
            if db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
                for table in _TABLES:
                    db.execute(f"DROP TABLE IF EXISTS {table}")
                for statement in SCHEMA.split(";"):
                    if statement.strip():
                        db.execute(statement)
                db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _set_aside(self) -> None:
        """The file is not a database: move it (and its journal) aside, under a lock shared by
        the processes so that only the first to notice does it, and say so in the log."""
        folder = Path(self.path).parent
        with _folder_lock(folder):
            try:  # another process may have made it afresh meanwhile
                probe = sqlite3.connect(self.path, timeout=10)
                try:
                    probe.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
                    return
                finally:
                    probe.close()
            except sqlite3.DatabaseError:
                pass
            aside = f"{self.path}.damaged-{time.strftime('%Y%m%dT%H%M%S')}-{secrets.token_hex(2)}"
            for suffix in ("", "-wal", "-shm"):
                with contextlib.suppress(FileNotFoundError):
                    os.replace(self.path + suffix, aside + suffix)
        print(f"The live classes' file {self.path} was damaged: set aside as {aside}, made afresh.", file=sys.stderr)

    def _lock(self, write: bool):
        """What a transaction holds in this process: the one connection of a store in memory;
        a file's writers one at a time (a writer waiting here is woken as the other ends,
        where SQLite would have it sleep and try again); a file's readers nothing (in WAL
        they never wait: a step is read while this process writes who follows)."""
        if self.path == ":memory:":
            return self._shared_lock
        return self._writer if write else contextlib.nullcontext()

    class _Transaction:
        def __init__(self, store: Store, write: bool):
            self.store, self.begin = store, "BEGIN IMMEDIATE" if write else "BEGIN"
            self.lock = store._lock(write)

        def __enter__(self) -> sqlite3.Connection:
            self.lock.__enter__()
            try:
                self.db = self.store._connection()
                # a write waits for another process's (the timeout); a read, in WAL, for nobody
                self.db.execute(self.begin)
            except BaseException:
                self.lock.__exit__(None, None, None)
                raise
            return self.db

        def __exit__(self, kind, *_):
            try:
                self.db.execute("COMMIT" if kind is None else "ROLLBACK")
            except sqlite3.Error:
                if kind is None:
                    raise
            finally:
                self.lock.__exit__(None, None, None)

    def _db(self, write: bool = True) -> Store._Transaction:
        """A transaction: one that writes, or (``write=False``) reads one state of the file."""
        return Store._Transaction(self, write)

    def _guarded(self, work):
        """``work()``, once more on a file made afresh when this one turns out damaged."""
        try:
            return work()
        except sqlite3.DatabaseError as error:
            if not _corrupt(error) or self.path == ":memory:":
                raise
            with contextlib.suppress(sqlite3.Error, AttributeError):
                self._local.db.close()
            self._local.db = None
            self._set_aside()
            return work()

    # -- the lecturer -------------------------------------------------------------------------

    def start(self, address: str, client: str | None = None) -> tuple[str, str]:
        """A new class showing ``address``, started by the client address ``client``:
        ``(code, key)``."""
        address = _address(address)
        owner = _digest(f"client:{client or ''}")

        def start():
            now = self.clock()
            key = secrets.token_urlsafe(18)
            with self._db() as db:
                self._expire(db, now)
                live = db.execute("SELECT COUNT(*) FROM classes").fetchone()[0]
                if live >= MAX_CLASSES:
                    raise ClassError(
                        f"This server already runs {MAX_CLASSES} live classes, its most. One ends when its "
                        f"lecturer ends it or after {LIFETIME / 3600:.0f} hours without a change.",
                        503,
                    )
                mine = db.execute("SELECT COUNT(*) FROM classes WHERE client = ?", (owner,)).fetchone()[0]
                if client is not None and mine >= MAX_CLASSES_PER_CLIENT:
                    raise ClassError(
                        f"This computer's address has {mine} live classes running, its most: end one (its bar's "
                        f'"End the class"), or wait until one expires, {LIFETIME / 3600:.0f} hours after its last '
                        "change.",
                        429,
                    )
                while True:
                    code = new_code()
                    if db.execute("SELECT 1 FROM classes WHERE code = ?", (code,)).fetchone() is None:
                        break
                db.execute(
                    "INSERT INTO classes (code, key, client, started, touched, version, state) "
                    "VALUES (?, ?, ?, ?, ?, 1, ?)",
                    (code, _digest(key), owner, now, now, json.dumps(first_state(address))),
                )
            return code, key

        return self._guarded(start)

    def drive(self, code: str, key: str, /, **changes: Any) -> Class:
        """Change the class ``code`` as its lecturer (``key``).

        The view: ``address``, ``step``, ``predict`` (on or off), ``question`` (the number of
        choices of the scene's question, 0 for none).  A new round of answers starts when the
        step, the address or the question changes, or predict mode is turned on; ``again``
        starts a question's second vote (peer instruction).  The round: ``right`` (its right
        answer, said to the class once revealed) and ``label`` (what it asks, for the
        report); ``countdown`` (seconds until it closes; 0: none), ``open`` (take answers
        again, or close it without revealing), ``show`` (the class's answers on the board,
        which closes the vote), ``reveal`` (the right answer, which closes it too); taking
        answers again hides the board.  The students: ``pace`` ("free"; "hold", every
        student on this view; "explore", free within ``range``, a first and last step).
        ``end`` ends the class.

        Raises :class:`ClassError` for a bad value (400) and, with one sentence for both, for
        a class that is not there and a wrong key (403)."""
        wanted = _changes(changes)
        return self._guarded(lambda: self._drive(code, key, wanted))

    def _drive(self, code: str, key: str, wanted: dict[str, Any]) -> Class:
        now = self.clock()
        with self._db(write=False) as db:  # a wrong key is refused by a read (never waits for a writer)
            found = self._row(db, code, now)
        if found is None or not hmac.compare_digest(found["key"], _digest(str(key))):
            raise ClassError(NOT_DRIVEN, 403)
        with self._db() as db:
            found = self._row(db, code, now)
            if found is None or not hmac.compare_digest(found["key"], _digest(str(key))):
                raise ClassError(NOT_DRIVEN, 403)
            state = dict(first_state(""), **found["state"])
            if wanted.pop("end", False):
                for table in _OF_A_CLASS:
                    db.execute(f"DELETE FROM {table} WHERE code = ?", (code,))
                return Class(code, found["version"] + 1, dict(state, ended=True), now)
            before = dict(state)
            new_round = False
            if wanted.pop("again", False) and (state["question"] or state["predict"]):
                state["vote"] = 2
                new_round = True
            for name in ("address", "step", "question"):
                if name in wanted and wanted[name] != state[name]:
                    state[name] = wanted[name]
                    state["vote"] = 1
                    new_round = True
            if "predict" in wanted and wanted["predict"] != state["predict"]:
                state["predict"] = wanted["predict"]
                new_round = new_round or wanted["predict"]
            if new_round:
                if _asks(before):
                    _record(db, code, before, now)
                state.update(
                    round=state["round"] + 1, revealed=False, open=True, closes=None, shown=False, results=None
                )
                if state["vote"] == 1:
                    state.update(right=0, label="")
            for name in ("right", "label", "pace", "range"):
                if name in wanted:
                    state[name] = wanted[name]
            if "countdown" in wanted:  # (answers taken again: the board's snapshot would fall behind)
                seconds = wanted["countdown"]
                state.update(open=True, closes=round(now + seconds, 3) if seconds else None, shown=False)
            if "open" in wanted:
                state.update(open=wanted["open"], closes=None)
                if wanted["open"]:
                    state["shown"] = False
            if wanted.get("reveal"):
                state.update(revealed=True, open=False, closes=None)
            if "show" in wanted:
                state["shown"] = wanted["show"]
                if wanted["show"]:
                    state.update(open=False, closes=None)
            if state["closes"] is not None and state["closes"] <= now:  # a countdown that ran out
                state.update(open=False, closes=None)
            state["results"] = _results(db, code, state) if state["shown"] or state["revealed"] else None
            if state == before:
                return Class(code, found["version"], state, now)
            version = found["version"] + 1
            db.execute(
                "UPDATE classes SET state = ?, version = ?, touched = ? WHERE code = ?",
                (json.dumps(state), version, now, code),
            )
            db.execute("DELETE FROM answers WHERE code = ? AND round < ?", (code, state["round"] - 1))
        return Class(code, version, state, now)

    def counts(self, code: str, key: str) -> dict[str, Any]:
        """The answers of the class's current round and of the one before, for its lecturer
        only: ``{"round", "answers": {answer: n}, "answered", "before": {...} or None}``
        (``before``: a question's first vote, when this is the second)."""

        def counts():
            with self._db(write=False) as db:
                found = self._row(db, code, self.clock())
                if found is None or not hmac.compare_digest(found["key"], _digest(str(key))):
                    raise ClassError("Only the lecturer's link sees the class's answers.", 403)
                state = dict(first_state(""), **found["state"])
                current = _round_counts(db, code, state["round"])
                before = _round_counts(db, code, state["round"] - 1) if state["vote"] == 2 else None
                results = _results(db, code, dict(state, revealed=True))  # the lecturer knows the answer
            return {
                "round": state["round"],
                "answers": current,
                "answered": sum(current.values()),
                "before": before,
                "moved": results["moved"],
                "lost": results["lost"],
            }

        return self._guarded(counts)

    def report(self, code: str, key: str) -> list[dict[str, Any]]:
        """Every round of the class that someone answered, in order, for its lecturer only
        (the current one too, as it stands): each a record of :func:`_results` with its
        ``round``, ``vote``, ``label``, ``address``, ``step``, ``revealed`` and ``at``.  Counts
        only: nothing in it names a seat."""

        def report():
            with self._db(write=False) as db:
                found = self._row(db, code, self.clock())
                if found is None or not hmac.compare_digest(found["key"], _digest(str(key))):
                    raise ClassError("Only the lecturer's link has the class's report.", 403)
                rows = db.execute("SELECT record FROM rounds WHERE code = ? ORDER BY round", (code,)).fetchall()
                records = [json.loads(row[0]) for row in rows]
                state = dict(first_state(""), **found["state"])
                if _asks(state):
                    records = [r for r in records if r["round"] != state["round"]]
                    current = _round_record(db, code, state, self.clock())
                    if current["answers"]:
                        records.append(current)
            return records

        return self._guarded(report)

    def is_lecturer(self, code: str, key: str) -> bool:
        """Whether ``key`` is the key of the live class ``code``."""

        def check():
            with self._db(write=False) as db:
                found = self._row(db, code, self.clock())
            return found is not None and hmac.compare_digest(found["key"], _digest(str(key)))

        return self._guarded(check)

    # -- the students -------------------------------------------------------------------------

    def find(self, code: str) -> Class | None:
        """The class ``code`` names, or None (no such class, or it ended or expired)."""
        code = normal_code(code) or ""

        def find():
            with self._lock(write=False):
                row = (
                    self._connection()
                    .execute("SELECT version, state, touched FROM classes WHERE code = ?", (code,))
                    .fetchone()
                )
            now = self.clock()
            if row is None or row[2] < now - LIFETIME:
                return None
            return Class(code, row[0], json.loads(row[1]), now)

        return self._guarded(find)

    def versions(self, codes: list[str]) -> dict[str, tuple[int, int]]:
        """``{code: (version, answers)}`` of the live classes among ``codes``: what a server
        process reads to learn which of its followers' classes changed."""
        if not codes:
            return {}
        marks = ",".join("?" * len(codes))

        def versions():
            with self._lock(write=False):
                rows = (
                    self._connection()
                    .execute(f"SELECT code, version, answers FROM classes WHERE code IN ({marks})", codes)
                    .fetchall()
                )
            return {code: (version, answers) for code, version, answers in rows}

        return self._guarded(versions)

    def admit(self, code: str, seat: str | None, process: str) -> str:
        """A student's stream of the class ``code`` opens in ``process``, with the ``seat`` its
        browser was given before (None or unknown: a new one, if the class has room): the
        seat, to keep.  A seat present or lately gone is the same student again, never
        counted twice.  :class:`ClassError` when there is no such class (404) or it is full (503)."""
        return self._guarded(lambda: self._admit(code, seat, process))

    def _admit(self, code: str, seat: str | None, process: str) -> str:
        now = self.clock()
        with self._db() as db:
            if self._row(db, code, now) is None:
                raise ClassError(_no_class(code), 404)
            counted = "code = ? AND (streams > 0 OR seen > ?)"
            known = None
            if isinstance(seat, str) and _SEAT.fullmatch(seat):
                known = db.execute(
                    f"SELECT 1 FROM members WHERE {counted} AND seat = ? LIMIT 1", (code, now - GRACE, _digest(seat))
                ).fetchone()
            if known is None:  # a new student, or one gone long enough to count again
                present = db.execute(f"SELECT COUNT(DISTINCT seat) FROM members WHERE {counted}", (code, now - GRACE))
                if present.fetchone()[0] >= MAX_FOLLOWERS:
                    raise ClassError(full_class(), 503)
                seat = secrets.token_urlsafe(18)  # the server's, never one a client made up
                remembered = db.execute("SELECT COUNT(*) FROM members WHERE code = ?", (code,)).fetchone()[0]
                if remembered >= MAX_SEATS:  # forget the gone seats seen longest ago
                    db.execute(
                        "DELETE FROM members WHERE rowid IN (SELECT rowid FROM members WHERE code = ? AND streams = 0 "
                        "ORDER BY seen LIMIT ?)",
                        (code, remembered - MAX_SEATS + 1),
                    )
            db.execute(
                "INSERT INTO members (code, seat, process, streams, seen) VALUES (?, ?, ?, 1, ?) "
                "ON CONFLICT (code, seat, process) DO UPDATE SET streams = streams + 1, seen = excluded.seen",
                (code, _digest(str(seat)), process, now),
            )
        return str(seat)

    def depart(self, code: str, seat: str, process: str) -> None:
        """A student's stream of ``code`` in ``process`` closed (the seat stays for :data:`GRACE`)."""

        def depart():
            with self._db() as db:
                db.execute(
                    "UPDATE members SET streams = MAX(streams - 1, 0), seen = ? "
                    "WHERE code = ? AND seat = ? AND process = ?",
                    (self.clock(), code, _digest(seat), process),
                )

        self._guarded(depart)

    def explores(self, code: str, seat: str, exploring: bool) -> None:
        """The student in ``seat`` says whether they explore on their own (a step or view of
        their own) or follow the lecturer: the lecturer's bar counts both.
        :class:`ClassError` (403) for a seat the class did not give."""
        if not isinstance(exploring, bool):
            raise ClassError("exploring is on or off (true or false).")

        def explores():
            now = self.clock()
            with self._db() as db:
                if self._seated(db, code, seat, now) is None:
                    raise ClassError(NO_SEAT, 403)
                db.execute(
                    "UPDATE members SET exploring = ? WHERE code = ? AND seat = ?",
                    (int(exploring), code, _digest(seat)),
                )

        self._guarded(explores)

    def answer(self, code: str, seat: str, round_: int, answer: int) -> None:
        """Count the ``answer`` of the student in ``seat`` (a training point's index, or a
        question's choice, 1-based) to the class's round ``round_``; the same seat again
        replaces its answer.  :class:`ClassError` with the sentence when it cannot count:
        a bad value (400), no such class or a seat it did not give (one sentence for both,
        403), a round closed (409)."""
        if isinstance(round_, bool) or not isinstance(round_, int):
            raise ClassError("An answer names its round, as a whole number.")
        if isinstance(answer, bool) or not isinstance(answer, int) or not 0 <= answer <= MAX_STEP:
            raise ClassError("An answer is a training point or a choice, as a whole number.")
        return self._guarded(lambda: self._answer(code, seat, round_, answer))

    def _seated(self, db: sqlite3.Connection, code: str, seat: str, now: float) -> dict[str, Any] | None:
        """The class ``code`` (its row) when ``seat`` is one of its students', else None."""
        found = self._row(db, code, now)
        if found is None or not isinstance(seat, str) or _SEAT.fullmatch(seat) is None:
            return None
        sat = db.execute(
            "SELECT 1 FROM members WHERE code = ? AND seat = ? AND (streams > 0 OR seen > ?) LIMIT 1",
            (code, _digest(seat), now - GRACE),
        ).fetchone()
        return found if sat is not None else None

    def _answer(self, code: str, seat: str, round_: int, answer: int) -> None:
        now = self.clock()
        with self._db(write=False) as db:  # no seat: refused by a read (never waits for a writer)
            seated = self._seated(db, code, seat, now) is not None
        if not seated:
            raise ClassError(NO_SEAT, 403)
        with self._db() as db:
            found = self._seated(db, code, seat, now)
            if found is None:
                raise ClassError(NO_SEAT, 403)
            state = found["state"]
            if not (state["predict"] or state["question"]):
                raise ClassError("The lecturer is not asking the class anything now.", 409)
            if round_ != state["round"] or state["revealed"]:
                raise ClassError("This question is closed: the lecturer has moved on or revealed the answer.", 409)
            closes = state.get("closes")
            if not state.get("open", True) or (closes is not None and now > closes + LATE):
                raise ClassError("The vote is closed: the lecturer closed it, or its time ran out.", 409)
            if state["question"] and not 1 <= answer <= state["question"]:
                raise ClassError(f"This question has {state['question']} choices.")
            db.execute(
                "INSERT INTO answers (code, round, seat, answer) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (code, round, seat) DO UPDATE SET answer = excluded.answer",
                (code, round_, _digest(seat), answer),
            )
            db.execute("UPDATE classes SET answers = answers + 1 WHERE code = ?", (code,))

    # -- who follows --------------------------------------------------------------------------

    def presence(
        self, process: str, holding: dict[tuple[str, str], int], behind: dict[str, int] | None = None
    ) -> dict[str, dict[str, int]]:
        """This ``process`` is alive and holds ``holding[(code, seat)]`` open streams of each
        seat (:func:`seat_digest`), its other seats none; ``behind[code]``: its students the
        class's latest change has not reached yet.  Drops the students of dead processes
        (:func:`alive`) and of silent ones; returns, per class, its students ``present`` (a
        stream open), ``away`` (reconnecting: gone less than :data:`GRACE` ago) and
        ``behind``, over every process."""
        return self._guarded(lambda: self._presence(process, holding, behind or {}))

    def _presence(self, process: str, holding: dict[tuple[str, str], int], behind: dict[str, int]):
        now = self.clock()
        with self._db() as db:
            # what this process holds, said again (a row a slow look let go stale comes back)
            db.execute("UPDATE members SET streams = 0, seen = ? WHERE process = ? AND streams > 0", (now, process))
            db.executemany(
                "UPDATE members SET streams = ?, seen = ? WHERE code = ? AND seat = ? AND process = ?",
                [(count, now, code, seat, process) for (code, seat), count in holding.items() if count > 0],
            )
            others = [row[0] for row in db.execute("SELECT DISTINCT process FROM members WHERE streams > 0")]
            for other in others:
                if other != process and alive(self.folder, other) is False:
                    db.execute("UPDATE members SET streams = 0, seen = ? WHERE process = ?", (now, other))
                    db.execute("DELETE FROM lags WHERE process = ?", (other,))
            db.execute("UPDATE members SET streams = 0 WHERE streams > 0 AND seen < ?", (now - FOLLOWERS_FRESH,))
            db.execute("DELETE FROM members WHERE streams = 0 AND seen < ?", (now - LIFETIME,))
            db.execute("DELETE FROM lags WHERE process = ? OR seen < ?", (process, now - FOLLOWERS_FRESH))
            db.executemany(
                "INSERT INTO lags (process, code, behind, seen) VALUES (?, ?, ?, ?)",
                [(process, code, count, now) for code, count in behind.items() if count > 0],
            )
            rows = db.execute(
                "SELECT code, COUNT(DISTINCT CASE WHEN streams > 0 THEN seat END), COUNT(DISTINCT seat), "
                "COUNT(DISTINCT CASE WHEN streams > 0 AND exploring THEN seat END) "
                "FROM members WHERE streams > 0 OR seen > ? GROUP BY code",
                (now - GRACE,),
            ).fetchall()
            lags = dict(db.execute("SELECT code, SUM(behind) FROM lags GROUP BY code").fetchall())
        out = {
            code: {"present": int(here), "away": int(total - here), "behind": 0, "exploring": int(exploring)}
            for code, here, total, exploring in rows
        }
        for code, count in lags.items():
            out.setdefault(code, {"present": 0, "away": 0, "behind": 0, "exploring": 0})["behind"] = int(count)
        return out

    def students(self, code: str) -> int:
        """How many students are in the class now (a stream open, or gone less than
        :data:`GRACE` ago), over every process: what its cap counts."""

        def students():
            with self._lock(write=False):
                row = (
                    self._connection()
                    .execute(
                        "SELECT COUNT(DISTINCT seat) FROM members WHERE code = ? AND (streams > 0 OR seen > ?)",
                        (code, self.clock() - GRACE),
                    )
                    .fetchone()
                )
            return int(row[0] or 0)

        return self._guarded(students)

    # -- keeping it small ---------------------------------------------------------------------

    def expire(self) -> int:
        """Delete the classes past their lifetime, with their answers; how many."""

        def expire():
            with self._db() as db:
                return self._expire(db, self.clock())

        return self._guarded(expire)

    def _expire(self, db: sqlite3.Connection, now: float) -> int:
        old = [row[0] for row in db.execute("SELECT code FROM classes WHERE touched < ?", (now - LIFETIME,))]
        for code in old:
            for table in _OF_A_CLASS:
                db.execute(f"DELETE FROM {table} WHERE code = ?", (code,))
        return len(old)

    def _row(self, db: sqlite3.Connection, code: str, now: float) -> dict[str, Any] | None:
        row = db.execute("SELECT key, version, state, touched FROM classes WHERE code = ?", (code,)).fetchone()
        if row is None or row[3] < now - LIFETIME:
            return None
        return {"key": row[0], "version": row[1], "state": json.loads(row[2])}


# --- the processes: each holds a lock while it runs ---------------------------------------------


@contextlib.contextmanager
def _folder_lock(folder: Path):
    """The processes' lock on the classes' folder (around setting a damaged file aside)."""
    if fcntl is None:
        yield
        return
    handle = os.open(folder / "classes.lock", os.O_CREAT | os.O_RDWR, 0o600)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)


class Presence:
    """This process's mark on the classes' folder: a file it holds locked for as long as it
    runs (the system releases the lock when the process dies, however it dies), so that
    another process can tell at once that it is gone (:func:`alive`).  ``name``: how the
    process is named in the file of classes."""

    def __init__(self, folder: Path | None):
        self.name = f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(4)}"
        self.handle = None
        if folder is None or fcntl is None:
            return
        marks = folder / "processes"
        marks.mkdir(mode=0o700, exist_ok=True)
        for mark in marks.glob("*.lock"):  # the marks of processes gone since (each checked, and removed)
            alive(folder, mark.stem)
        self.handle = os.open(marks / f"{self.name}.lock", os.O_CREAT | os.O_RDWR, 0o600)
        fcntl.flock(self.handle, fcntl.LOCK_EX | fcntl.LOCK_NB)


def alive(folder: Path | None, name: str) -> bool | None:
    """Whether the process ``name`` (its :class:`Presence`) still runs: False once its lock
    is free (its mark is then removed), None where it cannot be told (no mark: another
    machine, or no locks here)."""
    if folder is None or fcntl is None or not re.fullmatch(r"[\w.-]+", name):
        return None
    path = folder / "processes" / f"{name}.lock"
    try:
        handle = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        return None
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(handle)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
    return False


# --- guessing --------------------------------------------------------------------------------


class Guesses:
    """The misses each client address made in the last minute (a class code that does not
    exist, a wrong key, an answer from no seat), bounded: past :data:`GUESSES` of them, the
    address is refused further misses for a while -- never a class that exists."""

    def __init__(self, limit: int = GUESSES, addresses: int = 10_000, clock=time.monotonic):
        self.limit, self.addresses, self.clock = limit, addresses, clock
        self.times: OrderedDict[str, deque] = OrderedDict()
        self._lock = threading.Lock()

    def allowed(self, address: str) -> bool:
        """Whether ``address`` may miss again now."""
        now = self.clock()
        with self._lock:
            seen = self.times.get(address)
            if seen is None:
                return True
            while seen and seen[0] < now - 60:
                seen.popleft()
            return len(seen) < self.limit

    def missed(self, address: str) -> None:
        with self._lock:
            seen = self.times.setdefault(address, deque())
            self.times.move_to_end(address)
            seen.append(self.clock())
            while len(seen) > self.limit:
                seen.popleft()
            while len(self.times) > self.addresses:
                self.times.popitem(last=False)


#: This process's count of misses, shared by the pages (a class's link) and the class's routes.
GUESSED = Guesses()
TOO_MANY = "Too many tries of class codes that do not exist from this address: wait a minute, then try again."


def _asks(state: dict[str, Any]) -> bool:
    """Whether the class is asked something (a question, or the next pick)."""
    return bool(state["question"] or state["predict"])


def _results(db: sqlite3.Connection, code: str, state: dict[str, Any]) -> dict[str, Any]:
    """The round's answers as the board shows them: ``answers`` (and ``before``, the first
    vote's, in a second vote), per answer; ``right`` once revealed (0 before); ``moved`` and
    ``lost``: the students who answered both votes and went to the right answer, or away
    from it (None without a second vote or a right answer)."""
    answers = _round_counts(db, code, state["round"])
    before = _round_counts(db, code, state["round"] - 1) if state["vote"] == 2 else None
    right = state["right"] if state["revealed"] else 0
    moved = lost = None
    if right and before is not None:
        row = db.execute(
            "SELECT COALESCE(SUM(a.answer != ? AND b.answer = ?), 0), COALESCE(SUM(a.answer = ? AND b.answer != ?), 0) "
            "FROM answers a JOIN answers b ON b.code = a.code AND b.seat = a.seat "
            "WHERE a.code = ? AND a.round = ? AND b.round = ?",
            (right, right, right, right, code, state["round"] - 1, state["round"]),
        ).fetchone()
        moved, lost = int(row[0]), int(row[1])
    return {
        "kind": "question" if state["question"] else "predict",
        "choices": state["question"],
        "answers": {str(k): v for k, v in answers.items()},
        "before": None if before is None else {str(k): v for k, v in before.items()},
        "right": right,
        "moved": moved,
        "lost": lost,
    }


def _round_record(db: sqlite3.Connection, code: str, state: dict[str, Any], now: float) -> dict[str, Any]:
    """The round of ``state`` as the report keeps it: its :func:`_results` with the right
    answer, its ``round``, ``vote``, ``label``, ``address``, ``step``, ``revealed`` and ``at``."""
    return dict(
        _results(db, code, dict(state, revealed=True)),
        round=state["round"],
        vote=state["vote"],
        label=state["label"],
        address=state["address"],
        step=state["step"],
        revealed=state["revealed"],
        at=round(now, 3),
    )


def _record(db: sqlite3.Connection, code: str, state: dict[str, Any], now: float) -> None:
    """Keep the ending round of ``state`` for the report, when anyone answered it: counts
    only, nothing of who answered."""
    record = _round_record(db, code, state, now)
    if not record["answers"]:
        return
    db.execute(
        "INSERT OR REPLACE INTO rounds (code, round, record) VALUES (?, ?, ?)",
        (code, state["round"], json.dumps(record)),
    )
    db.execute(
        "DELETE FROM rounds WHERE code = ? AND round NOT IN (SELECT round FROM rounds WHERE code = ? "
        "ORDER BY round DESC LIMIT ?)",
        (code, code, MAX_ROUNDS),
    )


def _round_counts(db: sqlite3.Connection, code: str, round_: int) -> dict[int, int]:
    rows = db.execute(
        "SELECT answer, COUNT(*) FROM answers WHERE code = ? AND round = ? GROUP BY answer", (code, round_)
    ).fetchall()
    return {int(answer): int(count) for answer, count in rows}


NOT_DRIVEN = "This link does not drive a live class: its key is wrong, or the class has ended."
NO_SEAT = "This page is not in the class, so its answer was not counted: open the class's link again."


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
        elif name in ("right", "countdown"):
            top = MAX_STEP if name == "right" else MAX_COUNTDOWN
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= top:
                raise ClassError(f"{name} is a whole number from 0 to {top}.")
            wanted[name] = value
        elif name == "label":
            if not isinstance(value, str):
                raise ClassError("A round's label is text.")
            wanted[name] = " ".join(value.split())[:MAX_LABEL]
        elif name == "pace":
            if value not in PACES:
                raise ClassError("The class's pace is one of " + ", ".join(PACES) + ".")
            wanted[name] = value
        elif name == "range":
            if value is not None and not (
                isinstance(value, list)
                and len(value) == 2
                and all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= MAX_STEP for v in value)
                and value[0] <= value[1]
            ):
                raise ClassError(f"A range of steps is a first and a last step, from 0 to {MAX_STEP}, in order.")
            wanted[name] = value
        elif name in ("predict", "reveal", "again", "end", "open", "show"):
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
