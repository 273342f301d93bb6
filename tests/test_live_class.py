"""A live class as a lecturer and students give it, each in their own browser: the lecturer
starts the class with the mouse and steps with a clicker's keys; the students' screens
follow (step, presenter mode, text size, scene, the menu's pages, a late student too, a sleeping
laptop when it wakes), a student explores and comes back, a forged key drives nothing, the
class predicts the next pick and answers a lesson's question, and the lecturer's board shows
their counts.  Every click is a mouse click at the control's visible position; every wait is
for a condition."""

import re
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from browser_support import (  # noqa: F401 (fixtures)
    app_page,
    browser,
    click_like_a_person,
    close,
    open_app,
    settled,
    shots,
)

from benchmarks.settings_speed import grip

LESSON_VIEW = "kmp?data=xor&points=300&k=12"  # a small study: each open is quick


def player_step(page):
    return page.evaluate("window.__mplPlayer && window.__mplPlayer.j")


def wait_step(page, step, timeout=30_000):
    page.wait_for_function(f"window.__mplPlayer && window.__mplPlayer.j === {step}", timeout=timeout)


def bar_text(page):
    return page.locator(".mpl-live-bar").inner_text()


def start_class(page):
    """The lecturer's mouse on "Start a live class"; the class's code and key, from the address."""
    click_like_a_person(page, page.get_by_role("button", name="Start a live class"))
    page.wait_for_function("new URL(location.href).searchParams.has('key')", timeout=30_000)
    page.locator(".mpl-live-bar").wait_for(timeout=30_000)
    query = parse_qs(urlsplit(page.url).query)
    return query["class"][0], query["key"][0]


@contextmanager
def a_class(browser, url):
    """The lecturer's page at ``url`` (1280x720) with a class started on it with the mouse:
    ``(lecturer, code, key, students)``.  The students' pages a test opens go in
    ``students``; every page is closed however the test ends."""
    lecturer = open_app(browser, url, (1280, 720))
    students, started = [], None
    try:
        lecturer.wait_for_function("window.__mplPlayer", timeout=90_000)
        settled(lecturer)
        started = code, key = start_class(lecturer)
        yield lecturer, code, key, students
    finally:
        for page in [lecturer, *students]:
            close(page)
        if started is not None:  # ended, as a lecturer ends it (a client address may run only so many)
            import httpx

            where = urlsplit(url)
            httpx.post(
                f"{where.scheme}://{where.netloc}/mpl/class/drive?class={started[0]}",
                json={"end": True},
                headers={"X-Class-Key": started[1]},
            )


