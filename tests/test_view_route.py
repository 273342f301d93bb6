"""A setting's new value (a slider dragged, a select's option, a toggle), fetched by the
player as a step is (serving/routes.py ``view``): the payload name of a page's picture at an
address and the view's settings, computed in the asker's share and kept for the page's own
rerun, and a sentence for everything it refuses; and which settings a page lets the player
follow (views.pictures ``followed``)."""

import asyncio
import gzip
import json
from collections import Counter
from urllib.parse import parse_qsl, urlencode

import pytest
from starlette.requests import Request
from test_player import _serving

from serving import routes as serving_routes
from ui import compute
from views import pictures, player, site
from views.pictures.settings import view_address

QUERY = "data=sinc&points=200&gamma=1&k=5"


def _asked(path, query="", headers=()):
    """The view route's answer to a GET of ``/mpl/view/<path>?query`` from 203.0.113.7 (a coroutine)."""
    route = next(route for route in serving_routes.routes() if route.path.endswith("view/{page}"))
    url = f"/mpl/view/{path}"
    match, scope = route.matches({"type": "http", "method": "GET", "path": url, "headers": []})
    asked = {
        "type": "http",
        "method": "GET",
        "path": url,
        "headers": [(name.encode(), value.encode()) for name, value in headers],
        "query_string": query.encode(),
        "client": ("203.0.113.7", 50000),
    }
    return route.endpoint(Request({**asked, **scope}))


def _view(path, query="", headers=()):
    """The view route answering a GET of ``/mpl/view/<path>?query``: (status, body)."""
    response = asyncio.run(_asked(path, query, headers))
    return response.status_code, response.body.decode()


@pytest.fixture
def served(monkeypatch):
    monkeypatch.setattr(serving_routes, "_KEPT", type(serving_routes._KEPT)())
    monkeypatch.setattr(serving_routes, "_NAMES", {})
    monkeypatch.setattr(serving_routes, "_LINKED", type(serving_routes._LINKED)())
    _serving(monkeypatch)


def test_a_view_is_the_pages_picture_at_that_address_kept_for_its_rerun(served):
    status, body = _view("kmp", QUERY, [("sec-fetch-site", "same-origin")])
    assert status == 200, body
    answer = json.loads(body)
    view = pictures.open_address("kmp", dict(parse_qsl(QUERY)))
    assert answer["address"] == view_address("kmp", view.query)
    # every setting of the view, defaults included, but how it is shown: the player's name for it
    _, address = pictures.read_address("kmp", dict(parse_qsl(QUERY)))
    assert answer["values"] == pictures.view_values(address.values)
    assert answer["values"]["gamma"] == "1" and answer["values"]["std"] == "true" and "present" not in answer["values"]
    with serving_routes._KEPT_LOCK:
        payload = json.loads(gzip.decompress(serving_routes._KEPT[answer["name"]]))
    assert payload["page"] == "kmp" and payload["n_steps"] == view.picture.n_steps == 5
    # the page's own rerun for the same settings draws nothing again: the same payload, named the same
    settings, _ = pictures.read_address("kmp", dict(parse_qsl(QUERY)))
    found, kept = compute.SERVING.cached("payloads", settings.key())
    assert found and compute.SERVING.payload_name(kept[0]) == answer["name"]
    # and a browser opening that address is told to fetch it early
    assert serving_routes.linked_payload("/kmp", urlencode(view.query)) == answer["name"]


def test_a_dragged_value_is_read_as_a_link_reads_it(served):
    """A value the slider shows mid-drag (a float's last digits, a k past what the size
    allows) comes back as the address the page writes."""
    status, body = _view("kmp", "data=sinc&points=200&noise=0.15000000000000002&k=400")
    assert status == 200, body
    address = json.loads(body)["address"]
    query = dict(parse_qsl(address.split("?", 1)[1]))
    assert query["noise"] == "0.15"
    assert int(query["k"]) < 200  # clamped to what 200 points allow, as a link is


