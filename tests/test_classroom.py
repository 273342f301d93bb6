"""The live class's state (views/classroom.py): codes, the lecturer's key, rounds of answers,
their counts, the bounds and the sharing between processes -- without a server."""

import multiprocessing
import os
import re
import secrets
import stat
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlencode

import pytest

from views import classroom
from views.classroom import ClassError, Store


class Clock:
    def __init__(self):
        self.now = 1_000_000.0

    def __call__(self):
        return self.now


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def store(clock):
    return Store(":memory:", clock=clock)


def test_a_code_is_short_unambiguous_and_read_however_it_is_typed():
    codes = {classroom.new_code() for _ in range(2000)}
    assert len(codes) == 2000
    for code in codes:
        assert re.fullmatch(f"[{classroom.ALPHABET}]{{{classroom.CODE_LENGTH}}}", code)
        assert not set(code) & set("01ILOU")
    code = next(iter(codes))
    shown = classroom.shown_code(code)
    assert classroom.normal_code(shown) == code
    assert classroom.normal_code(shown.lower().replace(" ", "-")) == code
    for wrong in ("", "ABC", code + "2", code[:-1] + "O", None, "<script>"):
        assert classroom.normal_code(wrong) is None
    # not guessable while a class lasts: a guess a millisecond at the cap of live classes
    # finds one with a chance under 1 in 10,000 (the server allows far fewer guesses)
    guesses = classroom.LIFETIME * 1000
    assert classroom.MAX_CLASSES * guesses / len(classroom.ALPHABET) ** classroom.CODE_LENGTH < 1e-2


def test_only_the_key_drives_the_class_and_a_missing_class_is_refused_alike(store):
    code, key = store.start("kmp?data=sinc")
    assert store.find(code).state["address"] == "kmp?data=sinc"
    refusals = set()
    for wrong_code, wrong_key in [(code, ""), (code, "x" * 24), (code, key[:-1] + ("a" if key[-1] != "a" else "b"))]:
        with pytest.raises(ClassError) as refused:
            store.drive(wrong_code, wrong_key, step=3)
        refusals.add((str(refused.value), refused.value.status))
        with pytest.raises(ClassError, match="Only the lecturer's link sees"):
            store.counts(code, wrong_key)
        assert not store.is_lecturer(code, wrong_key)
    with pytest.raises(ClassError) as missing:  # a class that is not there: the same sentence, the same status
        store.drive("ZZZZZZZZ", key, step=3)
    refusals.add((str(missing.value), missing.value.status))
    assert refusals == {(classroom.NOT_DRIVEN, 403)}
    assert store.is_lecturer(code, key) and not store.is_lecturer("ZZZZZZZZ", key)
    assert store.find(code).state["step"] == 0 and store.find(code).version == 1
    moved = store.drive(code, key, step=3)
    assert moved.state["step"] == 3 and moved.version == 2
    assert store.drive(code, key, step=3).version == 2  # no change, no new version: nobody is told again


def test_the_key_is_not_kept_in_the_clear(tmp_path):
    path = tmp_path / "classes.sqlite3"
    store = Store(path)
    code, key = store.start("kmp?")
    seat = store.admit(code, None, "process-a")
    written = b"".join(f.read_bytes() for f in tmp_path.iterdir() if f.is_file())  # the database and its log
    assert code.encode() in written
    assert key.encode() not in written and seat.encode() not in written


def test_bad_changes_get_a_sentence_and_change_nothing(store):
    code, key = store.start("kmp?")
    for changes, said in (
        ({"step": -1}, "A step is a whole number"),
        ({"step": "3"}, "A step is a whole number"),
        ({"step": True}, "A step is a whole number"),
        ({"predict": "yes"}, "on or off"),
        ({"question": 99}, "choices"),
        ({"address": "https://elsewhere.example/"}, "one of the app's pages"),
        ({"address": "x" * (classroom.MAX_ADDRESS + 1)}, "one of the app's pages"),
        ({"colour": "red"}, "no setting 'colour'"),
        ({"key": key}, "no setting 'key'"),  # a body naming the store's own arguments is a bad change, not a crash
        ({"code": code, "self": 1}, "no setting"),
    ):
        with pytest.raises(ClassError, match=said) as refused:
            store.drive(code, key, **changes)
        assert refused.value.status == 400
    assert store.find(code).version == 1


