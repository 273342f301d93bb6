"""The live class's routes (serving/classes.py) as a browser and a forger speak to them:
server-sent events that follow the lecturer, the key that alone drives, answers counted for
the lecturer only, guessing bounded.  A real server (uvicorn, as Streamlit's) in a thread."""

import json
import time

import httpx
import pytest
from class_support import Stream, serving

from serving import classes
from views import classroom


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The routes of one server: ``(base URL, store)``."""
    store = classroom.Store(tmp_path_factory.mktemp("classes") / "classes.sqlite3")
    with serving(store) as base:
        yield base, store


def drive(base, code, key, **change):
    return httpx.post(f"{base}drive?class={code}", json=change, headers={"X-Class-Key": key})


def test_a_student_follows_each_step_and_a_late_one_starts_where_the_lecturer_is(site):
    base, store = site
    code, key = store.start("kmp?data=sinc")
    early = Stream(f"{base}events?class={code}")
    assert early.wait_for(lambda e: e["step"] == 0)["address"] == "kmp?data=sinc"
    for step in (1, 2, 3):
        assert drive(base, code, key, step=step).status_code == 200
        early.wait_for(lambda e, step=step: e["step"] == step)
    late = Stream(f"{base}events?class={code.lower()}")  # a code typed in lower case
    first = late.wait_for(lambda e: True)
    assert first["step"] == 3 and "counts" not in first and "key" not in json.dumps(first)
    assert [e["step"] for e in early.events] == [0, 1, 2, 3]  # every step, once, in order
    early.close()
    late.close()


def test_without_the_key_nothing_changes_and_a_sentence_says_why(site):
    base, store = site
    code, key = store.start("kmp?")
    for headers in ({}, {"X-Class-Key": "forged"}, {"X-Class-Key": key + "x"}):
        answer = httpx.post(f"{base}drive?class={code}", json={"step": 9}, headers=headers)
        assert answer.status_code == 403
        assert answer.json()["error"] == classroom.NOT_DRIVEN
    assert store.find(code).state["step"] == 0
    refused = Stream(f"{base}events?class={code}", key="forged")  # a student's stream posing as the lecturer's
    assert refused.status == 403 and "Only the lecturer's link" in refused.body["error"]
    for body in (b"{not json", b"[1, 2]", b'"text"'):
        answer = httpx.post(
            f"{base}drive?class={code}", content=body, headers={"X-Class-Key": key, "Content-Type": "application/json"}
        )
        assert answer.status_code == 400 and answer.json()["error"] == "The lecturer's change could not be read."


def test_the_class_answers_reach_only_its_lecturer(site):
    base, store = site
    code, key = store.start("kmp?")
    other, other_key = store.start("kmp?")
    lecturer = Stream(f"{base}events?class={code}", key=key)
    student = Stream(f"{base}events?class={code}")
    elsewhere = Stream(f"{base}events?class={other}", key=other_key)
    more = [Stream(f"{base}events?class={code}") for _ in range(2)]
    round_ = drive(base, code, key, predict=True).json()["round"]
    student.wait_for(lambda e: e["predict"])
    for page, point in zip([student, *more], [4, 4, 11]):  # each page answers with the seat its stream was given
        answer = page.client.post(f"{base}answer?class={code}", json={"round": round_, "answer": point})
        assert answer.status_code == 200
    counts = lecturer.wait_for(lambda e: e.get("counts", {}).get("answered") == 3)["counts"]
    assert counts["answers"] == {"4": 2, "11": 1}
    lecturer.wait_for(lambda e: e.get("followers") == 3)  # the students (the lecturer is not counted)
    time.sleep(0.3)
    assert all("counts" not in e for e in student.events)
    assert all(e.get("counts", {}).get("answered", 0) == 0 for e in elsewhere.events)
    late = student.client.post(f"{base}answer?class={code}", json={"round": round_ - 1, "answer": 4})
    assert late.status_code == 409 and "closed" in late.json()["error"]
    for stream in (lecturer, student, elsewhere, *more):
        stream.close()


def test_ending_the_class_tells_the_students_and_closes_their_streams(site):
    base, store = site
    code, key = store.start("kmp?")
    student = Stream(f"{base}events?class={code}")
    student.wait_for(lambda e: True)
    assert drive(base, code, key, end=True).status_code == 200
    student.wait_for(lambda e: e.get("ended"))
    student.thread.join(5)
    assert not student.thread.is_alive()  # the server closed the stream
    gone = Stream(f"{base}events?class={code}")
    assert gone.status == 404 and "no live class" in gone.body["error"]


def test_a_full_class_refuses_the_next_student_with_a_sentence(site, monkeypatch):
    base, store = site
    monkeypatch.setattr(classroom, "MAX_FOLLOWERS", 1)
    code, key = store.start("kmp?")
    first = Stream(f"{base}events?class={code}")
    first.wait_for(lambda e: True)
    assert store.students(code) == 1  # seated as the stream opened, not at the next count
    second = Stream(f"{base}events?class={code}")
    assert second.status == 503 and second.body["error"] == classroom.full_class()
    lecturer = Stream(f"{base}events?class={code}", key=key)  # the lecturer is not a student: never refused
    assert lecturer.status == 200
    for stream in (first, lecturer):
        stream.close()


def test_a_server_that_cannot_open_the_classes_file_serves_its_pages_without_classes(tmp_path, monkeypatch, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv(classroom.ENVIRONMENT, str(blocker / "classes.sqlite3"))  # a folder that cannot be made
    monkeypatch.setattr(classroom, "_STORE", None)
    monkeypatch.setattr(classroom, "SERVED", False)
    assert classes.routes() == []
    assert classroom.SERVED is False  # the pages then offer no class, and a class's link says why
    assert "No live classes on this server" in capsys.readouterr().err


def test_a_student_who_comes_after_everyone_left_still_follows(site):
    """The process's watcher sleeps when nobody follows, and wakes for the next student."""
    base, store = site
    code, key = store.start("kmp?")
    for round_ in range(3):
        student = Stream(f"{base}events?class={code}")
        student.wait_for(lambda e: True)
        assert drive(base, code, key, step=round_ + 1).status_code == 200
        student.wait_for(lambda e, step=round_ + 1: e.get("step") == step)
        student.close()
        time.sleep(0.3)  # the server sees the stream closed: no follower left
