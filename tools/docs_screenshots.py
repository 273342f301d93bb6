"""The app's screenshots in the documentation (docs/_static/app/*.png), taken afresh.

    python tools/docs_screenshots.py          # needs Debian's chromium and Playwright

Starts the app on a free port, opens each view below in headless Chromium at 1280x720,
waits until the page is idle and the step player has drawn, and saves a PNG.
"""

import subprocess
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from deploy.serve import app_command, free_port, healthy, lesson_addresses  # noqa: E402

OUT = ROOT / "docs" / "_static" / "app"
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"


def views():
    page, query = lesson_addresses(["all"])[1]
    return [
        ("home", "", False),
        ("sparse-kpca", "sparse-kpca?step=6", True),
        ("presenter", "mpkfda?present=1&step=5", True),
        ("lesson", f"{page}?{query}", True),
        ("deflation-lab", "deflation-lab", True),
    ]


def main():
    port = free_port()
    url = f"http://localhost:{port}"
    app = subprocess.Popen(
        app_command(port),
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        while not healthy(url):
            if app.poll() is not None:
                raise SystemExit("The app did not start.")
        OUT.mkdir(parents=True, exist_ok=True)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium")
            for name, address, player in views():
                context = browser.new_context(viewport={"width": 1280, "height": 720})
                page = context.new_page()
                page.goto(f"{url}/{address}")
                page.wait_for_selector(IDLE, timeout=180_000)
                if player:
                    page.wait_for_function("window.__mplSettled", timeout=180_000)
                page.wait_for_timeout(500)  # transitions end
                page.screenshot(path=str(OUT / f"{name}.png"))
                print("saved", OUT / f"{name}.png")
                context.close()
            browser.close()
    finally:
        app.terminate()
        app.wait()


if __name__ == "__main__":
    main()
