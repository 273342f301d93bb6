"""The live class's server against a careless or hostile client (``serving/classes.py``), over
HTTP as a script would speak to it: made-up ballots, another site's page, a burst of
streams, spoofed addresses, guessed codes, bodies too large or malformed.  Each case failed
on the server before: 500 made-up ballots closed a round, another origin voted, 540 students
passed a cap of 500, a header a browser wrote dodged the limit on guesses, a 400 MB body was
read before it was refused, ``{"key": ...}`` was a 500, and a lesson from a file could not
drive a class.  A real server (uvicorn, as Streamlit's) in a thread; the thousand streams
against a whole app are in ``test_class_server.py``."""

import json
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import httpx
import pytest
from class_support import Stream, serving
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from serving import classes
from views import classroom


@pytest.fixture(autouse=True)
def fresh_guesses(monkeypatch):
    """Each case counts its own misses (the process's count is shared by every route)."""
    monkeypatch.setattr(classroom, "GUESSED", classroom.Guesses())


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    store = classroom.Store(tmp_path_factory.mktemp("classes") / "classes.sqlite3")
    with serving(store) as base:
        yield base, store


def post(base, route, code, body, **headers):
    return httpx.post(f"{base}{route}?class={code}", json=body, headers=headers)


def predicting(base, store):
    """A class asking for a prediction: ``(code, key, round)``."""
    code, key = store.start("kmp?data=xor")
    round_ = post(base, "drive", code, {"predict": True}, **{"X-Class-Key": key}).json()["round"]
    return code, key, round_


# --- one browser, one voice --------------------------------------------------------------------


def test_made_up_ballots_count_for_nothing_and_the_round_stays_open(site):
    base, store = site
    code, key, round_ = predicting(base, store)
    student = Stream(f"{base}events?class={code}")
    student.wait_for(lambda e: e.get("predict"))
    assert student.seat is not None
    statuses = set()
    with httpx.Client() as script:  # what a page posts, 500 times, with ballots it made up
        for n in range(500):
            body = {"ballot": f"ballot-{n:06d}", "round": round_, "answer": n % 40}
            cookie = {"Cookie": f"mpl_seat_{code}=made-up-seat-{n:012d}"}
            statuses.add(script.post(f"{base}answer?class={code}", json=body, headers=cookie).status_code)
    assert statuses <= {403, 429}
    assert store.counts(code, key)["answered"] == 0
    answered = student.client.post(f"{base}answer?class={code}", json={"round": round_, "answer": 3})
    assert answered.status_code == 200  # the honest student's vote counts: no count closed the round
    for again in (4, 5):  # one voice: a changed answer replaces the first
        assert student.client.post(f"{base}answer?class={code}", json={"round": round_, "answer": again}).is_success
    assert store.counts(code, key)["answers"] == {5: 1}
    student.close()


def test_another_sites_page_cannot_vote_predict_or_drive(site):
    base, store = site
    code, key, round_ = predicting(base, store)
    student = Stream(f"{base}events?class={code}")
    student.wait_for(lambda e: e.get("predict"))
    host = urlsplit(base).netloc
    for headers in (
        {"Origin": "http://elsewhere.example", "Sec-Fetch-Site": "cross-site"},
        {"Origin": "http://elsewhere.example"},
        {"Sec-Fetch-Site": "same-site"},
        {"Origin": "null"},
    ):
        vote = student.client.post(f"{base}answer?class={code}", json={"round": round_, "answer": 1}, headers=headers)
        assert vote.status_code == 403 and "app's own pages" in vote.json()["error"]
        steer = post(base, "drive", code, {"step": 9}, **{"X-Class-Key": key}, **headers)
        assert steer.status_code == 403
    # a no-cors form post (text/plain, the only kind another page may send without asking)
    plain = student.client.post(
        f"{base}answer?class={code}",
        content=json.dumps({"round": round_, "answer": 1}),
        headers={"Content-Type": "text/plain"},
    )
    assert plain.status_code == 415 and "not sent as JSON" in plain.json()["error"]
    assert store.counts(code, key)["answered"] == 0 and store.find(code).state["step"] == 0
    same = {"Origin": f"http://{host}", "Sec-Fetch-Site": "same-origin"}  # the app's own page
    assert student.client.post(
        f"{base}answer?class={code}", json={"round": round_, "answer": 1}, headers=same
    ).is_success
    student.close()


