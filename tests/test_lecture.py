"""The app as a lecturer uses it in a hall, in a real browser: a mouse that clicks where a
control is seen, a presentation clicker's keys, text sizes for the back of the room, links
shared with students, a dark projector theme, and a screen reader.  One test (or a small
group) per finding of the issue "Presenter mode that survives a real lecture".

Every click is a mouse click at the control's visible position, checked with
``document.elementFromPoint``; every wait is for a condition.
"""
import re

import pytest

from browser_support import (CENTRE, PANEL_BOXES, PLAYER_PAGES, TEXT_BOXES, browser, click_like_a_person,  # noqa: F401
                             close, label, open_app, overlap, redrawn, rendered, server, settled, shots,
                             wait_until_idle)

SIZES = [(1280, 720), (1920, 1080)]
# The smallest text allowed at each text size, px (the issue: nothing under 18 px at 150%).
# The charts' text grows with the size (14 x 1.5 = 21 px at 150%), the toolbar and story half as much.
MIN_TEXT = {100: 14, 125: 16, 150: 18}


def scroller_top(page):
    return page.evaluate("document.querySelector('[data-testid=stMain]').scrollTop")


# --- 1. every presenter control answers a mouse click where it is seen --------------------

@pytest.mark.parametrize("size", SIZES)
def test_presenter_controls_take_a_mouse_click(server, browser, size):
    page = open_app(browser, f"{server}/kmp?present=1", size)
    try:
        settled(page)
        row = page.locator(".st-key-title-row")
        click_like_a_person(page, row.get_by_role("button", name="150%"))
        page.wait_for_function("new URL(location.href).searchParams.get('text') === '150'")
        settled(page)
        assert page.evaluate("window.__mplPlayer.scale") == 1.5
        click_like_a_person(page, row.get_by_role("button", name="100%"))
        page.wait_for_function("!new URL(location.href).searchParams.get('text')")
        settled(page)
        click_like_a_person(page, row.locator("[data-testid='stPopover'] button"))  # About
        page.get_by_text("one basis function at a time").first.wait_for()
        page.keyboard.press("Escape")
        for name in ("Next step", "Back one step", "Play", "Keyboard and clicker keys"):
            click_like_a_person(page, page.get_by_role("button", name=name, exact=True))
        page.keyboard.press("Escape")
        click_like_a_person(page, row.locator("[data-testid='stToggle'] label"))  # presenter mode off
        page.wait_for_function("new URL(location.href).searchParams.get('present') !== 'true' && "
                               "window.__mplPlayer && window.__mplPlayer.payload.present === false")
    finally:
        close(page)


# --- 2. text sizes are layouts: nothing small, cut, overlapping or off the screen ----------

def check_layout(page, scale, size, present):
    """Every text of the player at least MIN_TEXT px for its size, inside its panel, clear of
    every other text; every panel shown inside the screen (presenter) and clear of the
    others."""
    problems = []
    boxes = page.evaluate(TEXT_BOXES)
    panels = page.evaluate(PANEL_BOXES)
    smallest = MIN_TEXT[round(100 * scale)] - 0.05
    for box in boxes:
        if box["size"] < smallest:
            problems.append(f"{box['text']!r} is {box['size']:.1f} px (< {smallest:.1f})")
    width, height = size
    for panel in panels:
        if present and (panel["y"] < -1 or panel["y"] + panel["h"] > height + 1 or panel["x"] + panel["w"] > width + 1):
            problems.append(f"panel {panel['key']} leaves the screen: {panel}")
    for i, a in enumerate(panels):
        for b in panels[i + 1:]:
            if overlap(a, b, shrink=0) > 0:
                problems.append(f"panels {a['key']} and {b['key']} overlap")
    by_key = {panel["key"]: panel for panel in panels}
    for box in boxes:
        cell = by_key.get(box["cell"])
        if cell is not None and box["svg"]:
            plot = cell["plot"]
            if (box["x"] < plot["x"] - 1 or box["y"] < plot["y"] - 1 or box["x"] + box["w"] > plot["x"] + plot["w"] + 1
                    or box["y"] + box["h"] > plot["y"] + plot["h"] + 1):
                problems.append(f"{box['text']!r} is cut by its panel {box['cell']}")
        if present and box["y"] + box["h"] > height + 1:
            problems.append(f"{box['text']!r} is below the screen")
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            if overlap(a, b) > 2:
                problems.append(f"{a['text']!r} and {b['text']!r} overlap ({a['cell']}, {b['cell']})")
    return problems


@pytest.mark.parametrize("text", [100, 125, 150])
@pytest.mark.parametrize("path", PLAYER_PAGES)
def test_every_text_size_is_a_layout_that_fits(server, browser, path, text, shots):
    sizes = [(1280, 720)] + ([(1920, 1080)] if text != 125 else [])
    for size in sizes:
        for present in (True, False) if size == (1280, 720) and text == 150 else (True,):
            query = f"text={text}" + ("&present=1" if present else "")
            page = open_app(browser, f"{server}/{path}?{query}", size)
            try:
                settled(page)
                problems = []
                screens = page.evaluate("window.__mplPlayer.screens.length") if present else 1
                last = page.evaluate("window.__mplPlayer.n")
                for screen in range(screens):
                    for key, step in (("PageDown", 1), ("PageDown", 2), ("PageDown", 3), ("End", last)):
                        redrawn(page, lambda: page.keyboard.press(key), step)
                        if key == "PageDown" and step < 3:
                            continue
                        problems += [f"screen {screen + 1}, step {step}: {p}"
                                     for p in check_layout(page, text / 100, size, present)]
                    page.screenshot(path=str(shots / f"layout-{path}-{text}-{size[0]}-{'p' if present else 's'}"
                                                      f"-{screen + 1}.png"))
                    page.keyboard.press("Home")
                    if screen + 1 < screens:
                        redrawn(page, lambda: page.keyboard.press("v"))
                assert not problems, f"{path} at {text}% {size} {'presenter' if present else 'scrolling'}:\n" + \
                    "\n".join(problems[:25])
            finally:
                close(page)
