"""Serving a class: what makes one app process serve many browsers at once, kept apart from
the pages (which never import it) and installed by the server (``server.py``).

- :mod:`serving.routes`: the step player's payloads served by name, the ``Link`` header
  naming them, the store of payloads kept for fetching;
- :mod:`serving.kept_files`: Streamlit's and the app's static files kept compressed in memory;
- :mod:`serving.lines`: the page scripts' turns, the computations' line, the stores every
  session shares, bounded by bytes, each fair between clients (installed into :mod:`ui.compute`);
- :mod:`serving.clients`: who a page script runs for (its address, behind the proxy the one
  the proxy saw, and its session);
- :mod:`serving.children`: each study computed in a child process, below the page scripts,
  its memory and CPU time bounded;
- :mod:`serving.warm`: a process computing its lessons before the class arrives.

It plugs into the pages as one object, :data:`ui.compute.SERVING` (:func:`install`).
Without it (``streamlit run app.py``, Streamlit's tests) the app runs as it is: each page
computes and keeps its studies in a plain bounded store, and the payload travels inline.
"""


def install(base="", in_children=True):
    """Serve this process's pages (``server.py``, once, at start-up): the app at the address
    path ``base``; its studies computed in the fair line, in child processes
    (``in_children``), kept in the shared bounded stores, and its payloads named for the
    routes -- one object the pages reach as :data:`ui.compute.SERVING`."""
    from serving import lines, routes

    routes.install(base)
    lines.install(in_children, namer=routes.name_for)
