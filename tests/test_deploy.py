"""Serving a class with ``deploy/``: app processes behind HAProxy with sticky sessions.

The proxied tests need Debian's ``haproxy`` (``.ci/run`` installs it; under CI its
absence is a failure, elsewhere they are skipped).  They run the real thing: two app
processes, HAProxy in front, students speaking Streamlit's websocket protocol
(:mod:`benchmarks.visit`), and one student in Chromium whose process is killed.
"""

import asyncio
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from browser_support import app_page, browser, click_like_a_person, settled  # noqa: F401 (fixture)

from benchmarks.visit import open_pages, stream_url
from deploy.serve import Deployment, haproxy_config, haproxy_path, lesson_addresses
from views import lessons

COOKIE = "MPLAB_SERVER"


def test_the_proxy_config_has_one_sticky_checked_server_per_process(tmp_path):
    text = haproxy_config("0.0.0.0:8501", [9001, 9002, 9003], tmp_path / "stats.sock")
    assert "$" not in text
    servers = [line.split() for line in text.splitlines() if line.strip().startswith("server ")]
    assert [words[1:3] for words in servers] == [
        ["app1", "127.0.0.1:9001"],
        ["app2", "127.0.0.1:9002"],
        ["app3", "127.0.0.1:9003"],
    ]
    assert all("check" in words and words[-2:] == ["cookie", words[1]] for words in servers)
    lines = {line.strip() for line in text.splitlines()}
    assert {"bind 0.0.0.0:8501", "option redispatch", "balance leastconn", "timeout tunnel 1h"} <= {
        line.split("#")[0].strip() for line in lines
    }
    assert any(line.startswith(f"cookie {COOKIE} insert") for line in lines)
    assert f'stats socket "{tmp_path / "stats.sock"}"' in text


def test_the_processes_share_the_cores_for_computing(monkeypatch, tmp_path):
    if haproxy_path() is None:
        pytest.skip("HAProxy is not installed")
    monkeypatch.delenv("MPLAB_COMPUTE_SLOTS", raising=False)
    monkeypatch.setattr("serving.lines.cores", lambda: 8)
    slots = [
        Deployment(n, port=0, quiet=True, folder=tmp_path / str(n)).env["MPLAB_COMPUTE_SLOTS"] for n in (1, 2, 3, 16)
    ]
    assert slots == ["8", "4", "2", "1"]  # each process one computation per core of its own
    monkeypatch.setenv("MPLAB_COMPUTE_SLOTS", "3")  # the operator's choice stands
    assert Deployment(2, port=0, quiet=True, folder=tmp_path / "set").env["MPLAB_COMPUTE_SLOTS"] == "3"


def test_warming_opens_every_scene_of_the_named_lessons():
    addresses = lesson_addresses(["2-kmp", "4-nystrom"])
    kmp, nystrom = lessons.shipped()["2-kmp"], lessons.shipped()["4-nystrom"]
    assert len(addresses) == len(kmp.scenes) + len(nystrom.scenes)
    assert addresses[0][0] == "kmp" and "lesson=2-kmp" in addresses[0][1] and "scene=1" in addresses[0][1]
    assert addresses[-1][0] == "column-selection" and f"scene={len(nystrom.scenes)}" in addresses[-1][1]
    assert len(lesson_addresses(["all"])) == sum(len(lesson.scenes) for lesson in lessons.shipped().values())


@pytest.fixture(scope="module")
def deployment(tmp_path_factory):
    if haproxy_path() is None:
        message = "HAProxy is not installed (Debian: apt-get install haproxy)"
        if os.environ.get("CI"):
            pytest.fail(f"The deployment test cannot run under CI: {message}")
        pytest.skip(message)
    warm = lesson_addresses(["2-kmp"])[:2]
    with Deployment(
        2, port=0, address="127.0.0.1", warm=warm, quiet=True, folder=tmp_path_factory.mktemp("serve")
    ) as served:
        yield served


