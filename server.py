"""Matching Pursuit Lab's server (`streamlit run server.py`, what `make run` starts).

The app is ``app.py``; this file adds the app's own HTTP routes to Streamlit's server
(``st.App``, Streamlit's documented way to add routes): the step player's payloads and
its script (``ui/player.py`` ``routes``), which every page's headers name so that a
browser fetches them with Streamlit's own scripts (``PreloadPlayer``).  A page open then
carries a reference of a few hundred bytes on the websocket where it carried 0.8 MB, and
the browser fetches a study's payload by its content's name and keeps it, as it keeps
plotly.js.  The files that do not change while the server runs -- Streamlit's scripts,
plotly.js, the player's script -- are read and gzip-compressed once and served from
memory (``ui/kept_files.py``): through Streamlit's own serving a first visit cost the
server 0.19-0.22 CPU-s, now 0.02.

Given addresses to warm (``make serve`` does: ``ui/warm.py``), it computes them before the
class arrives.

``streamlit run app.py`` still works: the player's payloads then travel inline, on the
websocket, as in Streamlit's tests (``AppTest``), which run ``app.py`` without a server.
"""

import streamlit as st
from starlette.middleware import Middleware
from streamlit import config

from ui import kept_files, player, warm

BASE = config.get_option("server.baseUrlPath")
KEPT = kept_files.static_prefixes(BASE, own=[f"{player.ROUTE}player.js"])
app = st.App(
    "app.py",
    routes=player.routes() + warm.routes(),
    middleware=[Middleware(kept_files.KeptFiles, prefixes=KEPT), Middleware(player.PreloadPlayer)],
)
warm.start_from_environment("/" + BASE.strip("/") if BASE.strip("/") else "")  # make serve's lessons, if any
