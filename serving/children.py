"""Studies computed in child processes: each computation in a process of its own, forked
from multiprocessing's fork server (which has the core and the pictures loaded, so a child
starts in milliseconds), at a lower priority than the page scripts, with its memory and CPU
time bounded.

Why not in the app's process: a study is seconds of CPU, and in the app's process it
shares the interpreter and the cores with every other student's page at the same priority,
so one client asking for many expensive studies slowed a whole class's cached pages; its
arrays' peak stayed in the process (the allocator keeps it), several GB after a few bursts;
and a computation whose student left ran on to its end.  In a child the scheduler gives the
class's pages the cores first, the child's memory goes back to the system when it ends, a
computation past its bound is stopped with a sentence, and one nobody waits for any more is
stopped at once.

The fork server is started once, from the server's start-up (``server.py``), with one BLAS
thread per pool (``ui/blas.py``, as the app's process): forking a process whose BLAS
threads are running can hang the child.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.forkserver
import os
import resource
import threading

#: How much lower a child runs than the page scripts (``nice``): when the cores are busy the
#: scheduler gives the class's pages most of them.
NICE = 19
#: The address space a computation may use beyond the child's start, bytes (MPLAB_STUDY_MEMORY):
#: past it the study stops with a sentence instead of the server running out of memory.
MEMORY = int(float(os.environ.get("MPLAB_STUDY_MEMORY", 4e9)))
#: The CPU seconds a computation may use (MPLAB_STUDY_SECONDS): past them it is stopped.
CPU_SECONDS = int(float(os.environ.get("MPLAB_STUDY_SECONDS", 600)))
#: The modules the fork server loads once, so that a child starts with them (``app``: a child
#: loads the parent's ``__main__``, app.py, whose imports are then loaded already).
PRELOAD = ["app", "views.pictures", "serving.first_use"]
_BLAS_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")

_CONTEXT = None
_LOCK = threading.Lock()

TOO_LARGE = "this study needs more memory than the server gives one study; try fewer points or a smaller k"
TOO_LONG = "this study needs more time than the server gives one study; try fewer points or a smaller k"
STOPPED = "the server stopped this study's computation before it finished; try again"


def start():
    """Start the fork server (once per process, from the main thread at start-up, where
    there is no page script's ``__main__`` for multiprocessing to load), with one BLAS thread
    and the pictures loaded."""
    global _CONTEXT
    with _LOCK:
        if _CONTEXT is not None:
            return _CONTEXT
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(PRELOAD)
        saved = {name: os.environ.get(name) for name in _BLAS_VARIABLES}
        os.environ.update({name: "1" for name in _BLAS_VARIABLES})
        try:
            multiprocessing.forkserver.ensure_running()
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
        _CONTEXT = context
        return context


def _address_space():
    """This process's virtual memory now, bytes (``VmSize``)."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def _child(connection, settings, with_progress, memory, seconds):
    """In the child: lower priority, ``memory`` bytes more address space and ``seconds`` of
    CPU at most; then the study, sent back as ``("progress", done, total)`` while it
    computes, then ``("drawn", payload)`` and ``("done", (study, seconds))`` -- the payload
    first: it is all a browser waits for, and a large study takes a while to cross -- or
    ``("error", sentence)``."""
    os.nice(NICE)
    limit = _address_space() + memory
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 5))
    from ui import compute
    from views import pictures

    def progress(done, total):
        connection.send(("progress", done, total))

    try:
        study, seconds = pictures.compute(settings, progress if with_progress else None)
        connection.send(("drawn", compute.drawn(settings, study)))
        connection.send(("done", (study, seconds)))
    except ValueError as error:
        connection.send(("error", str(error)))
    except MemoryError:
        connection.send(("error", TOO_LARGE))
    finally:
        connection.close()


def compute(settings, progress=None, drawn=None):
    """``pictures.compute(settings, progress)`` in a child process, with the player's
    payload of it drawn there too (:func:`ui.compute.drawn`: its JSON and gzip are most of
    a new study's CPU in the app's process): ``(study, seconds, drawn)``; ValueError with
    the core's sentence, or with one saying why the server stopped it.  ``drawn(payload)``
    is called as soon as the payload is here, before the study (whose arrays take a while
    to cross at thousands of points).  A caller that stops waiting (its session left:
    ``progress`` raised) stops the child."""
    context = start()
    receiving, sending = context.Pipe(duplex=False)
    child = context.Process(
        target=_child, args=(sending, settings, progress is not None, MEMORY, CPU_SECONDS), daemon=True
    )
    child.start()
    sending.close()
    shown = None
    try:
        while True:
            if not receiving.poll(0.5):
                if child.is_alive():
                    continue
                if not receiving.poll(0):
                    raise ValueError(_why_stopped(child))
            try:
                message = receiving.recv()
            except EOFError:
                raise ValueError(_why_stopped(child)) from None
            if message[0] == "progress":
                if progress is not None:
                    progress(message[1], message[2])
            elif message[0] == "drawn":
                shown = message[1]
                if drawn is not None:
                    drawn(shown)
            elif message[0] == "done":
                return (*message[1], shown)
            else:
                raise ValueError(message[1])
    finally:
        if child.is_alive():
            child.kill()
        child.join(timeout=5)
        receiving.close()


def _why_stopped(child):
    """The sentence for a child that ended without an answer."""
    child.join(timeout=5)
    if child.exitcode in (-9, -24):  # SIGKILL (out of memory), SIGXCPU (its CPU time)
        return TOO_LONG if child.exitcode == -24 else TOO_LARGE
    return STOPPED
