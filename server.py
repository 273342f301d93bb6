"""Matching Pursuit Lab's server (`streamlit run server.py`, what `make run` starts).

The app is ``app.py``; this file adds the serving layer (``serving/``) to Streamlit's server
(``st.App``, Streamlit's documented way to add routes and middleware):

- the step player's payloads and script served by name (``serving/routes.py``), named in
  every page's headers so that a browser fetches them with Streamlit's own scripts;
- the files that do not change while the server runs kept compressed in memory
  (``serving/kept_files.py``);
- page scripts in turns, computations in a line, stores bounded by bytes, each fair between
  clients (``serving/lines.py``), each study computed in a child process of its own
  (``serving/children.py``, its fork server started here);
- the lessons it is given computed before the class arrives (``serving/warm.py``; ``make
  serve`` gives them);
- a live class: the students' players following the lecturer's, and the class's answers
  (``serving/classes.py``);
- the headers every answer carries (``serving/headers.py``);
- large blocks of memory given back to the system once freed (``serving/memory.py``).

``streamlit run app.py`` runs the same pages without it: payloads then travel inline, on
the websocket, as in Streamlit's tests (``AppTest``), which run ``app.py`` without a server.
"""

import streamlit as st
from starlette.middleware import Middleware
from streamlit import config

import serving
from serving import classes, headers, kept_files, memory, routes, warm
from views import player

BASE = config.get_option("server.baseUrlPath").strip("/")
BASE = f"/{BASE}" if BASE else ""  # the app's address path, if it sits under one
memory.return_large_blocks()  # a study's arrays, once freed, go back to the system
serving.install(BASE)  # the pages' one way to the serving layer (ui.compute.SERVING)
classes.raise_file_limit()  # each follower of a live class holds a connection
app = st.App(
    "app.py",
    routes=routes.routes() + warm.routes() + classes.routes(),
    middleware=[
        Middleware(headers.SafeHeaders),
        Middleware(kept_files.KeptFiles, prefixes=kept_files.static_prefixes(BASE, own=[f"{player.ROUTE}player/"])),
        Middleware(routes.PreloadPlayer),
    ],
)
warm.start_from_environment(BASE)  # make serve's lessons, if any
