"""The class server against a careless or hostile client, over its own protocol (the class
benchmark's client, ``benchmarks/visit.py``) and plain HTTP: what one client sends cannot
change what the server tells the next browser, and a payload goes out as the browser asked.
The server is the one every browser test shares (``server`` in ``conftest.py``)."""

import asyncio
import gzip
import json
import urllib.request
from concurrent.futures import ThreadPoolExecutor

from benchmarks.visit import open_page, stream_url


def _visit(server, page, query, **options):
    with ThreadPoolExecutor(1) as thread:  # (pytest's own event loop may be running)
        return thread.submit(asyncio.run, open_page(stream_url(server), page, query, **options)).result()


def _link(server, address):
    return urllib.request.urlopen(f"{server}/{address}").headers.get("link", "")


def test_a_client_that_says_it_is_elsewhere_cannot_change_that_addresss_preload(server):
    """A run of the Fisher page reporting the KMP page's address: the KMP address's Link
    header names no payload before or after (it named the Fisher study's, 704 KB, to every
    later visitor of the KMP link); the Fisher page's own address names it."""
    query = "data=xor&points=200&k=6&seed=71"
    before = _link(server, f"kmp?{query}")
    assert "mpl/payload/" not in before
    visit = _visit(server, "mpkfda", query, says=f"{server}/kmp?{query}")
    assert visit.error is None
    assert _link(server, f"kmp?{query}") == before
    assert "mpl/payload/" in _link(server, f"mpkfda?{query}")


def _varies(answer):
    """Whether the answer says it depends on the request's Accept-Encoding (a cache keeps each form apart)."""
    return "accept-encoding" in {token.strip().lower() for token in (answer.headers.get("Vary") or "").split(",")}


def test_a_payload_is_sent_as_the_browser_accepts_it_and_says_so(server):
    query = "data=sinc&points=150&k=5&seed=72"
    assert _visit(server, "kmp", query).error is None
    name = _link(server, f"kmp?{query}").rsplit("<mpl/payload/", 1)[1].split(">")[0]
    url = f"{server}/mpl/payload/{name}"
    zipped = urllib.request.urlopen(urllib.request.Request(url, headers={"Accept-Encoding": "gzip"}))
    assert zipped.headers["Content-Encoding"] == "gzip" and _varies(zipped)
    payload = json.loads(gzip.decompress(zipped.read()))
    plain = urllib.request.urlopen(urllib.request.Request(url, headers={"Accept-Encoding": "identity"}))
    assert plain.headers.get("Content-Encoding") is None and _varies(plain)
    assert json.loads(plain.read()) == payload