def test_only_a_students_own_page_says_it_explores_and_the_lecturer_counts_it(site):
    """The status a student's page posts (exploring or following) is counted once per seat,
    only with the seat the class gave, only from the app's own pages."""
    base, store = site
    code, key, _ = predicting(base, store)
    students = [Stream(f"{base}events?class={code}") for _ in range(3)]
    for student in students:
        student.wait_for(lambda e: e.get("predict"))
    lecturer = Stream(f"{base}events?class={code}", headers={"X-Class-Key": key})
    lecturer.wait_for(lambda e: e.get("followers") == 3)
    script = httpx.Client()
    for body, cookies, headers, status in (
        ({"exploring": True}, {}, {}, 403),  # no seat
        ({"exploring": True}, {classes.SEAT_COOKIE + code: "made-up-seat-" + "x" * 12}, {}, 403),
        ({"exploring": "yes"}, None, {}, 400),
        ({"exploring": True}, None, {"Origin": "http://elsewhere.example"}, 403),
    ):
        client = students[0].client if cookies is None else script
        if cookies:
            client.cookies.update(cookies)
        said = client.post(f"{base}status?class={code}", json=body, headers=headers)
        assert said.status_code == status, (body, said.text)
    for student in students[:2]:
        for _ in range(2):  # said twice: still one student
            assert student.client.post(f"{base}status?class={code}", json={"exploring": True}).is_success
    told = lecturer.wait_for(lambda e: e.get("exploring") == 2, timeout=10)
    assert told["followers"] == 3
    assert students[1].client.post(f"{base}status?class={code}", json={"exploring": False}).is_success
    lecturer.wait_for(lambda e: e.get("exploring") == 1, timeout=10)
    for stream in (*students, lecturer):
        stream.close()


def test_three_hundred_students_behind_one_address_all_vote(site):
    base, store = site
    code, key, round_ = predicting(base, store)
    with ThreadPoolExecutor(32) as pool:
        students = list(pool.map(lambda _: Stream(f"{base}events?class={code}"), range(300)))
    try:
        assert {s.status for s in students} == {200} and len({s.seat for s in students}) == 300
        with ThreadPoolExecutor(32) as pool:
            answers = list(
                pool.map(
                    lambda s: s.client.post(f"{base}answer?class={code}", json={"round": round_, "answer": 7}),
                    students,
                )
            )
        assert [a.status_code for a in answers] == [200] * 300
        assert store.counts(code, key)["answers"] == {7: 300}
        lecturer = Stream(f"{base}events?class={code}", key=key)
        lecturer.wait_for(lambda e: e.get("followers") == 300, timeout=15)
        lecturer.close()
    finally:
        for student in students:
            student.close()


# --- bounded for everyone ----------------------------------------------------------------------


def test_the_student_cap_holds_under_a_burst(site, monkeypatch):
    base, store = site
    monkeypatch.setattr(classroom, "MAX_FOLLOWERS", 30)
    code, _ = store.start("kmp?")
    start = threading.Barrier(45)

    def arrive(_):
        start.wait()
        return Stream(f"{base}events?class={code}")

    with ThreadPoolExecutor(45) as pool:
        streams = list(pool.map(arrive, range(45)))
    try:
        statuses = sorted(s.status for s in streams)
        assert statuses == [200] * 30 + [503] * 15
        assert {s.body["error"] for s in streams if s.status == 503} == {classroom.full_class()}
        assert store.students(code) == 30
        back = next(s for s in streams if s.status == 200)
        back.close()
        again = Stream(f"{base}events?class={code}")  # a newcomer while that student reconnects: still full
        assert again.status == 503
    finally:
        for stream in streams:
            stream.close()


def test_a_lecturers_streams_are_capped_with_a_sentence(site):
    base, store = site
    code, key = store.start("kmp?")
    screens = [Stream(f"{base}events?class={code}", key=key) for _ in range(classes.LECTURER_STREAMS)]
    extra = Stream(f"{base}events?class={code}", key=key)
    assert [s.status for s in screens] == [200] * classes.LECTURER_STREAMS
    assert extra.status == 503 and "screens following it" in extra.body["error"]
    screens[0].close()
    deadline = time.monotonic() + 10
    while True:  # one screen closed: room for another
        again = Stream(f"{base}events?class={code}", key=key)
        if again.status == 200 or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert again.status == 200
    for stream in (*screens, again):
        stream.close()