def test_the_students_follow_the_lecturers_clicker_and_display(server, browser, shots):
    with a_class(browser, f"{server}/{LESSON_VIEW}") as (lecturer, code, key, students):
        asked = []  # the class's requests: the key travels in a header, never in an address a log keeps
        lecturer.on("request", lambda request: asked.append(request) if "/mpl/class/" in request.url else None)
        assert re.fullmatch(r"Class [A-Z2-9]{4} [A-Z2-9]{4}", lecturer.locator(".mpl-live-code").inner_text())
        lecturer.locator(".mpl-live-bar", has_text="0 students follow").wait_for()
        # the join screen: the students' link, large, with its QR code; the link opens in a fresh browser
        click_like_a_person(
            lecturer, lecturer.get_by_role("button", name="Show the students' link and its QR code, large")
        )
        join = lecturer.get_by_role("dialog", name="Join the class")
        link = join.locator(".mpl-live-join-link").inner_text()
        assert link == f"{server}/?class={code}" and join.locator("svg").count() == 1
        assert (
            float(join.locator(".mpl-live-join-code").evaluate("(e) => parseFloat(getComputedStyle(e).fontSize)")) > 80
        )
        shots.take(lecturer, "live-join-screen.png")
        lecturer.keyboard.press("Escape")
        join.wait_for(state="detached")

        student = open_app(browser, link, (1920, 1080))
        students.append(student)
        guesses = []  # views a follower's player asked ahead: none (a class's bandwidth)
        student.on("request", lambda request: guesses.append(request.url) if "ahead=1" in request.url else None)
        student.wait_for_url(re.compile(r"/kmp\?"), timeout=60_000)
        settled(student)
        assert "key=" not in student.url and f"class={code}" in student.url
        student.locator(".mpl-live-bar", has_text="Following the lecturer").wait_for()
        lecturer.locator(".mpl-live-bar", has_text="1 student follows").wait_for(timeout=15_000)

        # the clicker's forward key on the lecturer's screen: the student's player follows
        for step in (1, 2, 3):
            lecturer.keyboard.press("PageDown")
            wait_step(student, step)
        lecturer.keyboard.press("PageUp")
        wait_step(student, 2)

        # presenter mode and the text size, chosen with the lecturer's mouse, reach the student
        click_like_a_person(lecturer, lecturer.locator(".st-key-title-row [data-testid='stCheckbox'] label"))
        student.wait_for_function("window.__mplPlayer && window.__mplPlayer.payload.present === true", timeout=60_000)
        click_like_a_person(lecturer, lecturer.get_by_role("radio", name="125%"))
        student.wait_for_function("window.__mplPlayer && window.__mplPlayer.scale === 1.25", timeout=60_000)
        wait_step(student, 2)
        assert "present=true" in student.url and "text=125" in student.url
        shots.take(student, "live-student-following.png")

        # a late student lands on the current view and step
        late = open_app(browser, link, (1280, 720))
        students.append(late)
        late.wait_for_function("window.__mplPlayer && window.__mplPlayer.payload.present === true", timeout=60_000)
        wait_step(late, 2)
        assert not guesses, guesses

        # the student explores (its own key), the class goes on without it, then it comes back;
        # meanwhile the late student's laptop sleeps (its tab frozen: no timer, no event handled)
        settled(student)
        student.keyboard.press("End")
        student.locator(".mpl-live-bar", has_text="You are exploring on your own").wait_for()
        asleep = late.context.new_cdp_session(late)
        asleep.send("Page.setWebLifecycleState", {"state": "frozen"})
        lecturer.keyboard.press("PageDown")
        student.locator(".mpl-live-bar", has_text="the lecturer is on step 3").wait_for()
        assert player_step(student) == student.evaluate("window.__mplPlayer.n")
        click_like_a_person(
            student, student.get_by_role("button", name="Follow the lecturer again, from where the lecturer is now")
        )
        wait_step(student, 3)
        student.locator(".mpl-live-bar", has_text="Following the lecturer").wait_for()
        lecturer.keyboard.press("PageDown")
        wait_step(student, 4)
        asleep.send("Page.setWebLifecycleState", {"state": "active"})  # it wakes where the lecturer is
        wait_step(late, 4)
        # back to the default text size: the lecturer's address drops ?text=, and the students follow it.
        # The text size is in the title row above the player; in presenter mode the player's bar
        # stays pinned at the top, so a page scrolled down has it under the bar: the lecturer
        # scrolls back up with the wheel first (once, in CI under load, the page had scrolled)
        lecturer.mouse.move(640, 300)
        lecturer.mouse.wheel(0, -4000)
        lecturer.wait_for_function(
            "() => { const m = document.querySelector('[data-testid=stMain]'); return !m || m.scrollTop === 0; }"
        )
        click_like_a_person(lecturer, lecturer.get_by_role("radio", name="100%"))
        for follower in students:
            follower.wait_for_function("window.__mplPlayer && window.__mplPlayer.scale === 1", timeout=60_000)
            wait_step(follower, 4)

        # a student's link with a made-up key follows as a student, and says so; its own steps drive nothing
        with app_page(browser, f"{server}/?class={code}&key=not-the-key", (1280, 720)) as forger:
            forger.get_by_text("This link's key does not drive the class: you follow it as a student.").wait_for(
                timeout=60_000
            )
            forger.locator(".mpl-live-bar", has_text="Following the lecturer").wait_for(timeout=60_000)
            settled(forger)
            wait_step(forger, 4)
            forger.keyboard.press("PageDown")
            forger.locator(".mpl-live-bar", has_text="You are exploring on your own").wait_for()
            assert player_step(lecturer) == 4 and player_step(late) == 4
        with app_page(browser, f"{server}/?class=ZZZZZZZZ", (1280, 720)) as lost:
            lost.get_by_text("There is no live class ZZZZ ZZZZ", exact=False).wait_for(timeout=60_000)
            assert lost.locator("[data-testid='stException']").count() == 0

        assert asked and not [request.url for request in asked if key in request.url]
        assert all(request.headers.get("x-class-key") == key for request in asked)

        # ending the class: the students' pages are theirs again
        click_like_a_person(
            lecturer, lecturer.get_by_role("button", name="End the live class: the students' screens stop following")
        )
        for follower in students:
            follower.locator(".mpl-live-bar", has_text="The lecturer has ended the class").wait_for(timeout=15_000)
        lecturer.wait_for_function("!new URL(location.href).searchParams.has('class')", timeout=30_000)


