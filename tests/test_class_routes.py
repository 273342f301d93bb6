"""The live class's routes (serving/classes.py) as a browser and a forger speak to them:
server-sent events that follow the lecturer, the key that alone drives, answers counted for
the lecturer only, guessing bounded.  A real server (uvicorn, as Streamlit's) in a thread."""

import contextlib
import json
import socket
import threading
import time

import httpx
import pytest
import uvicorn
from class_support import Stream
from starlette.applications import Starlette

from serving import classes
from ui import classroom


@contextlib.contextmanager
def serving(store):
    """The routes on ``store``, on a free loopback port: their base URL."""
    app = Starlette(routes=classes.routes(store))
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", timeout_graceful_shutdown=1)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}/mpl/class/"
    server.should_exit = True
    thread.join(10)


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
        assert answer.json()["error"].startswith("Only the lecturer's link drives this class")
    assert store.find(code).state["step"] == 0
    refused = Stream(f"{base}events?class={code}&key=forged")  # a student's stream posing as the lecturer's
    assert refused.status == 403 and "Only the lecturer's link" in refused.body["error"]
    for body in (b"{not json", b"[1, 2]", b"x" * 5000):
        answer = httpx.post(f"{base}drive?class={code}", content=body, headers={"X-Class-Key": key})
        assert answer.status_code == 400 and answer.json()["error"] == "The lecturer's change could not be read."


def test_the_class_answers_reach_only_its_lecturer(site):
    base, store = site
    code, key = store.start("kmp?")
    other, other_key = store.start("kmp?")
    lecturer = Stream(f"{base}events?class={code}&key={key}")
    student = Stream(f"{base}events?class={code}")
    elsewhere = Stream(f"{base}events?class={other}&key={other_key}")
    round_ = drive(base, code, key, predict=True).json()["round"]
    student.wait_for(lambda e: e["predict"])
    for n, point in enumerate([4, 4, 11]):
        answer = httpx.post(
            f"{base}answer?class={code}", json={"ballot": f"ballot-{n:04d}", "round": round_, "answer": point}
        )
        assert answer.status_code == 200
    counts = lecturer.wait_for(lambda e: e.get("counts", {}).get("answered") == 3)["counts"]
    assert counts["answers"] == {"4": 2, "11": 1}
    lecturer.wait_for(lambda e: e.get("followers") == 1)  # the student (the lecturer is not counted)
    time.sleep(0.3)
    assert all("counts" not in e for e in student.events)
    assert all(e.get("counts", {}).get("answered", 0) == 0 for e in elsewhere.events)
    late = httpx.post(f"{base}answer?class={code}", json={"ballot": "ballot-0009", "round": round_ - 1, "answer": 4})
    assert late.status_code == 409 and "closed" in late.json()["error"]
    for stream in (lecturer, student, elsewhere):
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


def test_guessing_codes_is_bounded_per_client(tmp_path):
    store = classroom.Store(tmp_path / "classes.sqlite3")
    code, _ = store.start("kmp?")
    refused = None
    with serving(store) as base, httpx.Client(timeout=5) as client:  # its own server: its own count of guesses
        for n in range(classes.GUESSES + 1):
            answer = client.get(f"{base}events?class={classroom.new_code()}")
            if answer.status_code == 429:
                refused = n
                break
            assert answer.status_code == 404
        assert refused == classes.GUESSES
        assert "Too many class codes" in client.get(f"{base}events?class={code}").json()["error"]


def test_a_full_class_refuses_the_next_student_with_a_sentence(site, monkeypatch):
    base, store = site
    monkeypatch.setattr(classroom, "MAX_FOLLOWERS", 1)
    code, key = store.start("kmp?")
    first = Stream(f"{base}events?class={code}")
    first.wait_for(lambda e: True)
    deadline = time.monotonic() + 10
    while store.followers(code) < 1 and time.monotonic() < deadline:  # each process counts its followers every second
        time.sleep(0.05)
    second = Stream(f"{base}events?class={code}")
    assert second.status == 503 and second.body["error"] == classroom.full_class()
    lecturer = Stream(f"{base}events?class={code}&key={key}")  # the lecturer is not a student: never refused
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