def test_a_process_refuses_streams_past_its_limit_and_keeps_answering(tmp_path, monkeypatch):
    monkeypatch.setattr(classes, "stream_limit", lambda: 12)
    store = classroom.Store(tmp_path / "classes.sqlite3")
    code, key = store.start("kmp?")
    with serving(store) as base:
        held = [Stream(f"{base}events?class={code}") for _ in range(12)]
        refused = Stream(f"{base}events?class={code}")
        assert refused.status == 503 and "as many live-class connections as it can" in refused.body["error"]
        assert post(base, "drive", code, {"step": 2}, **{"X-Class-Key": key}).status_code == 200
        for stream in held:
            stream.wait_for(lambda e: e.get("step") == 2)
            stream.close()


# --- guessing that does not hurt the class -------------------------------------------------------


@pytest.fixture
def behind_proxy(monkeypatch):
    monkeypatch.setenv("MPLAB_BEHIND_PROXY", "1")


def as_from(address, written=None):
    """Headers as HAProxy sends them: what a browser wrote (``written``), then the proxy's own line."""
    lines = [("X-Forwarded-For", written)] if written else []
    return [*lines, ("X-Forwarded-For", address)]


def test_a_header_a_browser_writes_neither_dodges_the_limit_nor_locks_out_another(site, behind_proxy):
    base, store = site
    code, _ = store.start("kmp?")
    with httpx.Client() as client:
        statuses = [
            client.get(
                f"{base}events?class={classroom.new_code()}", headers=as_from("10.0.0.66", f"10.9.{n // 250}.{n % 250}")
            ).status_code
            for n in range(classroom.GUESSES + 5)
        ]
        assert statuses == [404] * (classroom.GUESSES - 1) + [429] * 6
        # the attacker wrote its victim's address first: the victim is not locked out
        victim = Stream(f"{base}events?class={code}", headers=as_from("10.9.0.1"))
        assert victim.status == 200
        victim.close()


def test_typos_from_one_campus_address_never_lock_out_a_class_that_exists(site, behind_proxy):
    base, store = site
    code, key = store.start("kmp?")
    campus = as_from("10.20.0.1")
    with httpx.Client() as client:
        for _ in range(classroom.GUESSES + 10):
            client.get(f"{base}events?class={classroom.new_code()}", headers=campus)
        assert client.get(f"{base}events?class={classroom.new_code()}", headers=campus).status_code == 429
    student = Stream(f"{base}events?class={code}", headers=campus)
    lecturer = Stream(f"{base}events?class={code}", key=key, headers=campus)
    assert student.status == 200 and lecturer.status == 200
    steer = httpx.post(f"{base}drive?class={code}", json={"step": 4}, headers=[*campus, ("X-Class-Key", key)])
    assert steer.status_code == 200  # the lecturer behind that address drives on
    student.wait_for(lambda e: e.get("step") == 4)
    for stream in (student, lecturer):
        stream.close()


def test_drive_and_answer_refuse_a_missing_class_and_a_wrong_key_alike_and_are_limited(site, behind_proxy):
    base, store = site
    code, key, round_ = predicting(base, store)
    missing = classroom.new_code()
    prober = as_from("10.30.0.1")

    def drive(where, with_key):
        return httpx.post(f"{base}drive?class={where}", json={"step": 1}, headers=[*prober, ("X-Class-Key", with_key)])

    def answer(where):
        cookie = ("Cookie", f"mpl_seat_{where}={'A' * 24}")
        return httpx.post(f"{base}answer?class={where}", json={"round": round_, "answer": 1}, headers=[*prober, cookie])

    pairs = [(drive(code, "wrong-key"), drive(missing, key)), (answer(code), answer(missing))]
    for existing, absent in pairs:
        assert (existing.status_code, existing.json()) == (absent.status_code, absent.json())
        assert existing.status_code == 403
    for _ in range(classroom.GUESSES):
        drive(classroom.new_code(), key)
    assert drive(code, "wrong-key").status_code == 429 and answer(missing).status_code == 429
    assert drive(code, key).status_code == 200  # the right key is never limited


