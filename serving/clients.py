"""Who is asking: a page script's client, for the fair shares of the computing line, the
page scripts' turns and the kept studies (:mod:`serving.lines`).

A client is its connection's address and its browser session.  Behind ``make serve``'s
proxy every connection comes from the proxy, so the address is the one the proxy saw: the
last ``X-Forwarded-For`` entry, which the proxy itself appends (an entry a browser wrote is
before it, in the same header or an earlier one).  ``deploy/serve.py`` tells each process it is
behind the proxy (``MPLAB_BEHIND_PROXY=1``); without it the header is not read, since any
browser can send one.  Nothing about a client is kept but
these two tokens, for as long as its work is in a line or a store.
"""

from __future__ import annotations

import ipaddress
import os
import secrets
from typing import NamedTuple
from urllib.parse import urlsplit

SESSION_KEY = "_mpl_client"


class Client(NamedTuple):
    address: str
    session: str


#: The work the server does for itself (the class warm-up), outside any page.
SERVER = Client("server", "server")


def proxied():
    """Whether this process is reached through ``make serve``'s proxy."""
    return os.environ.get("MPLAB_BEHIND_PROXY") == "1"


def address_of(peer, forwarded, behind_proxy=None):
    """The client's address from its connection's ``peer`` address and the
    ``X-Forwarded-For`` header (``forwarded``, or None): the proxy's last entry when this
    process is behind the proxy and the connection comes from it (loopback), else the peer."""
    behind_proxy = proxied() if behind_proxy is None else behind_proxy
    if behind_proxy and forwarded and _loopback(peer):
        last = forwarded.split(",")[-1].strip()
        if _valid(last):
            return last
    return peer or "unknown"


def request_address(request):
    """The address of the client of an HTTP ``request`` (a Starlette request): behind the
    proxy, the entry the proxy appended -- the last of every ``X-Forwarded-For`` line (a
    browser may send lines of its own, before it)."""
    peer = request.client.host if request.client else None
    forwarded = ", ".join(request.headers.getlist("x-forwarded-for")) or None
    return address_of(peer, forwarded)


def same_origin(request):
    """Whether an HTTP ``request`` comes from the app's own pages: a browser says where a
    request comes from (``Sec-Fetch-Site``, ``Origin``); another site's page can make this
    server neither work nor change anything for it.  A client that says neither is no
    browser's page (what it may do still needs a seat, a key or the fair line)."""
    site = request.headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return False
    origin = request.headers.get("origin")
    if origin is None:
        return True
    host = request.headers.get("host", "")
    return origin != "null" and urlsplit(origin).netloc.lower() == host.lower()


def _loopback(address):
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def _valid(address):
    try:
        ipaddress.ip_address(address)
    except ValueError:
        return False
    return True


def current():
    """The :class:`Client` of the page script running in this thread, or :data:`SERVER`
    outside a page (the warm-up's threads)."""
    import streamlit as st

    if not st.runtime.exists():
        return SERVER
    try:
        peer = st.context.ip_address
        forwarded = ", ".join(st.context.headers.get_all("X-Forwarded-For"))  # the proxy's is last
        session = st.session_state.get(SESSION_KEY)
        if session is None:
            session = st.session_state[SESSION_KEY] = secrets.token_hex(8)
    except Exception:  # not in a page script's thread: Streamlit has no context here
        return SERVER
    return Client(address_of(peer, forwarded), session)
