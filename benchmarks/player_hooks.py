"""What the browser tests and benchmarks read of the step player, kept where they can read
it: the player announces itself and each step it draws as DOM events (``mpl-mounted``,
``mpl-rendered``, ``mpl-settled``; a saved demo's ``mx-scene``) and leaves nothing on
``window``; this script, added to a browser context before any page of it loads
(:func:`watch`), keeps the latest of each on ``window`` under the names the tests use:

- ``window.__mplPlayer``: the player mounted last;
- ``window.__mplRendered``: ``{step, at, id}`` of the last step drawn on screen;
- ``window.__mplSettled``: the same once every panel in view shows it (those out of view are
  drawn as they come into view);
- ``window.__mplScene``: the scene a saved demo shows.
"""

HOOKS = """
document.addEventListener("mpl-mounted", (event) => { window.__mplPlayer = event.detail; });
document.addEventListener("mpl-rendered", (event) => { window.__mplRendered = event.detail; });
document.addEventListener("mpl-settled", (event) => { window.__mplSettled = event.detail; });
document.addEventListener("mx-scene", (event) => { window.__mplScene = event.detail.scene; });
"""


def watch(context):
    """Keep the player's announcements on ``window`` in every page of ``context``
    (a Playwright browser context, or a page); returns it."""
    context.add_init_script(HOOKS)
    return context


class Watched:
    """A Playwright browser whose every context (and page made without one) is watched."""

    def __init__(self, browser):
        self._browser = browser

    def new_context(self, **options):
        return watch(self._browser.new_context(**options))

    def new_page(self, **options):
        context = self.new_context(**options)
        page = context.new_page()
        page.on("close", lambda _: _close(context))
        return page

    def __getattr__(self, name):
        return getattr(self._browser, name)


def _close(context):
    """Close ``context``, its page closed: unless the browser went first (a run's end)."""
    from playwright.sync_api import Error

    try:
        context.close()
    except Error:
        pass  # (closed with its browser)