def test_the_longest_address_the_app_makes_drives_a_class(store):
    """A lesson read from a file travels in the address: the largest lesson file, its text
    incompressible, still fits."""
    from views import lessons

    code, key = store.start("kmp?")
    text = secrets.token_urlsafe(lessons.MAX_BYTES)[: lessons.MAX_BYTES]
    address = "kmp?data=xor&points=3000&k=100&" + urlencode({"lesson": lessons.encode(text), "scene": 30})
    assert len(address) <= classroom.MAX_ADDRESS
    assert store.drive(code, key, address=address).state["address"] == address
    for address in lesson_file_addresses():  # each shipped lesson's scenes, as a lesson file's
        assert store.drive(code, key, address=address).state["address"] == address


def lesson_file_addresses():
    """The address of every scene of every shipped lesson opened from its file, as a live
    class names it (the address of a view, without its step)."""
    from views import export, lessons

    addresses = []
    for path in sorted(lessons.HERE.glob("*.toml")):
        _, queries = export.lesson_queries(lessons.encode(path.read_text(encoding="utf-8")))
        for page, query in queries:
            addresses.append(f"{page.url_path}?{urlencode(sorted((k, v) for k, v in query.items() if k != 'step'))}")
    return addresses


def test_a_seat_is_the_servers_and_one_voice_per_round(store):
    code, key = store.start("kmp?")
    other, other_key = store.start("kmp?")
    first = store.admit(code, None, "a")
    second = store.admit(code, None, "a")
    made_up = store.admit(code, "A" * 24, "a")  # a seat the class never gave: a new one instead
    assert len({first, second, made_up, "A" * 24}) == 4
    assert store.admit(code, first, "b") == first  # the same browser on another process: the same student
    with pytest.raises(ClassError, match="not asking") as idle:
        store.answer(code, first, 1, 5)
    assert idle.value.status == 409
    round_ = store.drive(code, key, predict=True).state["round"]
    store.answer(code, first, round_, 5)
    store.answer(code, second, round_, 5)
    store.answer(code, made_up, round_, 9)
    store.answer(code, made_up, round_, 7)  # changed: replaces its first answer
    counts = store.counts(code, key)
    assert counts["answers"] == {5: 2, 7: 1} and counts["answered"] == 3 and counts["before"] is None
    # made-up ballots, another class's seat and a missing class: refused alike, nothing counted
    refusals = set()
    for where, seat in [
        (code, "ballot-" + "x" * 20),
        (code, "short"),
        (code, None),
        (other, first),
        ("ZZZZZZZZ", first),
    ]:
        with pytest.raises(ClassError) as refused:
            store.answer(where, seat, round_, 5)
        refusals.add((str(refused.value), refused.value.status))
    assert refusals == {(classroom.NO_SEAT, 403)}
    assert store.counts(code, key)["answered"] == 3
    assert store.drive(other, other_key, predict=True) and store.counts(other, other_key)["answered"] == 0
    # an old round is closed; a revealed one too
    with pytest.raises(ClassError, match="closed") as closed:
        store.answer(code, first, round_ - 1, 5)
    assert closed.value.status == 409
    store.drive(code, key, reveal=True)
    with pytest.raises(ClassError, match="closed"):
        store.answer(code, first, round_, 5)
    # the next step is a new round, with nothing counted yet
    moved = store.drive(code, key, step=1).state
    assert moved["round"] == round_ + 1 and not moved["revealed"]
    assert store.counts(code, key)["answered"] == 0


