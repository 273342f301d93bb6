"""Serve a class: several app processes behind HAProxy, at one address.

One Streamlit process runs its sessions as threads under one interpreter lock, so it uses
one core however many students it has.  This starts one process per core (each on its own
loopback port, with the project's class-ready ``.streamlit/config.toml``), puts HAProxy in
front of them with sticky sessions (``deploy/haproxy.cfg``), restarts a process that stops,
and has every process warm its caches with the shipped lessons in the background, one scene
at a time (``ui/warm.py``), so a class opening a lesson finds it computed.

    python -m deploy.serve [--processes 2] [--port 8501] [--address 0.0.0.0] [--warm all|none|NAME ...]
    make serve                                   # the same, with the defaults

Needs HAProxy (Debian: ``apt-get install haproxy``).  The caches are per process: each
process computes a lesson once (warming does it before the class arrives); the settings
of every page are in its address, so a student whose process stops is moved to another
and the page reopens as it was.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from string import Template
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
CONFIG = Path(__file__).resolve().parent / "haproxy.cfg"
START_TIMEOUT = 120.0
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # the app's own modules (ui.*), also when run as a file


def free_port(address="127.0.0.1"):
    """A port nothing listens on now (the tests and benchmarks start the app on one too)."""
    with socket.socket() as sock:
        sock.bind((address, 0))
        return sock.getsockname()[1]


def app_command(port, address="127.0.0.1"):
    """The command that starts the app on ``address:port`` with the project's configuration
    (``.streamlit/config.toml`` beside app.py: no source watcher, no usage statistics)."""
    return [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(ROOT / "server.py"),
        "--server.headless",
        "true",
        "--server.address",
        address,
        "--server.port",
        str(port),
    ]


def haproxy_path():
    for candidate in (os.environ.get("HAPROXY"), shutil.which("haproxy"), "/usr/sbin/haproxy"):
        if candidate and Path(candidate).exists():
            return candidate
    return None


def healthy(url, timeout=2.0):
    """Whether the app at ``url`` answers Streamlit's health check."""
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=timeout) as response:
            return response.status == 200
    except OSError:
        return False


def haproxy_config(bind, ports, socket_path):
    """``deploy/haproxy.cfg`` with the frontend's address, one server per port and the
    statistics socket's path."""
    servers = "\n".join(f"    server app{n} 127.0.0.1:{port} check cookie app{n}" for n, port in enumerate(ports, 1))
    return Template(CONFIG.read_text()).substitute(bind=bind, servers=servers, socket=socket_path)


def proxy_stats(socket_path):
    """HAProxy's view of each app process: ``{"app1": {"status": "UP", "sessions": 12,
    "current": 3}, ...}`` (``sessions``: connections sent there since HAProxy started;
    ``current``: open now)."""
    with socket.socket(socket.AF_UNIX) as sock:
        sock.settimeout(5)
        sock.connect(str(socket_path))
        sock.sendall(b"show stat\n")
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    lines = data.decode().lstrip("# ").splitlines()
    rows = list(csv.DictReader(lines))
    return {
        row["svname"]: {"status": row["status"], "sessions": int(row["stot"] or 0), "current": int(row["scur"] or 0)}
        for row in rows
        if row.get("pxname") == "app" and row["svname"] not in ("FRONTEND", "BACKEND")
    }


def lesson_addresses(names):
    """``(page path, query)`` of every scene of the lessons ``names`` ("all": the shipped ones)."""
    from views import lessons
    from views.export import lesson_queries

    if names == ["all"]:
        names = list(lessons.shipped())
    addresses = []
    for name in names:
        _, queries = lesson_queries(name)
        addresses += [(page.url_path, urlencode(query)) for page, query in queries]
    return addresses


def warm_status(url):
    """What the app process at ``url`` says of its warming (``GET /mpl/warmed``), or None."""
    try:
        with urllib.request.urlopen(f"{url}/mpl/warmed", timeout=5) as answer:
            return json.loads(answer.read())
    except (OSError, ValueError):
        return None