def test_a_view_is_computed_in_the_asking_clients_share(served, monkeypatch):
    seen = []
    real = compute.prepare

    def prepare(page, query, ready=None):
        seen.append(compute.SERVING.client())
        return real(page, query, ready)

    monkeypatch.setattr(compute, "prepare", prepare)
    assert _view("kmp", QUERY, [("x-forwarded-for", "198.51.100.9")])[0] == 200
    assert [client.address for client in seen] == ["203.0.113.7"]  # not behind the proxy: the peer, not the header
    assert compute.SERVING.client().address == "server"  # and the thread gives the share back


def test_the_answer_goes_when_the_payload_is_kept_and_the_view_counts_until_its_study_is(served, monkeypatch):
    """A study computed in a child hands its payload over before its arrays have crossed
    (``ready``): the route answers then, with that payload's name, and the view stays in
    flight -- its address's next view refused as a script's would be -- until its study is
    kept."""
    import threading

    crossed = threading.Event()
    real = compute.prepare

    def prepare(page, query, ready=None):  # the real picture; its study's crossing held
        settings, gz, address = real(page, query)
        ready(gz, address)
        assert crossed.wait(30)
        return settings, gz, address

    monkeypatch.setattr(compute, "prepare", prepare)
    monkeypatch.setattr(serving_routes, "_VIEWS_IN_FLIGHT", Counter())
    monkeypatch.setattr(serving_routes, "VIEWS_PER_ADDRESS", 1)

    async def asked():
        answer = await _asked("kmp", QUERY)
        held = dict(serving_routes._VIEWS_IN_FLIGHT)
        refused = await _asked("kmp", QUERY.replace("k=5", "k=4"))
        crossed.set()
        while serving_routes._VIEWS_IN_FLIGHT:  # the view's thread ends, and gives its place back
            await asyncio.sleep(0.01)
        return answer, held, refused

    answer, held, refused = asyncio.run(asked())
    assert answer.status_code == 200, answer.body
    assert held == {"203.0.113.7": 1}
    with serving_routes._KEPT_LOCK:
        assert json.loads(gzip.decompress(serving_routes._KEPT[json.loads(answer.body)["name"]]))["page"] == "kmp"
    assert refused.status_code == 429, refused.body


def test_a_value_asked_ahead_uses_only_what_no_one_waits_for(served, monkeypatch):
    """The player's guess at the next value (``ahead=1``) is computed as another session of
    its address, never ahead of a computation waiting or beside a view of that address being
    drawn: a sentence instead, and nothing computed."""
    from serving import lines

    seen = []
    real = compute.prepare

    def prepare(page, query, ready=None):
        seen.append((compute.SERVING.client(), dict(query)))
        return real(page, query, ready)

    monkeypatch.setattr(compute, "prepare", prepare)
    busy = lines.FairQueue(slots=1)
    with busy.turn():  # the one slot taken: a guess waits for no one, it is refused
        monkeypatch.setattr(lines, "QUEUE", busy)
        status, body = _view("kmp", QUERY + "&ahead=1")
        assert (status, "busy" in body, seen) == (503, True, [])
    monkeypatch.setattr(serving_routes, "_VIEWS_IN_FLIGHT", Counter({"203.0.113.7": 1}))
    assert _view("kmp", QUERY + "&ahead=1")[0] == 503 and not seen  # its address's own view first
    monkeypatch.setattr(serving_routes, "_VIEWS_IN_FLIGHT", Counter())
    status, body = _view("kmp", QUERY + "&ahead=1")
    assert status == 200, body
    assert [(client.session, query.get("ahead")) for client, query in seen] == [("ahead", None)]
    assert json.loads(body)["name"] == json.loads(_view("kmp", QUERY)[1])["name"]  # the same picture


@pytest.mark.parametrize(
    "path,query,headers,status,says",
    [
        ("kmp", QUERY, [("sec-fetch-site", "cross-site")], 403, "Only the app's own pages"),
        ("kmp", QUERY, [("origin", "https://elsewhere.example"), ("host", "lab.example")], 403, "Only the app's own"),
        ("kmp", "gamma=" + "1" * 5000, [], 414, "at most 4000 characters"),
        ("nowhere", QUERY, [], 404, "No page with a step player"),
        ("references", QUERY, [], 404, "No page with a step player"),
        ("kmp", QUERY + "&lesson=2-kmp&scene=3", [], 400, "opened by their page"),
        ("kmp", QUERY + "&class=ABCD", [], 400, "opened by their page"),
        ("kmp", "data=upload:%20mine.csv%20(0123abcd)", [], 400, "lives in the browser session that uploaded it"),
        ("kmp", "data=moons&variant=prefit&loss=tanh", [], 400, "Pre-fitting needs the squared loss"),
    ],
)
def test_what_the_view_route_refuses_it_says_in_a_sentence(served, path, query, headers, status, says):
    got, body = _view(path, query, headers)
    assert (got, says in body.replace("\\", "")) == (status, True), body