def test_no_count_closes_a_round_and_every_seat_votes(store):
    """The class's answers are bounded by its seats, never by a count that a client could
    fill: every student of a full class votes."""
    code, key = store.start("kmp?")
    seats = [store.admit(code, None, "a") for _ in range(classroom.MAX_FOLLOWERS)]
    round_ = store.drive(code, key, question=4).state["round"]
    for n, seat in enumerate(seats):
        store.answer(code, seat, round_, 1 + n % 4)
        store.answer(code, seat, round_, 1 + n % 4)  # again: still one voice
    counts = store.counts(code, key)
    assert counts["answered"] == classroom.MAX_FOLLOWERS
    assert counts["answers"] == {choice: classroom.MAX_FOLLOWERS // 4 for choice in (1, 2, 3, 4)}


def test_a_question_votes_twice_and_shows_the_first_vote_beside_the_second(store):
    code, key = store.start("lessons?")
    seats = [store.admit(code, None, "a") for _ in range(4)]
    first = store.drive(code, key, question=3).state
    for seat, choice in zip(seats, [1, 2, 2, 3]):
        store.answer(code, seat, first["round"], choice)
    with pytest.raises(ClassError, match="3 choices"):
        store.answer(code, seats[0], first["round"], 4)
    second = store.drive(code, key, again=True).state
    assert second["vote"] == 2 and second["round"] == first["round"] + 1
    for seat in seats:
        store.answer(code, seat, second["round"], 2)
    counts = store.counts(code, key)
    assert counts["answers"] == {2: 4}
    assert counts["before"] == {1: 1, 2: 2, 3: 1}
    # a new question starts over with one vote
    assert store.drive(code, key, question=4).state["vote"] == 1


def test_the_lecturer_times_closes_and_reopens_a_vote(store, clock):
    code, key = store.start("lessons?")
    seats = [store.admit(code, None, "a") for _ in range(3)]
    asked = store.drive(code, key, question=3, right=2).state
    assert asked["open"] and asked["closes"] is None
    assert store.find(code).public()["right"] == 0  # the right answer is the lecturer's until revealed
    timed = store.drive(code, key, countdown=30)
    assert timed.state["closes"] == clock.now + 30 and timed.public()["now"] == clock.now
    store.answer(code, seats[0], asked["round"], 1)
    clock.now += 30 + classroom.LATE / 2  # clicked in time, arrived a moment late: counted
    store.answer(code, seats[1], asked["round"], 2)
    clock.now += classroom.LATE
    with pytest.raises(ClassError, match="vote is closed") as late:
        store.answer(code, seats[2], asked["round"], 2)
    assert late.value.status == 409
    assert store.drive(code, key, open=True).state["open"]  # reopened, with no time limit
    store.answer(code, seats[2], asked["round"], 3)
    assert store.drive(code, key, open=False).state["open"] is False  # closed, nothing revealed
    with pytest.raises(ClassError, match="vote is closed"):
        store.answer(code, seats[2], asked["round"], 2)
    closed = store.find(code).public()
    assert not closed["revealed"] and closed["results"] is None and closed["right"] == 0
    assert store.counts(code, key)["answers"] == {1: 1, 2: 1, 3: 1}
    for bad in ({"countdown": -1}, {"countdown": 10_000}, {"open": "yes"}, {"right": 1.5}, {"pace": "run"}):
        with pytest.raises(ClassError):
            store.drive(code, key, **bad)
    for bad_range in ([3, 1], [0], [0, "9"], [-1, 4], "0-4"):
        with pytest.raises(ClassError, match="range of steps"):
            store.drive(code, key, pace="explore", range=bad_range)


def test_the_board_shows_both_votes_the_right_answer_once_revealed_and_who_moved_to_it(store):
    code, key = store.start("lessons?")
    seats = [store.admit(code, None, "a") for _ in range(5)]
    first = store.drive(code, key, question=3, right=2, label="Which point is picked?").state
    # first vote: two right; second: four right -- two moved to it (3->2, 1->2), one moved away (2->3)
    # and one who answered only the second vote is in its counts, not among those who moved
    for seat, choice in zip(seats[:4], [2, 2, 3, 1]):
        store.answer(code, seat, first["round"], choice)
    shown = store.drive(code, key, show=True).public()
    assert shown["shown"] and not shown["open"]  # showing the answers closes the vote
    assert shown["results"]["answers"] == {"1": 1, "2": 2, "3": 1}
    assert shown["results"]["right"] == 0 and shown["right"] == 0  # shown is not revealed
    second = store.drive(code, key, again=True).public()
    assert second["vote"] == 2 and second["open"] and not second["shown"] and second["results"] is None
    for seat, choice in zip(seats, [3, 2, 2, 2, 2]):
        store.answer(code, seat, second["round"], choice)
    assert store.counts(code, key)["moved"] == 2 and store.counts(code, key)["lost"] == 1
    store.drive(code, key, show=True)
    revealed = store.drive(code, key, reveal=True).public()
    results = revealed["results"]
    assert revealed["right"] == 2 and results["right"] == 2
    assert results["before"] == {"1": 1, "2": 2, "3": 1} and results["answers"] == {"2": 4, "3": 1}
    assert (results["moved"], results["lost"]) == (2, 1)
    # the report: the first vote, then the second with both, counts only
    store.drive(code, key, question=0)
    report = store.report(code, key)
    assert [(r["round"], r["vote"]) for r in report] == [(first["round"], 1), (second["round"], 2)]
    assert report[1]["before"] == report[0]["answers"] and report[1]["moved"] == 2
    assert report[0]["label"] == "Which point is picked?" and report[1]["right"] == 2
    assert not any(seat in str(report) or classroom.seat_digest(seat) in str(report) for seat in seats)
    with pytest.raises(ClassError) as refused:
        store.report(code, "not-the-key")
    assert refused.value.status == 403


def test_a_round_nobody_answered_stays_out_of_the_report_and_the_report_is_bounded(store, monkeypatch):
    monkeypatch.setattr(classroom, "MAX_ROUNDS", 3)
    code, key = store.start("kmp?")
    seat = store.admit(code, None, "a")
    store.drive(code, key, predict=True)
    for step in range(1, 7):
        round_ = store.drive(code, key, step=step, right=40 + step).state["round"]
        if step != 4:  # a step nobody answered
            store.answer(code, seat, round_, 40 + step)
    store.drive(code, key, step=7)
    report = store.report(code, key)
    assert [r["step"] for r in report] == [3, 5, 6]
    assert all(r["kind"] == "predict" and r["answers"] == {str(r["right"]): 1} for r in report)
    store.drive(code, key, end=True)
    with pytest.raises(ClassError):
        store.report(code, key)


def test_classes_are_bounded_in_all_and_per_client_and_expire(store, clock, monkeypatch):
    monkeypatch.setattr(classroom, "MAX_CLASSES", 4)
    monkeypatch.setattr(classroom, "MAX_CLASSES_PER_CLIENT", 2)
    mine = [store.start("kmp?", client="10.0.0.1") for _ in range(2)]
    with pytest.raises(ClassError, match="This computer's address has 2 live classes running") as capped:
        store.start("kmp?", client="10.0.0.1")
    assert capped.value.status == 429
    store.drive(*mine[0], end=True)  # ending one makes room for that client
    mine[0] = store.start("kmp?", client="10.0.0.1")
    codes = [store.start("kmp?", client=f"10.0.0.{n}") for n in (2, 3)]
    with pytest.raises(ClassError, match="already runs 4 live classes"):
        store.start("kmp?", client="10.0.0.9")
    clock.now += classroom.LIFETIME - 1
    store.drive(*codes[0], step=2)  # a change keeps a class alive
    clock.now += 2
    assert store.find(codes[0][0]) is not None
    assert store.find(codes[1][0]) is None
    for _ in range(2):  # the expired ones made room, their client's too
        store.start("kmp?", client="10.0.0.1")
    store.start("kmp?", client="10.0.0.5")
    assert store.expire() == 0
    with pytest.raises(ClassError, match="already runs 4"):
        store.start("kmp?")


def test_a_class_takes_its_cap_of_students_and_no_more_under_a_burst(tmp_path, monkeypatch):
    """Students arriving at once on several connections (threads, as a process's streams
    are): exactly the cap is seated, the rest refused with the sentence."""
    monkeypatch.setattr(classroom, "MAX_FOLLOWERS", 40)
    path = tmp_path / "classes.sqlite3"
    code, _ = Store(path).start("kmp?")
    stores = [Store(path) for _ in range(2)]  # two processes' views of the file
    start = threading.Barrier(60)

    def arrive(n):
        start.wait()
        try:
            return stores[n % 2].admit(code, None, f"p{n % 2}")
        except ClassError as error:
            return error

    with ThreadPoolExecutor(60) as pool:
        outcomes = list(pool.map(arrive, range(60)))
    seated = [o for o in outcomes if isinstance(o, str)]
    refused = [o for o in outcomes if isinstance(o, ClassError)]
    assert len(seated) == 40 and len(set(seated)) == 40
    assert len(refused) == 20 and all(str(e) == classroom.full_class() and e.status == 503 for e in refused)
    assert stores[0].students(code) == 40
    assert stores[1].admit(code, seated[0], "p1") == seated[0]  # a seated student reconnecting is let in


def test_ending_a_class_deletes_its_answers_and_seats(store):
    code, key = store.start("kmp?")
    seat = store.admit(code, None, "a")
    round_ = store.drive(code, key, predict=True).state["round"]
    store.answer(code, seat, round_, 1)
    assert store.drive(code, key, end=True).state["ended"]
    assert store.find(code) is None
    db = store._connection()
    assert db.execute("SELECT COUNT(*) FROM answers").fetchone()[0] == 0
    assert db.execute("SELECT COUNT(*) FROM members").fetchone()[0] == 0


def test_students_are_counted_once_over_processes_and_a_silent_process_drops_out(store, clock):
    code, _ = store.start("kmp?")
    digest = classroom.seat_digest
    a = [store.admit(code, None, "a") for _ in range(3)]
    b = [store.admit(code, None, "b") for _ in range(2)]
    roamer = store.admit(code, a[0], "b")  # one student, a stream on each process (two tabs)
    assert roamer == a[0]
    held_a = {(code, digest(seat)): 1 for seat in a}
    held_b = {(code, digest(seat)): 1 for seat in [*b, roamer]}
    # every process's open streams count, each student once
    assert store.presence("a", held_a)[code] == {"present": 5, "away": 0, "behind": 0, "exploring": 0}
    assert store.presence("b", held_b, {code: 1})[code] == {"present": 5, "away": 0, "behind": 1, "exploring": 0}
    # the student of two tabs explores on its own: one student exploring, whichever tab says it
    store.explores(code, roamer, True)
    store.explores(code, b[0], True)
    store.explores(code, b[0], False)
    assert store.presence("a", held_a)[code] == {"present": 5, "away": 0, "behind": 1, "exploring": 1}
    with pytest.raises(ClassError) as unseated:
        store.explores(code, "made-up-" + "x" * 16, True)
    assert unseated.value.status == 403
    store.explores(code, roamer, False)
    # a student's stream drops: reconnecting, still in the class; back: counted once
    store.depart(code, b[0], "b")
    held_b.pop((code, digest(b[0])))
    assert store.presence("b", held_b)[code] == {"present": 4, "away": 1, "behind": 0, "exploring": 0}
    assert store.admit(code, b[0], "a") == b[0]
    held_a[(code, digest(b[0]))] = 1
    assert store.presence("a", held_a)[code] == {"present": 5, "away": 0, "behind": 0, "exploring": 0}
    # "a" stops saying what it holds (killed, on another machine): its students drop out,
    # reconnecting for a while, then gone
    clock.now += classroom.FOLLOWERS_FRESH + 1
    assert store.presence("b", held_b)[code] == {"present": 2, "away": 3, "behind": 0, "exploring": 0}
    clock.now += classroom.GRACE
    assert store.presence("b", held_b)[code] == {"present": 2, "away": 0, "behind": 0, "exploring": 0}
    assert store.students(code) == 2


def _hold_seats(path, code, ready, count):
    """A process that holds ``count`` seats of ``code`` (its mark on the folder held), then waits."""
    store = Store(path)
    mark = classroom.Presence(store.folder)
    seats = [store.admit(code, None, mark.name) for _ in range(count)]
    store.presence(mark.name, {(code, classroom.seat_digest(seat)): 1 for seat in seats})
    ready.set()
    time.sleep(600)


def test_a_dead_process_drops_its_students_from_the_count_at_once(tmp_path):
    path = tmp_path / "classes.sqlite3"
    store = Store(path)
    code, _ = store.start("kmp?")
    context = multiprocessing.get_context("spawn")
    ready = context.Event()
    process = context.Process(target=_hold_seats, args=(path, code, ready, 7), daemon=True)
    process.start()
    try:
        assert ready.wait(60)
        here = classroom.Presence(store.folder)
        assert store.presence(here.name, {})[code]["present"] == 7
        process.kill()
        process.join(10)
        # the next look (well within the seconds a silent process's streams would still count):
        # its students are reconnecting
        assert store.presence(here.name, {})[code] == {"present": 0, "away": 7, "behind": 0, "exploring": 0}
    finally:
        process.kill()


def test_a_class_started_in_one_process_is_driven_from_another_and_survives_them(tmp_path):
    path = tmp_path / "classes.sqlite3"
    code, key = Store(path).start("kmp?")
    process = multiprocessing.get_context("spawn").Process(target=_drive_from_another_process, args=(path, code, key))
    process.start()
    process.join(60)
    assert process.exitcode == 0
    again = Store(path)  # a process started afterwards (a restart) reads the class as it was left
    assert again.find(code).state["step"] == 7 and again.versions([code]) == {code: (2, 0)}


def _drive_from_another_process(path, code, key):
    Store(path).drive(code, key, step=7)


# --- the file: private, and made afresh when lost ------------------------------------------------


def test_the_classes_folder_must_be_the_users_own_and_private(tmp_path):
    made = tmp_path / "fresh" / "classes.sqlite3"
    made.parent.parent.mkdir(mode=0o700, exist_ok=True)
    Store(made)
    assert stat.S_IMODE(made.parent.stat().st_mode) == 0o700  # made private, whatever the umask
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)  # as a folder another user made first in /tmp would be
    with pytest.raises(classroom.Unavailable, match="open to other users"):
        Store(shared / "classes.sqlite3")
    linked = tmp_path / "linked"
    linked.symlink_to(made.parent)
    with pytest.raises(classroom.Unavailable, match="not a folder of its own"):
        Store(linked / "classes.sqlite3")


