"""The ``mplab`` command: start Matching Pursuit Lab from an installed package.

    mplab                      # the app on http://localhost:8501 (or a free port if that is taken)
    mplab --port 8600 --open   # another port, and open it in this computer's browser
    mplab --address 0.0.0.0    # reachable from other computers on the network
    mplab serve [...]          # a class: one process per core behind HAProxy (mplab serve --help)
    mplab export ADDRESS --out demo.html   # a page's demo as one HTML file (mplab export --help)

It runs the app with its class-ready configuration (``.streamlit/config.toml`` beside
``app.py``: no source watcher, no usage statistics, uploads up to 20 MB); everything the
pages load -- scripts, fonts, icons -- comes from this server, so a lecture hall without
internet works.  From a clone, ``make run`` does the same.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import signal
import subprocess
import sys
import threading
import time
import webbrowser
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the folder holding app.py, ui/ and app_pages/
DEFAULT_PORT = 8501
INSTALL_HINT = (
    'The app needs the package\'s "app" extra (Streamlit and Plotly): reinstall it as "PACKAGE[app]", '
    'or pip install "streamlit>=1.61" "plotly>=5.20"'
)


def port_is_free(port, address="127.0.0.1"):
    import socket

    with socket.socket() as sock:
        try:
            sock.bind((address, port))
        except OSError:
            return False
        return True


def choose_port(asked):
    """The port asked for; without one, 8501, or a free one when something already uses it."""
    from deploy.serve import free_port

    if asked is not None:
        return asked
    return DEFAULT_PORT if port_is_free(DEFAULT_PORT) else free_port()


def open_when_up(url, process):
    """Open ``url`` in this computer's browser once the app answers (or give up if it stopped)."""
    from deploy.serve import healthy

    while process.poll() is None:
        if healthy(url):
            webbrowser.open(url)
            return
        time.sleep(0.2)


def run(args):
    # Found, not imported: the app's own process imports them, and this one only waits for it.
    if importlib.util.find_spec("plotly") is None or importlib.util.find_spec("streamlit") is None:
        raise SystemExit(INSTALL_HINT)
    port = choose_port(args.port)
    if args.port is not None and not port_is_free(port, "0.0.0.0" if args.address == "0.0.0.0" else "127.0.0.1"):
        raise SystemExit(f"Port {port} is already in use; leave --port out for a free one, or choose another.")
    shown = "localhost" if args.address in ("127.0.0.1", "localhost", "0.0.0.0") else args.address
    url = f"http://{shown}:{port}"
    print(f"Matching Pursuit Lab at {url}/ (Ctrl-C stops it)", flush=True)
    # The app's folder as the working directory: Streamlit reads the project's config.toml from
    # there (older versions only from the working directory, not beside the script).
    from deploy.serve import app_command

    # The app stops with this command however it is stopped: Ctrl-C and SIGTERM stop it here,
    # and the kernel stops it if this process is killed outright (Linux).
    # The app runs in a session of its own, so that the terminal's Ctrl-C reaches this command
    # alone, which then stops the app as SIGTERM does (Streamlit, interrupted itself, printed
    # "Aborted!" and exited 241).
    on_posix = os.name == "posix"
    process = None
    try:
        # A Ctrl-C or SIGTERM that comes while the app is being started waits until it has
        # started: one that came during the fork was swallowed by the fork's own handlers
        # (logging's) and the command then waited for ever, the app running.
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, STOPS) if on_posix else None
        try:
            process = subprocess.Popen(
                app_command(port, args.address),
                cwd=ROOT,
                preexec_fn=_app_child if on_posix else None,
                start_new_session=on_posix,
            )
            signal.signal(signal.SIGTERM, _interrupt)
        finally:
            if on_posix:
                signal.pthread_sigmask(signal.SIG_SETMASK, blocked)  # one that came is raised here
        if args.open:
            threading.Thread(target=open_when_up, args=(url, process), daemon=True).start()
        return process.wait()
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM, at any moment once started
        if process is not None:
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
        print("Stopped.", flush=True)
        return STOPPED


STOPPED = 130  # the exit status of a command stopped with Ctrl-C (128 + SIGINT)
STOPS = {signal.SIGINT, signal.SIGTERM}


def _app_child():
    """In the app's process, before it runs (in a session of its own by then): it stops when
    this command dies, and takes the stop signals again, as the system's defaults (one sent
    to the command's group before the new session began ends this process before it runs)."""
    from deploy.serve import _die_with_parent

    _die_with_parent()
    for number in STOPS:
        signal.signal(number, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPS)


def _interrupt(*_):
    raise KeyboardInterrupt


def main(argv=None):
    """The command; Ctrl-C at any moment (starting up too) stops it with one line, no traceback."""
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print("Stopped.", file=sys.stderr, flush=True)
        return STOPPED


class _Version(argparse.Action):
    """``--version``: the library (and scikit-learn with it) imported only when it is asked."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        from mpcore import __version__

        print(f"Matching Pursuit Lab {__version__}")
        parser.exit()


def _main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))  # the app's own modules (deploy.*, ui.*), as Streamlit does for app.py
    if argv[:1] == ["serve"]:
        from deploy import serve

        return serve.main(argv[1:])
    if argv[:1] == ["export"]:
        from views import export

        return export.main(argv[1:], prog="mplab export")
    parser = argparse.ArgumentParser(
        prog="mplab",
        description=__doc__.split("\n\n")[0],
        epilog="mplab serve --help: serving a class from several processes. "
        "mplab export --help: saving demos and lessons as HTML files.",
    )
    parser.add_argument("--port", type=int, default=None, help=f"the port (default {DEFAULT_PORT}, or a free one)")
    parser.add_argument(
        "--address",
        default="localhost",
        help="the address to listen on (default localhost; 0.0.0.0 for the whole network)",
    )
    parser.add_argument("--open", action="store_true", help="open the app in this computer's browser")
    parser.add_argument("--version", action=_Version, help="show the version and exit")
    args = parser.parse_args(argv)
    if args.port is not None and not 0 < args.port < 65536:
        parser.error(f"--port must be between 1 and 65535, got {args.port}.")
    return run(args)


if __name__ == "__main__":
    raise SystemExit(main())