def test_the_player_follows_the_settings_whose_value_alone_makes_the_study():
    """Each study page's sliders, selects and toggles whose value alone makes the study (the
    size, the noise, k, the width, a loss, standardising), by their widget's label, a select's
    options in order with the value each shown text stands for: never a control that other
    controls' meaning hangs on (the dataset, the kernel)."""
    for page in site.PAGES:
        if not page.picture:
            continue
        declared = {control.label: control for control in pictures.controls(page.key)}
        for label, name, widget, values in pictures.followed(page.key):
            control = declared[label]
            assert control.widget == widget and control.name == name and name not in pictures.CASCADING
            assert widget in ("slider", "toggle") or (widget == "selectbox" and control.options is not None)
            for text, value in values:  # each option, as the select shows it and the address writes it
                assert control.parse(value) is not None and control.name_of(control.parse(value)) == text
    followed = {name: widget for _, name, widget, _ in pictures.followed("kmp")}
    mine = {
        "noise": "slider",
        "points": "slider",
        "gamma": "selectbox",
        "k": "slider",
        "loss": "selectbox",
        "std": "toggle",
    }
    assert mine.items() <= followed.items() and not {"data", "kernel", "positive"} & set(followed), followed
    # the reference carries them; a packed payload (no view route to ask) never does
    head = json.loads(player.reference("a" * 40, 0, settings=pictures.followed("kmp"))[8:].split(b"a" * 40)[0])
    assert {item["name"] for item in head["settings"]} == set(followed)
    assert "settings" not in json.loads(player._unframed(player.packed(b"", 0), player.PACKED, "packed")[0])


def test_a_script_asking_many_views_at_once_gets_a_sentence_and_the_class_routes_keep_their_threads(
    served, monkeypatch
):
    """A browser asks one view at a time; a script firing many from one address gets a 429
    past ``VIEWS_PER_ADDRESS`` at once, and while its views wait for their share of the
    computing line, the threads the live class's routes read their record with are free."""
    import threading

    release = threading.Event()
    real = compute.prepare

    def slow(page, query, ready=None):
        release.wait(30)
        return real(page, query)

    monkeypatch.setattr(compute, "prepare", slow)

    def request():
        return _asked("kmp", QUERY)

    async def script():
        asked = [asyncio.ensure_future(request()) for _ in range(6)]
        await asyncio.sleep(0.2)
        early = [task.result().status_code for task in asked if task.done()]
        free = await asyncio.wait_for(asyncio.to_thread(lambda: "the class's store answered"), timeout=5)
        release.set()
        late = [response.status_code for response in await asyncio.gather(*asked)]
        return early, free, late

    early, free, late = asyncio.run(script())
    assert early == [429] * (6 - serving_routes.VIEWS_PER_ADDRESS), early
    assert free == "the class's store answered"
    assert sorted(late) == [200] * serving_routes.VIEWS_PER_ADDRESS + [429] * (6 - serving_routes.VIEWS_PER_ADDRESS)
    assert not serving_routes._VIEWS_IN_FLIGHT  # every view counted out again

    # more waiting views than asyncio's own pool has threads (as many addresses could send):
    # the class's routes still get a thread at once
    monkeypatch.setattr(serving_routes, "VIEWS_PER_ADDRESS", 100)
    monkeypatch.setattr(serving_routes, "VIEWS_AT_ONCE", 100)
    release.clear()

    async def crowd():
        asked = [asyncio.ensure_future(request()) for _ in range(40)]
        await asyncio.sleep(0.2)
        free = await asyncio.wait_for(asyncio.to_thread(lambda: "answered"), timeout=5)
        release.set()
        return free, [response.status_code for response in await asyncio.gather(*asked)]

    free, codes = asyncio.run(crowd())
    assert free == "answered" and codes == [200] * 40