# --- bodies ------------------------------------------------------------------------------------


def raw_post(base, path, head, body_parts=(), timeout=10):
    """Send a request's head (and the body's parts, if any) on a plain socket; the status line
    the server answers with, read within ``timeout`` seconds (None: no answer)."""
    where = urlsplit(base)
    with socket.create_connection((where.hostname, where.port), timeout=timeout) as sock:
        sock.sendall(f"POST {where.path}{path} HTTP/1.1\r\nHost: {where.netloc}\r\n{head}\r\n".encode())
        try:
            for part in body_parts:
                sock.sendall(part)
        except OSError:  # the server answered and closed while the body was still going
            pass
        try:
            answer = sock.recv(65536)
        except TimeoutError:
            return None
    return answer.split(b"\r\n", 1)[0].decode()


def test_a_body_too_large_is_refused_from_its_length_before_it_is_read(site):
    base, store = site
    code, key = store.start("kmp?")
    head = f"X-Class-Key: {key}\r\nContent-Type: application/json\r\nContent-Length: 400000000\r\n"
    assert raw_post(base, f"drive?class={code}", head) == "HTTP/1.1 413 Request Entity Too Large"
    # a body without a length: refused once it passes the bound, not read to its end
    chunk = b"x" * 65536
    chunked = (f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n" for _ in range(200))  # 13 MB
    head = f"X-Class-Key: {key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
    assert raw_post(base, f"drive?class={code}", head, chunked) == "HTTP/1.1 413 Request Entity Too Large"
    assert store.find(code).version == 1


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)
NAMES = st.sampled_from(["step", "address", "predict", "question", "reveal", "again", "key", "round", "answer", "x"])


@pytest.fixture(scope="module")
def asking(site):
    """A class asking for predictions, and a student in it: ``(base, code, key, student)``."""
    base, store = site
    code, key, _ = predicting(base, store)
    student = Stream(f"{base}events?class={code}")
    yield base, code, key, student
    student.close()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    drive_body=st.dictionaries(NAMES, JSON, max_size=4) | JSON,
    answer_body=st.dictionaries(NAMES, JSON, max_size=4) | JSON,
)
def test_every_malformed_body_gets_a_sentence_never_a_crash(asking, drive_body, answer_body):
    base, code, key, student = asking
    # (the class's state may change from one example to the next: each answer is still a sentence)
    steer = post(base, "drive", code, drive_body, **{"X-Class-Key": key})
    assert steer.status_code in (200, 400, 415), steer.text  # (415: no body at all, so no JSON)
    if not steer.is_success:
        assert steer.json()["error"].endswith(".")
    vote = student.client.post(f"{base}answer?class={code}", json=answer_body)
    assert vote.status_code in (200, 400, 409, 415, 429), vote.text
    if not vote.is_success:
        assert vote.json()["error"].endswith(".")


def test_a_drive_naming_the_key_in_its_body_is_a_sentence(site):
    base, store = site
    code, key = store.start("kmp?")
    answer = post(base, "drive", code, {"key": "x", "step": 2}, **{"X-Class-Key": key})
    assert answer.status_code == 400 and answer.json()["error"] == "A class has no setting 'key'."


def test_every_shipped_lesson_drives_a_class_from_its_file(site):
    """Each scene of each shipped lesson opened from its file (the lesson travels in the
    address): the lecturer's change is taken, and a student's stream carries the address
    once per view."""
    from test_classroom import lesson_file_addresses

    base, store = site
    code, key = store.start("kmp?")
    student = Stream(f"{base}events?class={code}")
    addresses = lesson_file_addresses()
    for address in addresses:
        for step in (0, 1):
            answer = post(base, "drive", code, {"address": address, "step": step}, **{"X-Class-Key": key})
            assert answer.status_code == 200, answer.text
        student.wait_for(lambda e, address=address: e.get("address") == address and e.get("step") == 1)
    views = [e for e in student.raw if "view" in e]
    assert sum("address" in e for e in views) == len(set(addresses)) + 1  # each view once (and the first, kmp?)
    student.close()