def test_the_classes_folder_of_another_user_is_refused(tmp_path, monkeypatch):
    folder = tmp_path / "theirs"
    folder.mkdir(mode=0o700)
    monkeypatch.setattr(os, "getuid", lambda: os.stat(folder).st_uid + 1)  # as if another user had made it
    with pytest.raises(classroom.Unavailable, match="belongs to another user"):
        Store(folder / "classes.sqlite3")


def test_a_damaged_file_is_set_aside_and_every_process_agrees_on_the_new_one(tmp_path, capsys):
    path = tmp_path / "classes.sqlite3"
    first, second = Store(path), Store(path)
    code, key = first.start("kmp?")
    assert second.find(code) is not None
    for suffix in ("-wal", "-shm"):
        (tmp_path / f"classes.sqlite3{suffix}").unlink(missing_ok=True)
    path.write_bytes(b"this is not a database " * 200)  # junk where the file was
    third = Store(path)  # a process starting now: a file afresh, the junk kept aside
    assert third.find(code) is None
    assert "was damaged: set aside" in capsys.readouterr().err
    assert list(tmp_path.glob("classes.sqlite3.damaged-*"))
    new_code, new_key = third.start("kmp?")
    for store in (first, second):  # the processes that had the old file open follow the new one
        assert store.find(code) is None and store.find(new_code) is not None
        assert store.replaced >= 1
    assert first.drive(new_code, new_key, step=2).state["step"] == 2


def test_a_deleted_file_is_made_afresh_and_the_processes_agree(tmp_path):
    path = tmp_path / "classes.sqlite3"
    first, second = Store(path), Store(path)
    code, _ = first.start("kmp?")
    for suffix in ("", "-wal", "-shm"):
        (tmp_path / f"classes.sqlite3{suffix}").unlink(missing_ok=True)
    new_code, _ = second.start("kmp?")  # one process makes a file afresh
    assert first.find(new_code) is not None and first.find(code) is None  # the other reads that same one
    assert first.replaced >= 1 and second.replaced >= 1
