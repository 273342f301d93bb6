"""The live class's state (ui/classroom.py): codes, the lecturer's key, rounds of answers,
their counts, the bounds and the sharing between processes -- without a server."""

import multiprocessing
import re

import pytest

from ui import classroom
from ui.classroom import ClassError, Store


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


def test_only_the_key_drives_the_class(store):
    code, key = store.start("kmp?data=sinc")
    assert store.find(code).state["address"] == "kmp?data=sinc"
    for wrong in ("", "x" * 24, key[:-1] + ("a" if key[-1] != "a" else "b")):
        with pytest.raises(ClassError, match="Only the lecturer's link drives this class"):
            store.drive(code, wrong, step=3)
        with pytest.raises(ClassError, match="Only the lecturer's link sees"):
            store.counts(code, wrong)
        assert not store.is_lecturer(code, wrong)
    assert store.is_lecturer(code, key) and not store.is_lecturer("ZZZZZZZZ", key)
    assert store.find(code).state["step"] == 0 and store.find(code).version == 1
    moved = store.drive(code, key, step=3)
    assert moved.state["step"] == 3 and moved.version == 2
    assert store.drive(code, key, step=3).version == 2  # no change, no new version: nobody is told again


def test_the_key_is_not_kept_in_the_clear(tmp_path):
    path = tmp_path / "classes.sqlite3"
    code, key = Store(path).start("kmp?")
    written = b"".join(f.read_bytes() for f in tmp_path.iterdir())  # the database and its write-ahead log
    assert code.encode() in written
    assert key.encode() not in written


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
    ):
        with pytest.raises(ClassError, match=said):
            store.drive(code, key, **changes)
    assert store.find(code).version == 1
    with pytest.raises(ClassError, match="no live class"):
        store.drive("ZZZZZZZZ", key, step=1)


def test_a_round_of_predictions_is_counted_once_per_ballot_and_only_for_its_lecturer(store):
    code, key = store.start("kmp?")
    other, other_key = store.start("kmp?")
    with pytest.raises(ClassError, match="not asking"):
        store.answer(code, "ballot-0001", 1, 5)
    state = store.drive(code, key, predict=True).state
    round_ = state["round"]
    store.answer(code, "ballot-0001", round_, 5)
    store.answer(code, "ballot-0002", round_, 5)
    store.answer(code, "ballot-0003", round_, 9)
    store.answer(code, "ballot-0003", round_, 7)  # changed: replaces its first answer
    counts = store.counts(code, key)
    assert counts["answers"] == {5: 2, 7: 1} and counts["answered"] == 3 and counts["before"] is None
    # another class's lecturer sees none of it, and its own class has no answers
    with pytest.raises(ClassError):
        store.counts(code, other_key)
    assert store.drive(other, other_key, predict=True) and store.counts(other, other_key)["answered"] == 0
    # an old round is closed; a revealed one too
    with pytest.raises(ClassError, match="closed"):
        store.answer(code, "ballot-0004", round_ - 1, 5)
    store.drive(code, key, reveal=True)
    with pytest.raises(ClassError, match="closed"):
        store.answer(code, "ballot-0004", round_, 5)
    # the next step is a new round, with nothing counted yet
    moved = store.drive(code, key, step=1).state
    assert moved["round"] == round_ + 1 and not moved["revealed"]
    assert store.counts(code, key)["answered"] == 0


def test_a_question_votes_twice_and_shows_the_first_vote_beside_the_second(store):
    code, key = store.start("lessons?")
    first = store.drive(code, key, question=3).state
    for n, choice in enumerate([1, 2, 2, 3]):
        store.answer(code, f"ballot-{n:04d}", first["round"], choice)
    with pytest.raises(ClassError, match="3 choices"):
        store.answer(code, "ballot-0009", first["round"], 4)
    second = store.drive(code, key, again=True).state
    assert second["vote"] == 2 and second["round"] == first["round"] + 1
    for n in range(4):
        store.answer(code, f"ballot-{n:04d}", second["round"], 2)
    counts = store.counts(code, key)
    assert counts["answers"] == {2: 4}
    assert counts["before"] == {1: 1, 2: 2, 3: 1}
    # a new question starts over with one vote
    assert store.drive(code, key, question=4).state["vote"] == 1


def test_classes_are_bounded_and_expire(store, clock, monkeypatch):
    monkeypatch.setattr(classroom, "MAX_CLASSES", 3)
    codes = [store.start("kmp?") for _ in range(3)]
    with pytest.raises(ClassError, match="already runs 3 live classes"):
        store.start("kmp?")
    clock.now += classroom.LIFETIME - 1
    store.drive(*codes[0], step=2)  # a change keeps a class alive
    clock.now += 2
    assert store.find(codes[0][0]) is not None
    assert store.find(codes[1][0]) is None
    store.start("kmp?")  # the expired ones made room
    store.start("kmp?")
    assert store.expire() == 0
    with pytest.raises(ClassError, match="already runs 3"):
        store.start("kmp?")


def test_answers_per_round_are_bounded(store, monkeypatch):
    monkeypatch.setattr(classroom, "MAX_FOLLOWERS", 2)
    code, key = store.start("kmp?")
    round_ = store.drive(code, key, predict=True).state["round"]
    store.answer(code, "ballot-0001", round_, 1)
    store.answer(code, "ballot-0002", round_, 1)
    with pytest.raises(ClassError, match="2 answers"):
        store.answer(code, "ballot-0003", round_, 1)
    for ballot in ("short", "has space in it", "x" * 65, None):
        with pytest.raises(ClassError, match="ballot"):
            store.answer(code, ballot, round_, 1)


def test_ending_a_class_deletes_its_answers(store):
    code, key = store.start("kmp?")
    round_ = store.drive(code, key, predict=True).state["round"]
    store.answer(code, "ballot-0001", round_, 1)
    assert store.drive(code, key, end=True).state["ended"]
    assert store.find(code) is None
    db = store._connection()
    assert db.execute("SELECT COUNT(*) FROM answers").fetchone()[0] == 0


def test_followers_are_counted_over_processes_and_a_silent_one_drops_out(store, clock):
    code, _ = store.start("kmp?")
    assert store.follow_counts("a", {code: 120}) == {code: 120}
    assert store.follow_counts("b", {code: 180}) == {code: 300}
    assert store.followers(code) == 300
    clock.now += classroom.FOLLOWERS_FRESH + 1  # "a" was killed: it stops renewing its count
    assert store.follow_counts("b", {code: 180}) == {code: 180}
    assert store.follow_counts("b", {}) == {}


def _drive_from_another_process(path, code, key):
    Store(path).drive(code, key, step=7)


def test_a_class_started_in_one_process_is_driven_from_another_and_survives_them(tmp_path):
    path = tmp_path / "classes.sqlite3"
    code, key = Store(path).start("kmp?")
    process = multiprocessing.get_context("spawn").Process(target=_drive_from_another_process, args=(path, code, key))
    process.start()
    process.join(60)
    assert process.exitcode == 0
    again = Store(path)  # a process started afterwards (a restart) reads the class as it was left
    assert again.find(code).state["step"] == 7 and again.versions([code]) == {code: (2, 0)}
