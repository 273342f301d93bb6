"""The live class's browser side (``static/player/live.js`` and ``stream.js``) in Chromium, on
a page of its own: the class's routes answered by the test (a stream's events, a post taken
or lost), a player standing in for the step player.  What the app-wide tests cannot time:
a step sent with the view it belongs to when a scene changes, a change that does not reach
the server sent again until it does, a student told when it is reconnecting."""

import json

import pytest
from browser_support import browser  # noqa: F401

ORIGIN = "http://class.test/"
CODE = "ABCDEFGH"


class Server:
    """The class's routes as the test wants them answered: each events request gets the next
    of ``streams`` (a list of events, or None to drop the connection), each drive post is
    taken unless ``lose`` says to drop it."""

    def __init__(self):
        self.streams, self.events_asked, self.drives, self.taken = [], [], [], []
        self.lose = 0

    def answer(self, route):
        request = route.request
        name = request.url[len(ORIGIN) :].split("?")[0]
        if name == "mpl/class/events":
            self.events_asked.append({"url": request.url, "headers": request.headers})
            events = self.streams.pop(0) if self.streams else None
            if events is None:
                return route.abort()
            body = "retry: 1000\n\n" + "".join(f"id: {e.get('version', 0)}\ndata: {json.dumps(e)}\n\n" for e in events)
            return route.fulfill(status=200, body=body, headers={"Content-Type": "text/event-stream"})
        if name == "mpl/class/drive":
            body = json.loads(request.post_data)
            self.drives.append(body)
            if self.lose:
                self.lose -= 1
                return route.abort()
            self.taken.append(body)
            return route.fulfill(status=200, body=json.dumps({"version": len(self.taken)}))
        if name.endswith(".js"):
            from views.player import PLAYER_DIR

            return route.fulfill(body=(PLAYER_DIR / name).read_text(), content_type="text/javascript")
        return route.fulfill(
            body="<html><body><div id=slot><div class='mpl-live'></div></div></body></html>", content_type="text/html"
        )


@pytest.fixture
def live(browser):
    """A page with live.js loaded and a stand-in player: ``(page, server, attach)``;
    ``attach(data)`` gives the class's component ``data`` (as a page's run does)."""
    server = Server()
    page = browser.new_page()
    page.route(ORIGIN + "**", server.answer)
    page.goto(ORIGIN + "kmp")
    page.evaluate(
        """async () => {
          window.__live = await import('./live.js');
          window.__triggers = [];
          window.__mplLive = { destroyed: false, path: location.pathname, j: 0, n: 40,
            payload: { address: "kmp?data=xor", picks: [] }, render() {}, go(j) { this.j = j; } };
        }"""
    )

    def attach(**data):
        data = {"code": CODE, "shown": "ABCD EFGH", "routes": "mpl/class/", "here": "kmp?data=xor", **data}
        page.evaluate(
            """(data) => window.__live.attach({ data, parentElement: document.getElementById('slot'),
                 setTriggerValue: (name, value) => window.__triggers.push([name, value]) })""",
            data,
        )

    yield page, server, attach
    page.close()


def bar(page):
    return page.locator(".mpl-live-bar").inner_text()


def until(page, condition, what, timeout=15):
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        page.wait_for_timeout(50)
    raise AssertionError(f"never: {what}")


def state(**fields):
    return {
        "code": CODE,
        "version": 1,
        "address": "kmp?data=xor",
        "view": "v1",
        "step": 0,
        "predict": False,
        "question": 0,
        "round": 1,
        "revealed": False,
        "vote": 1,
        "ended": False,
        **fields,
    }


def test_a_new_scene_goes_to_the_class_with_its_own_step_never_the_last_scenes(live):
    """The lecturer at the end of a scene (step 18) presses PageDown into the next scene of
    the same study: the page's rerun names the new view before the player shows it.  The
    class must get the new scene with the player's new step (6), never the new address with
    the old step (the class then kept step 18: late students landed on 'Step 18 of 18')."""
    page, server, attach = live
    server.streams = [[state(followers=0)]] * 5
    page.evaluate("window.__mplLive.j = 18; window.__mplLive.payload.address = 'kmp?lesson=2-kmp&scene=5'")
    attach(role="lead", key="the-key", here="kmp?lesson=2-kmp&scene=5", player=True)
    until(page, lambda: {"address": "kmp?lesson=2-kmp&scene=5", "step": 18} in server.taken, "the first view")
    attach(role="lead", key="the-key", here="kmp?lesson=2-kmp&scene=6", player=True)  # the rerun, first
    page.wait_for_timeout(300)
    page.evaluate(  # then the player shows the scene, on the scene's own step
        """() => { const p = window.__mplLive; p.payload.address = 'kmp?lesson=2-kmp&scene=6'; p.j = 6;
                   document.dispatchEvent(new CustomEvent('mpl-shown', { detail: p })); }"""
    )
    until(page, lambda: any(d.get("address") == "kmp?lesson=2-kmp&scene=6" for d in server.taken), "the new scene")
    sent = [d for d in server.drives if d.get("address") == "kmp?lesson=2-kmp&scene=6"]
    assert sent == [{"address": "kmp?lesson=2-kmp&scene=6", "step": 6}], server.drives
    # a step the player took itself (its scene's step, "Back to the lesson") goes too
    page.evaluate(
        """() => { const p = window.__mplLive; p.j = 9;
                   document.dispatchEvent(new CustomEvent('mpl-step', { detail: { player: p, step: 9, source: 'scene' } })); }"""
    )
    until(page, lambda: server.taken[-1] == {"step": 9}, "the scene's own step")


