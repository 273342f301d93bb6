"""URL values: parsing, clamping and rejection."""

from ui.state import Control, format_value


def test_parse_and_clamp():
    k = Control("k", 10, int, lo=1, hi=50)
    assert k.parse("12") == 12 and k.parse("12.6") == 13
    assert k.parse("0") == 1 and k.parse("999") == 50
    assert k.parse("abc") is None
    flag = Control("log", False, bool)
    assert flag.parse("true") is True and flag.parse("0") is False and flag.parse("maybe") is None
    choice = Control("deflation", "projection", str, options=("none", "projection"))
    assert choice.parse("none") == "none" and choice.parse("bogus") is None
    delta = Control("delta", 0.05, float, options=(0.01, 0.05, 0.1))
    assert delta.parse("0.1") == 0.1 and delta.parse("0.2") is None
    assert Control("x", 1.0, float).parse("nan") is None


def test_format_round_trips():
    for control, value in (
        (Control("a", 1, int), 7),
        (Control("b", 0.5, float), 0.05),
        (Control("c", True, bool), False),
    ):
        assert control.parse(format_value(value)) == value


def test_subset_controls_keep_option_order():
    control = Control("deflations", ("schur",), tuple, options=("none", "hotelling", "schur"))
    assert control.parse("schur,none") == ("none", "schur")
    assert control.parse("schur,bogus") is None and control.parse("") is None
    assert control.valid(["none"]) and not control.valid(["bogus"]) and not control.valid("none")
    assert format_value(("none", "schur")) == "none,schur"
    assert control.parse(format_value(("hotelling", "schur"))) == ("hotelling", "schur")


def test_a_shared_result_is_computed_once_however_many_sessions_ask_at_once():
    """Eight sessions ask for the same key while its first computation is running: they
    wait for it instead of repeating it; a new key pushes the oldest out."""
    import threading
    from collections import OrderedDict
    from concurrent.futures import ThreadPoolExecutor

    from serving.lines import bounded_get

    store, calls, started, release = OrderedDict(), [], threading.Event(), threading.Event()

    def compute():
        calls.append(1)
        started.set()
        release.wait()
        return "payload"

    with ThreadPoolExecutor(8) as pool:
        first = pool.submit(bounded_get, store, "lesson", compute, 2)
        started.wait()
        others = [pool.submit(bounded_get, store, "lesson", compute, 2) for _ in range(7)]
        release.set()
        assert [f.result() for f in [first, *others]] == ["payload"] * 8
    assert len(calls) == 1
    bounded_get(store, "b", lambda: "b", 2)
    bounded_get(store, "c", lambda: "c", 2)
    assert list(store) == ["b", "c"]


def _line_up(queue, n, hold, order, reports):
    """Start ``n`` threads that each wait for a turn in ``queue``, in this order (each is in
    the line before the next starts); a turn records the thread's number, then waits for ``hold``."""
    import threading

    threads = []
    for number in range(n):

        def work(number=number):
            with queue.turn(lambda ahead, number=number: reports.setdefault(number, []).append(ahead)):
                order.append(number)
                hold.wait()

        thread = threading.Thread(target=work, daemon=True)
        thread.start()
        threads.append(thread)
        while queue.waiting() + len(order) < number + 1:  # in the line (or running) before the next comes
            threading.Event().wait(0.001)
    return threads


def test_computations_take_turns_first_come_first_served_and_see_their_place():
    import threading

    from serving.lines import FairQueue

    queue, hold, order, reports = FairQueue(slots=1), threading.Event(), [], {}
    threads = _line_up(queue, 6, hold, order, reports)
    assert order == [0] and queue.waiting() == 5
    for number in range(1, 6):  # each was told how many were ahead of it when it arrived
        assert reports[number][0] == number
    hold.set()
    for thread in threads:
        thread.join(timeout=30)
    assert order == list(range(6)), "computations ran out of their order of arrival"
    for number in range(1, 6):  # the places counted down, never up
        assert reports[number] == sorted(reports[number], reverse=True) and reports[number][-1] >= 1


