"""One client against the class, in the serving layer's lines and stores
(``serving/lines.py``): clients take turns in the computing line and in the page scripts'
turns, and a store full of one client's studies gives those up before what the class uses.

Each case failed on the first-come, first-served lines and the least-recently-used stores
that came before."""

import threading
from collections import Counter, OrderedDict

import numpy as np
import pytest
from test_state import _wait_for

from serving.clients import SERVER, Client, address_of
from serving.lines import FairQueue, RunGate, bounded_get, fair_order

ATTACKER = Client("10.0.0.66", "a1")


def student(number):
    return Client(f"10.0.1.{number}", f"s{number}")


def test_the_fair_order_lets_clients_take_turns():
    class Place:
        def __init__(self, client, name):
            self.client, self.name = client, name

    line = [Place(ATTACKER, f"a{n}") for n in range(4)] + [Place(student(1), "s1"), Place(student(2), "s2")]
    order = [place.name for place in fair_order(line, Counter(), {})]
    assert order[:3] == ["a0", "s1", "s2"] and order[3:] == ["a1", "a2", "a3"]
    # the same address: its sessions take turns, each session's own first come first served
    same = [
        Place(Client("10.0.0.9", "x"), "x0"),
        Place(Client("10.0.0.9", "x"), "x1"),
        Place(Client("10.0.0.9", "y"), "y0"),
    ]
    assert [place.name for place in fair_order(same, Counter(), {})] == ["x0", "y0", "x1"]


def test_one_client_with_many_computations_holds_one_share_of_the_line():
    """Five of one client's studies wait behind its running one; a student's study asked
    after them starts next, and is told only the running one is ahead."""
    queue, hold, order, told = FairQueue(slots=1), threading.Event(), [], {}

    def work(client, name):
        with queue.turn(lambda ahead: told.setdefault(name, ahead), client=client):
            order.append(name)
            hold.wait(30)

    threads = []
    for number in range(6):
        threads.append(threading.Thread(target=work, args=(ATTACKER, f"a{number}"), daemon=True))
        threads[-1].start()
        _wait_for(lambda: queue.waiting() + len(order) == number + 1, "in line")
    threads.append(threading.Thread(target=work, args=(student(1), "student"), daemon=True))
    threads[-1].start()
    _wait_for(lambda: queue.waiting() == 6, "the student in line")
    assert told["student"] == 1, told
    hold.set()
    for thread in threads:
        thread.join(timeout=30)
    assert order[:2] == ["a0", "student"], order
    assert order[2:] == [f"a{n}" for n in range(1, 6)], "one client's own studies still run in their order"


def test_one_client_with_many_page_runs_does_not_stand_between_a_student_and_their_page():
    gate, hold, order = RunGate(slots=1), threading.Event(), []

    def script(client, name):
        with gate.run(client):
            order.append(name)
            if name == "a0":
                hold.wait(30)

    threads = []
    for number in range(8):
        threads.append(threading.Thread(target=script, args=(ATTACKER, f"a{number}"), daemon=True))
        threads[-1].start()
        _wait_for(lambda: gate.waiting() + len(order) == number + 1, "in line")
    threads.append(threading.Thread(target=script, args=(student(1), "student"), daemon=True))
    threads[-1].start()
    _wait_for(lambda: gate.waiting() == 8, "the student in line")
    hold.set()
    for thread in threads:
        thread.join(timeout=30)
    assert order[:2] == ["a0", "student"], order


def test_a_clients_studies_give_each_other_up_before_the_lesson_the_class_is_on():
    """Thirty distinct studies from one client into a store of eight: the lesson twenty
    students opened, and the scene the server warmed, stay; the client's own oldest go."""
    store = OrderedDict()
    bounded_get(store, "warmed scene", lambda: "scene", limit=8, client=SERVER)
    for number in range(20):
        bounded_get(store, "lesson", lambda: "lesson", limit=8, client=student(number))
    for number in range(30):
        bounded_get(store, f"attack {number}", lambda: "expensive", limit=8, client=ATTACKER)
    assert "lesson" in store and "warmed scene" in store
    assert [key for key in store if key.startswith("attack")] == [f"attack {n}" for n in range(24, 30)]
    # a student's own new study is kept beside them, and goes before the lesson when one must
    bounded_get(store, "own", lambda: "own", limit=8, client=student(3))
    assert "own" in store and "lesson" in store


def test_a_byte_budget_gives_up_one_clients_studies_first():
    store = OrderedDict()
    for number in range(5):
        bounded_get(store, "lesson", lambda: np.zeros(1000), limit=32, budget=40_000, client=student(number))
    for number in range(10):
        bounded_get(store, number, lambda: np.zeros(1000), limit=32, budget=40_000, client=ATTACKER)
    assert "lesson" in store and len(store) == 5  # 8,000 bytes each: five fit in 40,000


@pytest.mark.parametrize(
    "peer,forwarded,behind,expected",
    [
        ("127.0.0.1", "10.0.0.5", True, "10.0.0.5"),  # the proxy's own entry
        ("127.0.0.1", "6.6.6.6, 10.0.0.5", True, "10.0.0.5"),  # what a browser wrote comes before it
        ("127.0.0.1", "10.0.0.5", False, "127.0.0.1"),  # not behind the proxy: the header is anyone's
        ("10.0.0.7", "1.2.3.4", True, "10.0.0.7"),  # not from the proxy: the header is not read
        ("127.0.0.1", "not an address", True, "127.0.0.1"),
        (None, None, False, "unknown"),
    ],
)
def test_a_clients_address_is_the_one_the_proxy_saw(peer, forwarded, behind, expected):
    assert address_of(peer, forwarded, behind) == expected


def test_a_new_session_shares_its_addresss_share_instead_of_jumping_the_line():
    """One address, a student's session served once before; then a client at the same
    address (a campus NAT) opens thirty new sessions, each asking once: the student's next
    request goes before all of them (a new session used to count as never served, and
    every one went first)."""

    class Place:
        def __init__(self, client, name):
            self.client, self.name = client, name

    campus, served = "10.9.0.1", {}
    clock = iter(range(1, 10_000))
    victim = Client(campus, "victim")
    for level in ((0, campus), (1, "victim")):
        served[level] = next(clock)  # the student's earlier turn
    served[(0, campus)] = next(clock)  # ... and the attacker's first, a moment later
    line = [Place(Client(campus, f"new{n}"), f"new{n}") for n in range(30)] + [Place(victim, "student")]
    order = [place.name for place in fair_order(line, Counter(), served)]
    assert order[0] == "student", order[:3]
    assert order[1:] == [f"new{n}" for n in range(30)]  # among themselves, first come first served
    # a new address still comes first: a student new to the class is not made to wait
    newcomer = Place(Client("10.9.0.2", "first visit"), "newcomer")
    assert fair_order([*line, newcomer], Counter(), served)[0].name == "newcomer"