def test_the_key_goes_in_a_header_never_in_the_address(live):
    page, server, attach = live
    server.streams = [[state(followers=3)]] * 3
    attach(role="lead", key="the-key", player=True)
    until(page, lambda: server.events_asked, "the lecturer's stream")
    asked = server.events_asked[0]
    assert "key" not in asked["url"] and asked["headers"].get("x-class-key") == "the-key"
    until(page, lambda: "3 students follow" in bar(page), "the count")


def test_a_change_that_does_not_reach_the_server_is_sent_again_until_it_lands(live):
    page, server, attach = live
    server.streams = [[state(followers=2)]] * 100  # (each answered stream ends: the page opens another)
    attach(role="lead", key="the-key", player=True)
    until(page, lambda: server.taken, "the view")
    server.lose = 3  # a process restarting: the next three posts are lost
    for step in (7, 8, 9):
        page.evaluate(
            """(step) => { const p = window.__mplLive; p.j = step;
                 document.dispatchEvent(new CustomEvent('mpl-step', { detail: { player: p, step, source: 'key' } })); }""",
            step,
        )
    until(page, lambda: "students may be behind" in bar(page), "the lecturer told", timeout=5)
    until(page, lambda: server.taken[-1] == {"step": 9}, "the latest step landed", timeout=20)
    assert server.drives.count({"step": 9}) >= 1 and len(server.drives) >= 5  # sent again, not dropped
    until(page, lambda: "students may be behind" not in bar(page), "the warning gone")


def test_a_student_hears_when_it_is_reconnecting_and_the_lecturer_how_many_are(live):
    page, server, attach = live
    server.streams = [[state()]]  # one stream, then the server is gone (each new one dropped)
    attach(role="follow", here="kmp?data=xor")
    until(page, lambda: "Following the lecturer" in bar(page) or "Reconnecting" in bar(page), "joined")
    until(page, lambda: "Reconnecting to the class" in bar(page), "the student told", timeout=10)
    server.streams = [[state(step=4)]] * 100  # back
    until(page, lambda: page.evaluate("window.__mplLive.j") == 4, "following again", timeout=30)
    page.context.set_offline(True)  # a laptop off the network: at once, not after 40 s of silence
    until(page, lambda: "Reconnecting to the class" in bar(page), "offline", timeout=5)
    page.context.set_offline(False)


def test_the_lecturers_bar_counts_who_is_present_reconnecting_and_behind(live):
    page, server, attach = live
    server.streams = [[state(followers=280, away=3, behind=2)]] * 3
    attach(role="lead", key="the-key", player=True)
    until(page, lambda: "280 students follow" in bar(page), "the count")
    text = bar(page)
    assert "3 reconnecting" in text and "2 students are behind" in text


def test_an_event_without_the_address_keeps_the_views_address(live):
    """The address comes once per view; a student's page must not take its absence for a
    new view (it would ask Streamlit to follow at every step)."""
    page, server, attach = live
    server.streams = [[state(version=1, step=1), {k: v for k, v in state(version=2, step=2).items() if k != "address"}]]
    attach(role="follow", here="kmp?data=xor")
    until(page, lambda: page.evaluate("window.__mplLive.j") == 2, "the second step followed")
    assert page.evaluate("window.__triggers") == []


def test_a_range_typed_by_the_lecturer_is_not_undone_by_a_state_sent_before_it(live):
    """The lecturer types the first step of the class's range, then the last.  A state the
    server sent before the first change (its old range) arrives between the two: the first
    box must keep what was typed, or the second change sends the old first step with the new
    last (the class got steps 0-5 for 2-5)."""
    page, server, attach = live
    old = state(pace="explore", range=[0, 40])
    server.streams = [[old]] * 100  # every new stream repeats the state before the change
    attach(role="lead", key="the-key", player=True)
    first = page.get_by_role("spinbutton", name="The first step students may explore")
    first.wait_for(timeout=15_000)
    first.fill("2")
    first.dispatch_event("change")
    until(page, lambda: any(d.get("range") == [2, 40] for d in server.taken), "the first end sent")
    asked = len(server.events_asked)
    until(page, lambda: len(server.events_asked) > asked + 1, "a state sent before the change, drawn")
    last = page.get_by_role("spinbutton", name="The last step students may explore")
    last.fill("5")
    last.dispatch_event("change")
    until(page, lambda: server.taken[-1].get("range") is not None and server.taken[-1]["range"][1] == 5, "the last end")
    assert server.taken[-1] == {"pace": "explore", "range": [2, 5]}, server.taken
    assert first.input_value() == "2"
