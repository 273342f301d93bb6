"""A live class's stream as a browser's ``EventSource`` reads it, for the tests: its events,
read in a thread, reconnecting a second after a drop (to the first of ``urls`` that answers,
as a page behind the proxy reconnects through it)."""

import json
import threading
import time

import httpx


class Stream:
    def __init__(self, *urls, reconnect=False):
        self.urls, self.reconnect = urls, reconnect
        self.events, self.status, self.body, self.opens = [], None, None, 0
        self.closing = threading.Event()
        self.client = httpx.Client(timeout=httpx.Timeout(5, read=None))
        self.opened = threading.Event()
        self.thread = threading.Thread(target=self.read, daemon=True)
        self.thread.start()
        assert self.opened.wait(10)

    def read(self):
        url = self.urls[0]
        while not self.closing.is_set():
            try:
                with self.client.stream("GET", url) as answer:
                    self.status = answer.status_code
                    self.body = None if answer.status_code == 200 else json.loads(answer.read())
                    self.opens += 1
                    self.opened.set()
                    name = "message"
                    for line in answer.iter_lines():
                        if line.startswith("event: "):
                            name = line[7:]
                        elif line.startswith("data: ") and name == "message":
                            self.events.append(json.loads(line[6:]))
                        elif not line:
                            name = "message"
            except (httpx.HTTPError, RuntimeError):
                pass
            finally:
                self.opened.set()
            if not self.reconnect:
                return
            url = self.urls[-1]  # the way back in: through the proxy
            time.sleep(1.0)

    def wait_for(self, condition, timeout=10):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = [event for event in self.events if condition(event)]
            if found:
                return found[0]
            time.sleep(0.02)
        raise AssertionError(f"no such event among {self.events[-3:]}")

    def close(self):
        self.closing.set()
        self.client.close()