def until(condition, what, timeout=180):
    """Wait for ``condition()`` (polled), failing with ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"gave up waiting: {what}")
        time.sleep(0.2)


def students(url, opens, **options):
    """Open ``opens`` at once through ``url``, in a thread of its own: the browser test's
    Playwright keeps an event loop running in this one (the order of the tests is random)."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, open_pages(stream_url(url), opens, **options)).result()


def test_ten_students_through_the_proxy_get_their_pages_from_both_processes(deployment):
    until(deployment.all_up, "every process up (another test may have killed one)")
    visits = students(deployment.url, [("kmp", "data=sinc&gamma=3&k=30")] * 10, timeout=300)
    assert [visit.error for visit in visits] == [None] * 10
    assert {visit.cookies.get(COOKIE) for visit in visits} == {backend.name for backend in deployment.backends}
    assert min(visit.received for visit in visits) > 100_000  # the step player's payload reached each


def test_every_process_is_warmed_with_the_lessons_scenes(deployment):
    for backend in deployment.backends:
        until(backend.warmed.is_set, f"app process {backend.number} warmed")
        assert backend.warm_failures == []


def test_a_killed_process_is_replaced_and_its_students_reopen_their_pages_elsewhere(deployment):
    """Six students ask for six new studies; once the first process has some of them, it is
    killed: every student still gets a page (reconnecting, as a browser does), and the
    process is started again and taken back into the rotation."""
    until(deployment.all_up, "every process up (another test may have killed one)")
    opens = [("kmp", f"data=xor&points=3000&k=40&seed={7000 + i}") for i in range(6)]
    first = deployment.backends[0]
    starts, name = first.starts, first.name
    result = {}
    burst = threading.Thread(
        target=lambda: result.update(visits=students(deployment.url, opens, timeout=300, reconnect=True))
    )
    burst.start()
    until(lambda: deployment.stats()[name]["current"] > 0, "a student on the first process")
    first.stop(kill=True)
    burst.join(timeout=600)
    visits = result["visits"]
    assert [visit.error for visit in visits] == [None] * 6
    assert any(visit.reconnects for visit in visits), "no student was on the killed process"
    until(lambda: first.starts == starts + 1 and first.running(), "the killed process started again")
    assert first.name != name  # in its other slot: its students' cookies now name a server that is down
    until(deployment.all_up, "HAProxy sending students to the restarted process")


def test_a_browser_whose_process_dies_reopens_its_page_as_it_was(deployment, browser):  # noqa: F811
    """A student in Chromium at step 7 with the text at 125%: their process is killed.  The
    page reconnects through the proxy to a live process, notices it was moved and reloads
    from its address: the same step and text size, and a mouse click is answered there."""
    with app_page(browser, f"{deployment.url}/kmp?data=sinc&gamma=3&k=30&text=125&step=5") as page:
        settled(page, step=5)
        page.keyboard.press("PageDown")
        page.keyboard.press("PageDown")
        page.wait_for_function("new URL(location.href).searchParams.get('step') === '7'")
        server = next(c["value"] for c in page.context.cookies() if c["name"] == COOKIE)
        page.evaluate("window.__mplBeforeKill = true")  # gone once the page reloads
        next(b for b in deployment.backends if b.name == server).stop(kill=True)
        page.wait_for_function("!window.__mplBeforeKill", timeout=120_000)
        state = settled(page, step=7)
        assert state["step"] == 7 and page.evaluate("window.__mplPlayer.scale") == 1.25
        assert next(c["value"] for c in page.context.cookies() if c["name"] == COOKIE) != server
        row = page.locator(".st-key-title-row")
        click_like_a_person(page, row.get_by_role("radio", name="150%"))
        page.wait_for_function("new URL(location.href).searchParams.get('text') === '150'", timeout=120_000)
        settled(page)
        assert page.evaluate("window.__mplPlayer.scale") == 1.5 and "step=7" in page.url
        assert page.locator("[data-testid='stException']").count() == 0


