"""Serving a class: what makes one app process serve many browsers at once, kept apart from
the pages (which never import it) and installed by the server (``server.py``).

- :mod:`serving.routes`: the step player's payloads served by name, the ``Link`` header
  naming them, the store of payloads kept for fetching;
- :mod:`serving.kept_files`: Streamlit's and the app's static files kept compressed in memory;
- :mod:`serving.lines`: the page scripts' turns, the computations' fair line, the stores
  every session shares, bounded by bytes (installed into :mod:`ui.compute`);
- :mod:`serving.warm`: a process computing its lessons before the class arrives.

Without it (``streamlit run app.py``, Streamlit's tests) the app runs as it is: each page
computes and keeps its studies in a plain bounded store, and the payload travels inline.
"""