def data_point(page, point):
    """Where training point ``point`` of the data panel is on the screen."""
    return page.evaluate(
        """(point) => {
      const p = window.__mplPlayer;
      const cell = p.cells.find((c) => c.panel.guess_trace !== undefined);
      cell.plot.scrollIntoView({block: "center"});
      const full = cell.plot._fullLayout, box = cell.plot.getBoundingClientRect();
      const [x, y] = p.coords[point];
      return [box.left + full.xaxis._offset + full.xaxis.c2p(x), box.top + full.yaxis._offset + full.yaxis.c2p(y)];
    }""",
        point,
    )


def far_point(page):
    """A training point not yet chosen, far on screen from the next pick (a wrong answer)."""
    return page.evaluate(
        """() => {
      const p = window.__mplPlayer, winner = p.payload.picks[p.j], [wx, wy] = p.coords[winner];
      const chosen = new Set(p.payload.picks.slice(0, p.j));
      let best = -1, far = -1;
      p.coords.forEach(([x, y], i) => { const d = Math.hypot(x - wx, y - wy); if (!chosen.has(i) && d > far) { far = d; best = i; } });
      return best;
    }"""
    )


def test_the_class_predicts_the_next_pick_and_the_lecturer_sees_where_they_clicked(server, browser, shots):
    with a_class(browser, f"{server}/{LESSON_VIEW}&step=2") as (lecturer, code, _, students):
        for _ in range(2):
            student = open_app(browser, f"{server}/?class={code}", (1280, 720))
            students.append(student)
            student.wait_for_url(re.compile(r"/kmp\?"), timeout=60_000)
            settled(student)
            wait_step(student, 2)
        lecturer.locator(".mpl-live-bar", has_text="2 students follow").wait_for(timeout=15_000)
        click_like_a_person(lecturer, lecturer.locator(".mpl-toggle", has_text="Predict"))
        for student in students:
            student.wait_for_function("window.__mplPlayer.predict && window.__mplPlayer.classAsk", timeout=15_000)
            assert student.evaluate("window.__mplPlayer.revealed()") is False  # the star is hidden
        winner = lecturer.evaluate("window.__mplPlayer.payload.picks[window.__mplPlayer.j]")
        wrong = far_point(students[0])
        for student, point in zip(students, (winner, wrong)):
            x, y = data_point(student, point)
            student.mouse.click(x, y)
            student.locator(".mpl-live-bar", has_text="Your answer: point").wait_for(timeout=15_000)
        lecturer.locator(".mpl-live-bar", has_text="2 of 2 answered").wait_for(timeout=15_000)
        # the lecturer's screen is the room's: where the class clicked shows once the lecturer chooses
        drawn = """() => { const p = window.__mplPlayer; const cell = p.cells.find((c) => c.panel.guess_trace !== undefined);
               const t = cell.plot.data.find((d) => d.name === "the class's answers");
               return t ? [...t.text].join(",") : null; }"""
        lecturer.wait_for_timeout(300)
        assert lecturer.evaluate(drawn) is None and students[0].evaluate(drawn) is None
        assert lecturer.evaluate("window.__mplPlayer.revealed()") is False  # the star waits for "Reveal"
        shots.take(lecturer, "live-class-counts.png")
        click_like_a_person(
            lecturer, lecturer.get_by_role("button", name="Show the class the answer, and the share who got it")
        )
        lecturer.wait_for_function(f"({drawn})() === '1,1'", timeout=15_000)
        said = lecturer.locator(".mpl-live-bar", has_text="The pick: point")
        said.wait_for(timeout=15_000)
        assert f"The pick: point {winner}. 1 of 2 answers (50%) chose it." in said.inner_text()
        assert re.search(r"By the criterion's rank: 1st 1, .+ 1\.", said.inner_text()), said.inner_text()
        students[0].locator(".mpl-quiz", has_text="Right!").wait_for(timeout=15_000)
        students[1].locator(".mpl-quiz", has_text="Not quite.").wait_for(timeout=15_000)
        # revealed: each student's data panel shows where the class clicked, and the share right
        for student in students:
            student.locator(".mpl-quiz", has_text="The class: 1 of 2 (50%) predicted it").wait_for(timeout=15_000)
            student.wait_for_function(
                """(points) => { const p = window.__mplPlayer; const cell = p.cells.find((c) => c.panel.guess_trace !== undefined);
                   const t = cell.plot.data.find((d) => d.name === "the class's answers");
                   return t && JSON.stringify([...t.text]) === '["1","1"]'
                     && t.x.every((x, i) => [points[0], points[1]].some((q) => p.coords[q][0] === x && p.coords[q][1] === t.y[i])); }""",
                arg=[winner, wrong],
                timeout=15_000,
            )
        shots.take(students[1], "live-class-student-reveal.png")
        # the next step is a new round: nothing counted, nothing revealed
        lecturer.keyboard.press("PageDown")
        for student in students:
            wait_step(student, 3)
            student.locator(".mpl-quiz", has_text="The class predicts").wait_for(timeout=15_000)
        lecturer.locator(".mpl-live-bar", has_text="0 of 2 answered").wait_for(timeout=15_000)

        # pacing: held, every student's stepping is off; then free within steps 2-5, and the
        # lecturer sees who explores
        click_like_a_person(
            lecturer, lecturer.get_by_role("button", name="Hold every student on your view: their stepping is off")
        )
        for student in students:
            student.locator(".mpl-live-bar", has_text="The lecturer holds the class on this view").wait_for(
                timeout=15_000
            )
            assert student.get_by_role("button", name="Next step").is_disabled()
            student.keyboard.press("PageDown")
            student.wait_for_timeout(200)
            assert player_step(student) == 3
        lecturer.keyboard.press("PageDown")  # the lecturer moves the held class
        for student in students:
            wait_step(student, 4)
        click_like_a_person(
            lecturer,
            lecturer.get_by_role("button", name="Let students step on their own within a range of steps you set"),
        )
        for name, value in (("The first step students may explore", "2"), ("The last step students may explore", "5")):
            click_like_a_person(lecturer, lecturer.get_by_role("spinbutton", name=name))
            lecturer.keyboard.press("Control+A")
            lecturer.keyboard.type(value)
            lecturer.keyboard.press("Tab")
        explorer = students[0]
        explorer.locator(".mpl-live-bar", has_text="You may explore steps 2–5.").wait_for(timeout=15_000)
        for _ in range(3):
            explorer.keyboard.press("PageDown")
        wait_step(explorer, 5)  # no further than the range
        explorer.wait_for_timeout(300)
        assert player_step(explorer) == 5 and explorer.get_by_role("button", name="Next step").is_disabled()
        explorer.locator(".mpl-live-bar", has_text="You are exploring steps 2–5 on your own").wait_for(timeout=15_000)
        # on their own, the class's round is not theirs: their board is theirs to predict on
        assert "The class" not in explorer.locator(".mpl-quiz").inner_text()
        lecturer.locator(".mpl-live-bar", has_text="2 students: 1 follow, 1 explore on their own").wait_for(
            timeout=15_000
        )
        shots.take(lecturer, "live-class-pace.png")
        shots.take(explorer, "live-class-exploring.png")
        click_like_a_person(
            lecturer,
            lecturer.get_by_role("button", name="Students follow you, and may step and change settings on their own"),
        )
        explorer.locator(".mpl-live-bar", has_text="You are exploring on your own").wait_for(timeout=15_000)
        explorer.keyboard.press("PageDown")
        wait_step(explorer, 6)  # free again
        click_like_a_person(
            explorer, explorer.get_by_role("button", name="Follow the lecturer again, from where the lecturer is now")
        )
        wait_step(explorer, 4)
        lecturer.locator(".mpl-live-bar", has_text="2 students follow").wait_for(timeout=15_000)

        # a student opens another page from the menu: still in the class, exploring; "Back" returns
        wanderer = students[1]
        click_like_a_person(wanderer, wanderer.locator("[data-testid='stSidebarNav'] a", has_text="Sparse KPCA"))
        wanderer.wait_for_function("location.pathname.endsWith('/sparse-kpca')", timeout=60_000)
        wanderer.locator(".mpl-live-bar", has_text="You are exploring on your own").wait_for(timeout=60_000)
        assert f"class={code}" in wanderer.url
        click_like_a_person(
            wanderer, wanderer.get_by_role("button", name="Follow the lecturer again, from where the lecturer is now")
        )
        wanderer.wait_for_function("location.pathname.endsWith('/kmp')", timeout=60_000)
        wait_step(wanderer, 4, timeout=60_000)
        # the lecturer opens Home from the menu: the class stays the lecturer's, and goes along
        click_like_a_person(lecturer, lecturer.locator("[data-testid='stSidebarNav'] a", has_text="Home"))
        lecturer.wait_for_function("new URL(location.href).searchParams.has('key')", timeout=60_000)
        students[0].wait_for_function("location.pathname.endsWith('/')", timeout=60_000)