def _die_with_parent():
    """In the child, before it runs: stop (SIGTERM) when the process that started it dies,
    however it dies (Linux; elsewhere nothing)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


@dataclass
class Backend:
    """One app process, and the two proxy slots it takes turns in.

    A process that stopped is started again in its other slot (another server name, port
    and cookie value): the browsers of the old one then carry a cookie for a server that is
    down, so the proxy moves them and the page notices the new cookie and reloads from its
    address (``ui/server_watch.py``).  Restarted under the same name, a page would
    reconnect to a process that does not know its session and not notice."""

    number: int
    slots: tuple  # (slot number, port) twice
    log: Path
    process: subprocess.Popen | None = None
    starts: int = 0
    warmed: threading.Event = field(default_factory=threading.Event)
    warm_failures: list = field(default_factory=list)  # the addresses that did not open, and why

    @property
    def slot(self):
        return self.slots[(self.starts - 1) % 2 if self.starts else 0]

    @property
    def name(self):
        """The proxy's name for the current process, and its cookie value."""
        return f"app{self.slot[0]}"

    @property
    def port(self):
        return self.slot[1]

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def start(self, env):
        self.warmed.clear()
        self.starts += 1  # the next slot
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                app_command(self.port),
                cwd=ROOT,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=True,
                preexec_fn=_die_with_parent,
            )

    def running(self):
        return self.process is not None and self.process.poll() is None

    def stop(self, kill=False):
        if self.running():
            (self.process.kill if kill else self.process.terminate)()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class Deployment:
    """``processes`` app processes behind HAProxy at ``http://address:port``; a context
    manager (stops everything on exit).  ``warm``: scene addresses to open on each process
    once it answers (see :func:`lesson_addresses`)."""

    def __init__(self, processes=None, port=8501, address="0.0.0.0", warm=(), quiet=False, folder=None):
        self.haproxy = haproxy_path()
        if self.haproxy is None:
            raise SystemExit("HAProxy is not installed (on Debian or Ubuntu: apt-get install haproxy).")
        from serving.lines import cores

        self.processes = max(1, int(processes or cores()))
        self.address, self.port = address, int(port) or free_port(address if address != "0.0.0.0" else "127.0.0.1")
        self.warm_addresses = list(warm)
        self.quiet = quiet
        self.folder = Path(folder or tempfile.mkdtemp(prefix="mplab-serve-"))  # the config and the logs
        self.folder.mkdir(parents=True, exist_ok=True)
        # One secret for all: a session moved to another process keeps its upload token valid.
        self.env = {
            **os.environ,
            "MPLAB_WARM": json.dumps(self.warm_addresses),  # each process computes these at start (ui/warm.py)
            "STREAMLIT_SERVER_COOKIE_SECRET": secrets.token_hex(32),
            "MPLAB_BEHIND_PROXY": "1",  # pages reload when the proxy moves them (ui/server_watch.py)
        }
        n = self.processes
        # One file of live classes for every process (views/classroom.py): the lecturer and a
        # student may reach different processes, and a restarted process finds its classes.
        self.env.setdefault("MPLAB_CLASSES", str(self.folder / "classes.sqlite3"))
        # Each process computes as many studies at once as it has cores of its own.
        self.env.setdefault("MPLAB_COMPUTE_SLOTS", str(max(1, cores() // n)))
        self.backends = [
            Backend(k, ((k, free_port()), (k + n, free_port())), self.folder / f"process{k}.log")
            for k in range(1, n + 1)
        ]
        self.proxy = None
        self.stopping = threading.Event()
        self.threads = []

    @property
    def socket(self):
        return self.folder / "haproxy.sock"

    def stats(self):
        """:func:`proxy_stats` of this deployment's HAProxy."""
        return proxy_stats(self.socket)

    @property
    def url(self):
        host = "127.0.0.1" if self.address == "0.0.0.0" else self.address
        return f"http://{host}:{self.port}"

    def say(self, text):
        if not self.quiet:
            print(text, flush=True)

    def start(self):
        for backend in self.backends:
            backend.start(self.env)
        config = self.folder / "haproxy.cfg"
        ports = [b.slots[0][1] for b in self.backends] + [b.slots[1][1] for b in self.backends]
        config.write_text(haproxy_config(f"{self.address}:{self.port}", ports, self.socket))
        self.proxy = subprocess.Popen(
            [self.haproxy, "-db", "-f", str(config)],
            stdout=subprocess.DEVNULL,
            stderr=(self.folder / "haproxy.log").open("wb"),
            start_new_session=True,
            preexec_fn=_die_with_parent,
        )
        self.threads = [
            threading.Thread(target=self.supervise, daemon=True),
            threading.Thread(target=self.warm, daemon=True),
        ]
        for thread in self.threads:
            thread.start()
        return self

    def all_up(self):
        """Whether HAProxy sees every running process up (the spare slots are down)."""
        try:
            stats = self.stats()
        except OSError:  # the socket is not there yet
            return False
        return all(stats[backend.name]["status"] == "UP" for backend in self.backends)

    def wait_until_serving(self, timeout=START_TIMEOUT):
        """Block until HAProxy sees every process up and answers itself; a clear error when
        one does not start."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proxy.poll() is not None:
                raise RuntimeError(f"HAProxy stopped: {(self.folder / 'haproxy.log').read_text()[-2000:]}")
            if self.all_up() and healthy(self.url):
                return self
            time.sleep(0.3)
        raise RuntimeError(f"The app did not start within {timeout:.0f} s (logs in {self.folder}).")

    def supervise(self):
        """Restart a process that stopped (HAProxy sends its students elsewhere meanwhile)."""
        while not self.stopping.wait(0.5):
            for backend in self.backends:
                if not backend.running() and not self.stopping.is_set():
                    code = backend.process.returncode if backend.process else None
                    self.say(f"app process {backend.number} stopped (exit code {code}); starting it again")
                    backend.start(self.env)

    def warm(self):
        """Wait for each process to warm its caches (it computes the warm addresses itself,
        in its computations' line, at every start: ``ui/warm.py``) and say when it has."""
        if not self.warm_addresses:
            return
        while not self.stopping.is_set():
            for backend in self.backends:
                if backend.warmed.is_set() or not healthy(backend.url):
                    continue
                done = warm_status(backend.url)
                if done is None or not done.get("done"):
                    continue
                backend.warm_failures = list(done.get("failed", ()))
                backend.warmed.set()
                failed = backend.warm_failures
                self.say(
                    f"app process {backend.number}: {done.get('scenes')} lesson scenes warmed in "
                    f"{done.get('seconds') or 0:.0f} s"
                    + (f"; {len(failed)} failed, the first: {failed[0]}" if failed else "")
                )
            if self.stopping.wait(1.0):
                return

    def stop(self):
        self.stopping.set()
        if self.proxy is not None and self.proxy.poll() is None:
            self.proxy.terminate()
            self.proxy.wait(timeout=10)
        for backend in self.backends:
            backend.stop()

    def __enter__(self):
        try:
            return self.start().wait_until_serving()
        except BaseException:  # one did not start: stop the others before saying so
            self.stop()
            raise

    def __exit__(self, *exc):
        self.stop()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--processes", type=int, default=None, help="app processes (default: one per core)")
    parser.add_argument("--port", type=int, default=8501, help="where students connect (default 8501)")
    parser.add_argument("--address", default="0.0.0.0", help="the address to listen on (default: all)")
    parser.add_argument(
        "--warm",
        nargs="+",
        default=["all"],
        metavar="LESSON",
        help="lessons to compute on every process at start: all (default), none, or names",
    )
    args = parser.parse_args(argv)
    warm = [] if args.warm == ["none"] else lesson_addresses(args.warm)
    deployment = Deployment(args.processes, args.port, args.address, warm)
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        deployment.start().wait_until_serving()
        deployment.say(
            f"Matching Pursuit Lab: {deployment.processes} processes behind HAProxy at "
            f"http://{args.address}:{deployment.port}/ (logs in {deployment.folder}); Ctrl-C stops."
        )
        while deployment.proxy.poll() is None:
            time.sleep(1)
        raise SystemExit("HAProxy stopped; see its log in " + str(deployment.folder))
    except KeyboardInterrupt:
        pass
    finally:
        for number in (signal.SIGINT, signal.SIGTERM):  # a second Ctrl-C must not leave processes behind
            signal.signal(number, signal.SIG_IGN)
        deployment.stop()


def _interrupt(*_):
    raise KeyboardInterrupt


if __name__ == "__main__":
    main()
