"""Behind the class proxy (``deploy/``): a page whose app process stopped reopens itself.

HAProxy keeps each browser on one app process with a cookie (``MPLAB_SERVER``).  When that
process stops, Streamlit's page reconnects on its own and the proxy sends it to a live
process, which does not know its session: the page would look the same while its first
click was answered by a fresh session.  So the page watches the cookie, and when the
proxy has moved it, reloads from its address, which holds every setting and the step on
screen: the student sees the same page a moment later, on a process that knows it.

Mounted by ``app.py`` on every page when ``deploy/serve.py`` started the process (it sets
``MPLAB_BEHIND_PROXY``); a process started by ``make run`` has no proxy and no watcher.
"""

import os

import streamlit as st

ENV = "MPLAB_BEHIND_PROXY"

COOKIE = "MPLAB_SERVER"

_JS = """
export default function () {
  if (window.__mplServerWatch) return;
  const read = () => { const m = document.cookie.match(/(?:^|; )MPLAB_SERVER=([^;]*)/); return m ? m[1] : ""; };
  const first = read();
  if (!first) return;
  window.__mplServerWatch = setInterval(() => {
    const now = read();
    if (now && now !== first) location.reload();
  }, 500);
}
"""

_COMPONENT = None


def watch():
    """Mount the watcher (once per page load; nothing on screen) behind the proxy."""
    global _COMPONENT
    if not os.environ.get(ENV):
        return
    if _COMPONENT is None:
        _COMPONENT = st.components.v2.component("mpl_server_watch", html="<span hidden></span>", js=_JS)
    with st.sidebar:
        _COMPONENT(key="server-watch")