def board_rows(page):
    """The board's rows as a reader reads them: ``{answer: [count cells...]}``; None when hidden."""
    return page.evaluate(
        """() => { const board = document.querySelector('.mpl-board'); if (!board) return null;
           return Object.fromEntries([...board.querySelectorAll('tbody tr')].map((row) =>
             [row.querySelector('th').textContent, [...row.querySelectorAll('td')].map((td) => td.textContent.trim())])); }"""
    )


BAR_FOCUS = """() => {
  const e = document.activeElement;
  if (!e || !e.closest('.mpl-live-bar')) return null;
  const s = getComputedStyle(e), r = e.getBoundingClientRect();
  return {name: e.getAttribute('aria-label') || e.innerText.trim(),
          seen: s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2,
          onScreen: r.width > 0 && r.height > 0 && r.bottom > 0 && r.top < window.innerHeight};
}"""


def bar_by_keyboard(page, last, limit=150):
    """Tab from the top of the page until the class bar's control ``last`` has the focus: the
    names of the bar's controls reached, in order, and those whose focus was not drawn or not
    on screen."""
    # a click on the empty top of the page, as a keyboard user starts: Tab goes on from there
    page.evaluate("document.querySelector('[data-testid=stMain]').scrollTo(0, 0)")
    left = page.evaluate("document.querySelector('[data-testid=stMain]').getBoundingClientRect().left")
    page.mouse.click(left + 4, 4)
    reached, unseen = [], []
    for _ in range(limit):
        page.keyboard.press("Tab")
        now = page.evaluate(BAR_FOCUS)
        if now is None:
            continue
        reached.append(now["name"])
        if not (now["seen"] and now["onScreen"]):
            unseen.append(now)
        if now["name"] == last:
            break
    return reached, unseen


