"""A live class's stream as a page reads it, for the tests: its events, read in a thread,
reconnecting a second after a drop (to the last of ``urls``, as a page behind the proxy
reconnects through it), with the lecturer's ``key`` in its header and the seat the class
gives it kept in its own cookies (one browser)."""

import contextlib
import json
import socket
import threading
import time

import httpx
import uvicorn
from starlette.applications import Starlette

from serving import classes


@contextlib.contextmanager
def serving(store, **options):
    """The class's routes on ``store``, served by uvicorn (as Streamlit's server is) in a
    thread, on a free loopback port: their base URL.  ``options``: uvicorn's."""
    app = Starlette(routes=classes.routes(store))
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", timeout_graceful_shutdown=1, **options
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}/mpl/class/"
    server.should_exit = True
    thread.join(10)


class Stream:
    def __init__(self, *urls, reconnect=False, key=None, headers=None):
        self.urls, self.reconnect = urls, reconnect
        self.events, self.status, self.body, self.opens = [], None, None, 0
        self.raw = []  # the events as they came (the address only when its view changed)
        self.socket = None
        self.closing = threading.Event()
        headers = dict(headers or {}, **({"X-Class-Key": key} if key is not None else {}))
        self.client = httpx.Client(timeout=httpx.Timeout(5, read=None), headers=headers)
        self.opened = threading.Event()
        self.thread = threading.Thread(target=self.read, daemon=True)
        self.thread.start()
        assert self.opened.wait(10)

    def read(self):
        url = self.urls[0]
        while not self.closing.is_set():
            try:
                with self.client.stream("GET", url) as answer:
                    self.socket = answer.extensions["network_stream"].get_extra_info("socket")
                    self.status = answer.status_code
                    self.body = None if answer.status_code == 200 else json.loads(answer.read())
                    self.opens += 1
                    self.opened.set()
                    name = "message"
                    for line in answer.iter_lines():
                        if line.startswith("event: "):
                            name = line[7:]
                        elif line.startswith("data: ") and name == "message":
                            event = json.loads(line[6:])
                            self.raw.append(dict(event))
                            if (
                                "address" not in event
                                and self.events
                                and event.get("view") == self.events[-1].get("view")
                            ):
                                event["address"] = self.events[-1].get("address")  # sent once per view
                            self.events.append(event)
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

    @property
    def seat(self):
        """The seat the class gave this stream (its cookie), or None."""
        return next((value for name, value in self.client.cookies.items() if name.startswith("mpl_seat_")), None)

    def close(self):
        """Close the stream as a closed tab does: its connection ends (closing the client
        alone leaves a read in progress holding it open)."""
        self.closing.set()
        if self.socket is not None:
            with contextlib.suppress(OSError):
                self.socket.shutdown(socket.SHUT_RDWR)
        self.thread.join(5)
        self.client.close()