def test_first_visits_through_the_proxy_get_each_file_compressed_once(deployment):
    """Ten browsers new to the app fetch the page's scripts and plotly.js through the proxy
    (six connections each, as a browser does), then open the page: no error, and each file
    arrives gzip-encoded once -- compressed by the app, not again by HAProxy -- decoding to
    the file on disk (serving/kept_files.py)."""
    import gzip
    import re
    import urllib.request
    from pathlib import Path

    import streamlit

    from benchmarks.class_load import first_visits
    from views import player

    until(deployment.all_up, "every process up (another test may have killed one)")
    html = urllib.request.urlopen(f"{deployment.url}/kmp").read().decode()
    scripts = ["/" + path for path in re.findall(r'src="\./(static/js/[^"]+\.js)"', html)]
    plotly = "/" + player.plotly_url()
    on_disk = {scripts[0]: Path(streamlit.__file__).parent / "static" / scripts[0][1:], plotly: player.PLOTLY_BUNDLE}
    for path, file in on_disk.items():
        asked = urllib.request.Request(f"{deployment.url}{path}", headers={"Accept-Encoding": "gzip"})
        answer = urllib.request.urlopen(asked)
        assert answer.headers["Content-Encoding"] == "gzip" and gzip.decompress(answer.read()) == file.read_bytes()
    opens = [("kmp", "data=sinc&gamma=3&k=30")] * 10
    with ThreadPoolExecutor(1) as thread:
        visits = thread.submit(
            asyncio.run, first_visits(deployment.url, opens, [*scripts, plotly], timeout=300)
        ).result()
    assert [visit.error for visit in visits] == [None] * 10
    static = Path(streamlit.__file__).parent / "static"
    plain = sum((static / path[1:]).stat().st_size for path in scripts) + player.PLOTLY_BUNDLE.stat().st_size
    assert all(visit.received < plain / 2 for visit in visits)  # compressed on the wire, the payload too


def test_a_live_class_spans_the_processes_and_outlives_a_killed_one(deployment):
    """The lecturer posts to one process and the students follow from both, each on its own
    stream; then a student's process is killed: the student reconnects through the proxy,
    and once the process is restarted the lecturer's next step reaches every student within
    5 s (the class lives in the processes' shared file, not in the dead one)."""
    import httpx
    from class_support import Stream

    from views import classroom

    until(deployment.all_up, "every process up (another test may have killed one)")
    store = classroom.Store(deployment.env["MPLAB_CLASSES"])  # the file every process opens
    code, key = store.start("kmp?data=xor")
    first, second = deployment.backends
    doomed = Stream(
        f"{first.url}/mpl/class/events?class={code}", f"{deployment.url}/mpl/class/events?class={code}", reconnect=True
    )
    other = Stream(f"{second.url}/mpl/class/events?class={code}")
    proxied = Stream(f"{deployment.url}/mpl/class/events?class={code}", reconnect=True)  # on either process

    def step(url, number):
        answer = httpx.post(f"{url}/mpl/class/drive?class={code}", json={"step": number}, headers={"X-Class-Key": key})
        assert answer.status_code == 200, answer.text

    step(second.url, 1)  # the lecturer on the second process; a student on the first hears it
    for stream in (doomed, other, proxied):
        stream.wait_for(lambda e: e.get("step") == 1)
    starts = first.starts
    first.stop(kill=True)
    until(lambda: first.starts == starts + 1 and deployment.all_up(), "the killed process started again")
    step(deployment.url, 2)
    started = time.monotonic()
    for stream in (doomed, other, proxied):
        stream.wait_for(lambda e: e.get("step") == 2, timeout=5 - (time.monotonic() - started))
    assert doomed.opens >= 2  # it did reconnect, through the proxy
    for stream in (doomed, other, proxied):
        stream.close()