def board_text(page):
    return page.locator(".mpl-board").inner_text()


def test_peer_instruction_vote_show_discuss_vote_again_timed_closed_revealed_and_reported(server, browser, shots):
    """A lesson's question as peer instruction runs it, by a lecturer and two students with the
    mouse: the first vote, its answers shown on the board (to the room and to the students),
    a second vote on a countdown the students see, closed early without revealing (a late
    click no longer counts), both votes side by side with the right answer, the share correct
    and who moved to it; the report downloaded as CSV and HTML; the class goes on to the next
    scene."""
    import csv
    import io

    from views import lessons

    scene = lessons.shipped()["2-kmp"].scene(3)
    right = chr(64 + scene.question.answer)
    wrong = "A" if right != "A" else "B"
    query = "&".join(f"{k}={v}" for k, v in scene.query().items())
    scene_url = f"{server}/kmp?{query}&lesson=2-kmp&scene=3&step={scene.step}"
    choices = dict(zip("ABC", scene.question.choices))
    with a_class(browser, scene_url) as (lecturer, code, _, students):
        lecturer.locator(".mpl-live-bar", has_text="Votes:").wait_for(timeout=15_000)
        for first in (wrong, right):  # the first vote: one right, one wrong
            student = open_app(browser, f"{server}/?class={code}", (1280, 720))
            students.append(student)
            student.wait_for_function("window.__mplPlayer && window.__mplPlayer.classAsk", timeout=90_000)
            student.locator(".mpl-live-bar", has_text="Vote open, no time limit").wait_for(timeout=15_000)
            click_like_a_person(student, student.get_by_role("button", name=f"{first}. {choices[first]}"))
            student.locator(".mpl-guide-answer", has_text=f"Your answer: {first}").wait_for()
        lecturer.locator(".mpl-live-bar", has_text="Votes: A 1 (50%) · B 1 (50%)").wait_for(timeout=15_000)
        assert board_rows(students[0]) is None  # nothing shown before the lecturer shows it

        # the class's answers on the board: the room and every student see them; the vote closes
        click_like_a_person(lecturer, lecturer.get_by_role("button", name=re.compile("^Show the class's answers")))
        for page in (lecturer, *students):
            page.locator(".mpl-board", has_text="The class's answers").wait_for(timeout=15_000)
            assert board_rows(page) == {"A": ["1 (50%)"], "B": ["1 (50%)"], "C": ["0 (0%)"]}
            assert "✓" not in board_text(page)  # not revealed: no answer marked
        students[0].locator(".mpl-live-bar", has_text="The vote is closed").wait_for(timeout=15_000)
        lecturer.locator(".mpl-live-bar", has_text="Vote closed").wait_for(timeout=15_000)

        # the class discusses, then votes again, on a countdown each student sees
        click_like_a_person(
            lecturer,
            lecturer.get_by_role("button", name="A second vote, after the class has discussed (peer instruction)"),
        )
        for page in (lecturer, *students):
            page.locator(".mpl-board").wait_for(state="detached", timeout=15_000)
        # the countdown started from the keyboard alone: Tab from the top of the page reaches every
        # control of the class's bar, in its order, each with its focus drawn; Enter presses it
        countdown = "Close the vote in 90 seconds (a countdown the class sees)"
        reached, unseen = bar_by_keyboard(lecturer, countdown)
        assert reached[: reached.index(countdown) + 1] == [
            "Show the students' link and its QR code, large",
            "End the live class: the students' screens stop following",
            "Students follow you, and may step and change settings on their own",
            "Hold every student on your view: their stepping is off",
            "Let students step on their own within a range of steps you set",
            "Show the class the answer, and the share who got it",
            "Show the class's answers to the room and to every student (closes the vote)",
            "A second vote, after the class has discussed (peer instruction)",
            "Close the vote now, without revealing the answer",
            "Close the vote in 30 seconds (a countdown the class sees)",
            "Close the vote in 60 seconds (a countdown the class sees)",
            countdown,
        ], reached
        assert unseen == []
        lecturer.keyboard.press("Enter")
        for page in (lecturer, *students):
            timer = page.locator(".mpl-live-bar [role=timer]", has_text=re.compile(r"Vote open: 1:[23]\d left"))
            timer.wait_for(timeout=15_000)
        lecturer.wait_for_timeout(600)  # the bar redrawn at the countdown's ticks meanwhile
        assert (lecturer.evaluate(BAR_FOCUS) or {}).get("name") == countdown  # the focus stays on the button pressed
        click_like_a_person(students[0], students[0].get_by_role("button", name=f"{right}. {choices[right]}"))
        students[0].locator(".mpl-live-bar", has_text=f"Your answer: {right}").wait_for(timeout=15_000)
        lecturer.locator(".mpl-live-bar", has_text="1 of 2 answered").wait_for(timeout=15_000)
        # closed early, without revealing: the other student's click counts no more
        click_like_a_person(
            lecturer, lecturer.get_by_role("button", name="Close the vote now, without revealing the answer")
        )
        late = students[1]
        late.locator(".mpl-guide-answer", has_text="The vote is closed").wait_for(timeout=15_000)
        click_like_a_person(late, late.get_by_role("button", name=f"{wrong}. {choices[wrong]}"))
        late.wait_for_timeout(500)
        assert "1 of 2 answered" in bar_text(lecturer)
        # reopened: the student votes; then revealed with the board shown, on a projector
        click_like_a_person(lecturer, lecturer.get_by_role("button", name="Take answers again, with no time limit"))
        late.locator(".mpl-guide-answer", has_text="The class votes: click your answer.").wait_for(timeout=15_000)
        click_like_a_person(late, late.get_by_role("button", name=f"{right}. {choices[right]}"))
        lecturer.locator(".mpl-live-bar", has_text="2 of 2 answered").wait_for(timeout=15_000)
        lecturer.set_viewport_size({"width": 1920, "height": 1080})
        click_like_a_person(lecturer, lecturer.get_by_role("button", name=re.compile("^Show the class's answers")))
        click_like_a_person(
            lecturer, lecturer.get_by_role("button", name="Show the class the answer, and the share who got it")
        )
        for page in (lecturer, *students):
            page.locator(".mpl-board", has_text="moved to the right answer").wait_for(timeout=15_000)
            rows = board_rows(page)
            assert rows == {
                f"✓ {right}": ["1 (50%)", "2 (100%)"],
                wrong: ["1 (50%)", "0 (0%)"],
                "C": ["0 (0%)", "0 (0%)"],
            }
            said = board_text(page)
            assert f"The answer: {right}. Correct: 50% → 100%." in said
            assert "1 moved to the right answer between the votes, 0 away from it." in said
        assert "Correct: 50% → 100%" in bar_text(lecturer)
        # readable from the back row: large, whole on the projector's screen
        size = lecturer.evaluate(
            """() => { const b = document.querySelector('.mpl-board').getBoundingClientRect();
               const name = getComputedStyle(document.querySelector('.mpl-board-name')).fontSize;
               return [parseFloat(name), b.top, b.bottom, b.left, b.right]; }"""
        )
        assert size[0] >= 28 and size[1] >= 0 and size[2] <= 1080 and size[3] >= 0 and size[4] <= 1920, size
        shots.take(lecturer, "live-class-board-1920.png")
        # a student closes the board on their own screen; the lecturer's stays up
        click_like_a_person(late, late.get_by_role("button", name="Close the class's answers on this screen"))
        late.locator(".mpl-board").wait_for(state="detached", timeout=15_000)
        assert board_rows(lecturer) is not None

        # the report, from the lecturer's sidebar: counts only, both votes, who moved
        with lecturer.expect_download() as got:
            click_like_a_person(
                lecturer, lecturer.locator("[data-testid='stSidebar']").get_by_role("button", name="CSV")
            )
        rows = list(csv.DictReader(io.StringIO(Path(got.value.path()).read_text())))
        second = {r["answer"]: r for r in rows if r["vote"] == "2"}
        assert second[right]["count"] == "2" and second[right]["is_right"] == "1"
        assert second[right]["correct_share"] == "1.000" and second[right]["moved_to_right"] == "1"
        with lecturer.expect_download() as got:
            click_like_a_person(
                lecturer, lecturer.locator("[data-testid='stSidebar']").get_by_role("button", name="HTML")
            )
        page = Path(got.value.path()).read_text()
        assert scene.question.ask.split("{")[0][:30] in page and "<script" not in page

        # the lecturer's mouse on the next scene: the class goes with it, to its own step, the board gone
        lecturer.set_viewport_size({"width": 1280, "height": 720})
        click_like_a_person(lecturer, lecturer.get_by_role("button", name="Hide the class's answers from the board"))
        click_like_a_person(lecturer, lecturer.get_by_role("button", name="Next scene"))
        lecturer.wait_for_function("window.__mplPlayer.guide && window.__mplPlayer.guide.scene === 4", timeout=90_000)
        for student in students:
            student.wait_for_function(
                "window.__mplPlayer && window.__mplPlayer.guide && window.__mplPlayer.guide.scene === 4", timeout=90_000
            )
            wait_step(student, lecturer.evaluate("window.__mplPlayer.j"), timeout=30_000)
            assert board_rows(student) is None
        # the lecturer ends the class: its record is gone, its report stays in the lecturer's sidebar
        click_like_a_person(
            lecturer, lecturer.get_by_role("button", name="End the live class: the students' screens stop following")
        )
        lecturer.get_by_text("The report of the class you ended").wait_for(timeout=30_000)
        with lecturer.expect_download() as got:
            click_like_a_person(
                lecturer, lecturer.locator("[data-testid='stSidebar']").get_by_role("button", name="HTML")
            )
        ended = Path(got.value.path()).read_text()
        assert "Correct, second vote" in ended and "100%" in ended and "1 moved to the right answer" in ended