def test_a_session_that_leaves_the_line_gives_its_place_up_and_two_slots_run_two():
    import threading

    from serving.lines import FairQueue

    queue, hold = FairQueue(slots=1), threading.Event()
    running = threading.Event()
    leaving = threading.Event()

    def first():
        with queue.turn():
            running.set()
            hold.wait()

    def report(ahead):  # the session reran while waiting: Streamlit stops its script
        leaving.set()
        raise RuntimeError("rerun")

    threading.Thread(target=first, daemon=True).start()
    running.wait(10)
    errors = []

    def second():
        try:
            with queue.turn(report):
                pass
        except RuntimeError as error:
            errors.append(error)

    waiter = threading.Thread(target=second, daemon=True)
    waiter.start()
    waiter.join(10)
    assert leaving.is_set() and errors and queue.waiting() == 0
    hold.set()

    pair, hold2, order, reports = FairQueue(slots=2), threading.Event(), [], {}
    threads = _line_up(pair, 3, hold2, order, reports)
    assert sorted(order) == [0, 1] and pair.waiting() == 1 and reports[2][0] == 1
    hold2.set()
    for thread in threads:
        thread.join(timeout=30)
    assert order[2] == 2


def _wait_for(condition, what):
    import threading

    for _ in range(10_000):  # a condition, not a clock: up to 10 s on a loaded machine
        if condition():
            return
        threading.Event().wait(0.001)
    raise AssertionError(f"never happened: {what}")


def test_page_scripts_run_in_turns_in_their_order_of_arrival():
    import threading

    from serving.lines import RunGate

    gate, hold, order = RunGate(slots=1), threading.Event(), []

    def script(number):
        with gate.run():
            order.append(number)
            if number == 0:
                hold.wait(10)

    threads = []
    for number in range(6):
        threads.append(threading.Thread(target=script, args=(number,), daemon=True))
        threads[-1].start()
        _wait_for(lambda: gate.waiting() + len(order) == number + 1, f"script {number} in line")
    assert order == [0] and gate.waiting() == 5  # one at a time: the others wait
    hold.set()
    for thread in threads:
        thread.join(timeout=30)
    assert order == list(range(6)), "scripts ran out of their order of arrival"


def test_a_script_that_waits_for_a_computation_lets_the_line_move_and_comes_back_first():
    import threading

    from serving.lines import RunGate

    gate, order = RunGate(slots=1), []
    computing, computed, second_running, release_second = (threading.Event() for _ in range(4))

    def first():
        with gate.run():
            order.append("first starts")
            with gate.released():
                computing.set()
                computed.wait(10)
            order.append("first ends")

    def second():
        with gate.run():
            order.append("second")
            second_running.set()
            release_second.wait(10)

    def third():
        with gate.run():
            order.append("third")

    threading.Thread(target=first, daemon=True).start()
    _wait_for(computing.is_set, "the first script computes")
    threading.Thread(target=second, daemon=True).start()
    _wait_for(second_running.is_set, "the second script runs while the first computes")
    late = threading.Thread(target=third, daemon=True)
    late.start()
    _wait_for(lambda: gate.waiting() == 1, "the third script waits")
    computed.set()  # the first comes back while the second runs: it waits at the head of the line
    _wait_for(lambda: gate.waiting() == 2, "the first script is back in line")
    release_second.set()
    late.join(timeout=30)
    assert order == ["first starts", "second", "first ends", "third"]


def test_a_turn_held_past_its_patience_stops_holding_the_line():
    import threading

    from serving.lines import RunGate

    gate, hold, passed = RunGate(slots=1, patience=0.2), threading.Event(), threading.Event()

    def stuck():
        with gate.run():
            hold.wait(30)

    def next_one():
        with gate.run():
            passed.set()

    threading.Thread(target=stuck, daemon=True).start()
    _wait_for(lambda: gate._holders, "the stuck script runs")
    threading.Thread(target=next_one, daemon=True).start()
    _wait_for(passed.is_set, "the next script runs while the stuck one still holds its turn")
    assert not hold.is_set()
    hold.set()


def test_a_shared_store_keeps_to_its_byte_budget_and_counts_shared_buffers_once():
    from collections import OrderedDict

    import numpy as np

    from serving.lines import bounded_get, footprint

    big = np.zeros(1000)  # 8,000 bytes
    assert footprint({"a": big, "b": [big[:10], (big, 3)]}) == 8000  # a view and a repeat: one buffer
    store = OrderedDict()
    for number in range(4):
        bounded_get(store, number, lambda: (np.zeros(1000), "seconds"), limit=10, budget=20_000)
    assert list(store) == [2, 3]  # two of 8,000 bytes fit in 20,000: the oldest went first
    bounded_get(store, "huge", lambda: np.zeros(10_000), limit=10, budget=20_000)
    assert list(store) == ["huge"]  # the newest stays even alone above the budget