def class_record(server, code):
    """What a student joining now is given first: ``(address, step)`` of the class."""
    from class_support import Stream

    late = Stream(f"{server}/mpl/class/events?class={code}")
    try:
        first = late.wait_for(lambda e: True)
    finally:
        late.close()
    return first.get("address"), first.get("step")


def holds_the_lecturers_view(server, code, lecturer, move):
    """After ``move``: the class's record is the lecturer's view and step on screen, within
    2 s of the lecturer's page being idle again (a late student joins on it)."""
    import time

    settled(lecturer)
    want = tuple(lecturer.evaluate("[window.__mplPlayer.payload.address, window.__mplPlayer.j]"))
    deadline = time.monotonic() + 2.0
    while (got := class_record(server, code)) != want and time.monotonic() < deadline:
        time.sleep(0.1)
    assert got == want, f"after {move}: the class holds {got}, the lecturer shows {want}"


def test_the_class_holds_the_lecturers_step_after_every_kind_of_move(server, browser):
    """Scene (End, then PageDown into the next scene: the class kept the last scene's end and
    late students landed on it), reveal, vote again, text size, presenter mode, another page,
    a preset, a width, k dragged (the values it passes stay on the lecturer's screen): after
    each, a student joining now lands on the lecturer's view and step, and a student
    following shows it."""
    from test_lecture import choose_preset

    from views import lessons

    scene = lessons.shipped()["2-kmp"].scene(2)
    query = "&".join(f"{k}={v}" for k, v in scene.query().items())
    with a_class(browser, f"{server}/kmp?{query}&lesson=2-kmp&scene=2&step={scene.step}") as (
        lecturer,
        code,
        _,
        students,
    ):
        student = open_app(browser, f"{server}/?class={code}", (1280, 720))
        students.append(student)
        student.wait_for_function("window.__mplPlayer && window.__mplPlayer.guide", timeout=90_000)
        holds_the_lecturers_view(server, code, lecturer, "starting the class")

        lecturer.keyboard.press("End")
        end = lecturer.evaluate("window.__mplPlayer.j")
        lecturer.keyboard.press("PageDown")  # past the scene's end: the next scene, on its own step
        lecturer.wait_for_function("window.__mplPlayer.guide.scene === 3", timeout=60_000)
        assert lecturer.evaluate("window.__mplPlayer.j") != end
        holds_the_lecturers_view(server, code, lecturer, "End, then PageDown into the next scene")
        wait_step(student, lecturer.evaluate("window.__mplPlayer.j"), timeout=60_000)

        for button in (
            "A second vote, after the class has discussed (peer instruction)",
            "Show the class the answer, and the share who got it",
        ):
            click_like_a_person(lecturer, lecturer.get_by_role("button", name=button))
            lecturer.wait_for_timeout(500)
            holds_the_lecturers_view(server, code, lecturer, button)
            assert player_step(student) == lecturer.evaluate("window.__mplPlayer.j")

        click_like_a_person(lecturer, lecturer.get_by_role("radio", name="125%"))
        lecturer.wait_for_function("window.__mplPlayer.scale === 1.25", timeout=60_000)
        holds_the_lecturers_view(server, code, lecturer, "125%")
        click_like_a_person(lecturer, lecturer.locator("[data-testid='stSidebarNav'] a", has_text="Sparse KPCA"))
        lecturer.wait_for_function("location.pathname.endsWith('/sparse-kpca') && window.__mplPlayer", timeout=90_000)
        lecturer.wait_for_function("window.__mplPlayer.payload.address.startsWith('sparse-kpca')", timeout=60_000)
        holds_the_lecturers_view(server, code, lecturer, "another page from the menu")
        lecturer.keyboard.press("PageDown")
        lecturer.keyboard.press("PageDown")
        before = lecturer.evaluate("window.__mplPlayer.payload.address")
        choose_preset(lecturer, "Rings: a few points explain everything")  # the page opened on another
        lecturer.wait_for_function(f"window.__mplPlayer.payload.address !== {before!r}", timeout=90_000)
        holds_the_lecturers_view(server, code, lecturer, "a preset chosen")

        # a setting, redrawn in place (the page's view alone): the class follows it as a step
        before = lecturer.evaluate("window.__mplPlayer.payload.address")
        click_like_a_person(lecturer, lecturer.get_by_role("combobox", name="gamma (inverse squared width)"))
        click_like_a_person(lecturer, lecturer.get_by_role("option", name="3", exact=True))
        lecturer.wait_for_function(f"window.__mplPlayer.payload.address !== {before!r}", timeout=90_000)
        assert "gamma=3" in lecturer.evaluate("window.__mplPlayer.payload.address")
        holds_the_lecturers_view(server, code, lecturer, "a width picked")
        address = lecturer.evaluate("window.__mplPlayer.payload.address")
        student.wait_for_function(f"window.__mplPlayer.payload.address === {address!r}", timeout=60_000)

        # k dragged with the mouse: the values it passes are drawn on the lecturer's screen only;
        # the class follows the value let go
        held = class_record(server, code)
        thumb = lecturer.locator('input[aria-label="Basis vectors k"]')
        x, y, to_x = grip(lecturer, "Basis vectors k")
        lecturer.mouse.move(to_x(0.1 if x > to_x(0.5) else 0.4), y, steps=4)  # (to the other half)
        lecturer.wait_for_function(f"window.__mplPlayer.payload.address !== {address!r}", timeout=60_000)
        dragged = lecturer.evaluate("window.__mplPlayer.payload.address")
        assert class_record(server, code) == held, "a dragged value went to the class"
        lecturer.mouse.up()
        lecturer.wait_for_function(
            "(k) => new URL(location.href).searchParams.get('k') === k", arg=thumb.input_value(), timeout=60_000
        )
        holds_the_lecturers_view(server, code, lecturer, f"k dragged (passing {dragged}) and let go")
        address = lecturer.evaluate("window.__mplPlayer.payload.address")
        student.wait_for_function(f"window.__mplPlayer.payload.address === {address!r}", timeout=60_000)

        click_like_a_person(lecturer, lecturer.locator(".st-key-title-row [data-testid='stCheckbox'] label"))
        lecturer.wait_for_function("window.__mplPlayer.payload.present === true", timeout=60_000)
        holds_the_lecturers_view(server, code, lecturer, "presenter mode")

        # a student joining now, by the code typed by hand on Home (first a slip, then in lower
        # case with a dash): on the lecturer's view and step within 2 s of its page's player
        late = open_app(browser, f"{server}/", (1280, 720))
        students.append(late)
        box = late.get_by_role("textbox", name="Class code")
        click_like_a_person(late, box)
        late.keyboard.type("abc")
        click_like_a_person(late, late.get_by_role("button", name="Join the class"))
        late.get_by_text("A class code is 8 letters and digits").wait_for(timeout=30_000)
        click_like_a_person(late, box)
        late.keyboard.press("Control+A")
        late.keyboard.type(f"{code[:4].lower()}-{code[4:].lower()}")
        click_like_a_person(late, late.get_by_role("button", name="Join the class"))
        late.wait_for_function("window.__mplPlayer", timeout=90_000)
        wait_step(late, lecturer.evaluate("window.__mplPlayer.j"), timeout=2_000)
        assert late.evaluate("window.__mplPlayer.payload.address") == lecturer.evaluate(
            "window.__mplPlayer.payload.address"
        )
