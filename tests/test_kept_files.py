"""The static files a first visit fetches, served from memory and compressed once
(``serving/kept_files.py``): driven as ASGI calls, with an app that counts what it is asked."""

import asyncio
import gzip

import pytest

from serving.kept_files import KeptFiles, accepts_gzip, static_prefixes

SCRIPT = b"function f(x) { return x + 1; }\n" * 2000  # compressible, as Streamlit's scripts are
FONT = bytes(range(256)) * 200  # incompressible, as a woff2 font is
INDEX = b"<!doctype html><html><body><div id=root></div></body></html>" * 20


class CountingApp:
    """A downstream app answering like Streamlit's static files (its own headers, gzip on
    request for the app's static folder) and counting what it was asked."""

    def __init__(self):
        self.asked = []
        self.files = {
            "/static/js/index.abc.js": (200, b"application/javascript", SCRIPT),
            "/static/media/font.woff2": (200, b"font/woff2", FONT),
            "/static/js/gone.js": (404, b"text/plain", b"Not found"),
        }

    async def __call__(self, scope, receive, send):
        self.asked.append(scope["path"])
        # a path it does not have: Streamlit's index.html, with a 200 (its single-page fallback)
        status, kind, body = self.files.get(scope["path"], (200, b"text/html; charset=utf-8", INDEX))
        headers = dict(scope["headers"])
        out = [(b"content-type", kind), (b"etag", b'"v1"'), (b"cache-control", b"public, immutable, max-age=31536000")]
        if b"gzip" in headers.get(b"accept-encoding", b""):  # as Starlette's GZipMiddleware would
            body = gzip.compress(body)
            out.append((b"content-encoding", b"gzip"))
        out.append((b"content-length", str(len(body)).encode()))
        await asyncio.sleep(0.01)  # a file read: concurrent requests overlap here
        await send({"type": "http.response.start", "status": status, "headers": out})
        await send({"type": "http.response.body", "body": body})


async def get(app, path, method="GET", query=b"", **headers):
    sent = []

    async def send(message):
        sent.append(message)

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    scope = {
        "type": "http",
        "method": method,
        "path": path,
        "query_string": query,
        "headers": [(name.replace("_", "-").encode(), value.encode()) for name, value in headers.items()],
    }
    await app(scope, receive, send)
    start = sent[0]
    body = b"".join(message.get("body", b"") for message in sent[1:])
    return start["status"], {name.decode(): value.decode() for name, value in start["headers"]}, body


def kept(**options):
    app = CountingApp()
    return app, KeptFiles(app, static_prefixes(""), **options)


def test_a_file_is_asked_of_the_app_once_and_served_compressed_from_memory():
    app, files = kept()

    async def class_at_once():
        return await asyncio.gather(
            *(get(files, "/static/js/index.abc.js", accept_encoding="gzip, br") for _ in range(20))
        )

    answers = asyncio.run(class_at_once())
    assert app.asked == ["/static/js/index.abc.js"]  # twenty students, one read
    for status, headers, body in answers:
        assert status == 200 and headers["content-encoding"] == "gzip" and gzip.decompress(body) == SCRIPT
        assert int(headers["content-length"]) == len(body) < len(SCRIPT) / 10
        assert headers["cache-control"] == "public, immutable, max-age=31536000"
        assert headers["vary"] == "Accept-Encoding" and headers["etag"] == 'W/"v1"'
    status, headers, body = asyncio.run(get(files, "/static/js/index.abc.js"))  # no gzip accepted
    assert status == 200 and body == SCRIPT and "content-encoding" not in headers and headers["etag"] == '"v1"'
    assert asyncio.run(get(files, "/static/js/index.abc.js", accept_encoding="gzip;q=0"))[2] == SCRIPT
    assert app.asked == ["/static/js/index.abc.js"]


def test_what_is_not_a_plain_whole_file_goes_to_the_app():
    app, files = kept()
    for _ in range(2):  # a 404 is not kept: asked again
        assert asyncio.run(get(files, "/static/js/gone.js", accept_encoding="gzip"))[0] == 404
    assert app.asked.count("/static/js/gone.js") == 2
    asyncio.run(get(files, "/static/js/index.abc.js"))
    asked = len(app.asked)
    asyncio.run(get(files, "/static/js/index.abc.js", range="bytes=0-99"))  # a part: the app's own answer
    asyncio.run(get(files, "/static/js/index.abc.js", method="HEAD"))
    asyncio.run(get(files, "/kmp", accept_encoding="gzip"))  # a page, not a static file
    assert app.asked[asked:] == ["/static/js/index.abc.js", "/static/js/index.abc.js", "/kmp"]


def test_an_incompressible_file_is_kept_plain_and_a_known_etag_is_not_sent_again():
    app, files = kept()
    status, headers, body = asyncio.run(get(files, "/static/media/font.woff2", accept_encoding="gzip"))
    assert status == 200 and body == FONT and "content-encoding" not in headers and "vary" not in headers
    status, headers, body = asyncio.run(get(files, "/static/media/font.woff2", if_none_match='"v1"'))
    assert status == 304 and body == b"" and headers["etag"] == '"v1"'
    status, _, body = asyncio.run(get(files, "/static/js/index.abc.js", accept_encoding="gzip", if_none_match='W/"v1"'))
    assert status == 304 and body == b""
    assert app.asked == ["/static/media/font.woff2", "/static/js/index.abc.js"]


def test_memory_is_bounded():
    app, files = kept(limit=len(SCRIPT) + 1000)  # room for the script, not the font as well
    for _ in range(2):
        asyncio.run(get(files, "/static/js/index.abc.js", accept_encoding="gzip"))
        assert asyncio.run(get(files, "/static/media/font.woff2"))[2] == FONT
    assert app.asked.count("/static/js/index.abc.js") == 1 and app.asked.count("/static/media/font.woff2") == 2
    assert files.kept_bytes <= len(SCRIPT) + 1000


@pytest.mark.parametrize(
    "value, accepted",
    [
        ("gzip", True),
        ("gzip, deflate, br", True),
        ("br;q=1.0, gzip;q=0.8", True),
        ("GZIP", True),
        ("*", True),
        ("gzip;q=0", False),
        ("gzip; q=0.0", False),
        ("identity", False),
        ("", False),
        ("deflate, br", False),
        ("gzip;q=nonsense", False),
    ],
)
def test_accept_encoding(value, accepted):
    assert accepts_gzip(value.encode()) is accepted


def test_the_prefixes_follow_the_base_address():
    assert static_prefixes("", own=["mpl/player/"]) == ["/static/", "/app/static/", "/mpl/player/"]
    assert static_prefixes("/course/lab/") == ["/course/lab/static/", "/course/lab/app/static/"]
    assert static_prefixes("course") == ["/course/static/", "/course/app/static/"]


def test_a_file_asked_with_many_queries_is_kept_once_and_the_next_file_still_comes_compressed():
    """Eleven queries on one script (a client filling the store: each was kept anew), then a
    file not asked before: it still arrives gzipped."""
    app, files = kept(limit=3 * len(SCRIPT))
    for number in range(1, 12):
        status, headers, body = asyncio.run(
            get(files, "/static/js/index.abc.js", query=f"x={number}".encode(), accept_encoding="gzip")
        )
        assert status == 200 and headers["content-encoding"] == "gzip" and gzip.decompress(body) == SCRIPT
    assert app.asked.count("/static/js/index.abc.js") == 1
    kept_bytes = files.kept_bytes
    assert kept_bytes < 2 * len(SCRIPT)
    app.files["/static/js/other.def.js"] = (200, b"application/javascript", SCRIPT[::-1])
    status, headers, body = asyncio.run(get(files, "/static/js/other.def.js", accept_encoding="gzip"))
    assert headers["content-encoding"] == "gzip" and gzip.decompress(body) == SCRIPT[::-1]


def test_a_path_the_app_does_not_have_is_answered_as_the_app_does_and_never_kept():
    app, files = kept()
    for number in range(5):
        status, headers, body = asyncio.run(
            get(files, f"/static/js/PlotlyChart.{number}.js", query=b"x=1", accept_encoding="gzip")
        )
        assert status == 200 and body == INDEX and headers["content-type"].startswith("text/html")
    assert files.kept_bytes == 0


def test_a_file_the_bound_cannot_hold_is_still_sent_compressed_when_asked():
    app, files = kept(limit=1000)  # room for nothing
    for _ in range(2):
        status, headers, body = asyncio.run(get(files, "/static/js/index.abc.js", accept_encoding="gzip"))
        assert headers["content-encoding"] == "gzip" and gzip.decompress(body) == SCRIPT
        assert headers["vary"] == "Accept-Encoding"
        status, headers, body = asyncio.run(get(files, "/static/js/index.abc.js"))
        assert "content-encoding" not in headers and body == SCRIPT
    assert files.kept_bytes == 0


@pytest.mark.parametrize(
    "path,normal",
    [
        ("/static/js/index.abc.js", "/static/js/index.abc.js"),
        ("/static/./js/./index.abc.js", "/static/js/index.abc.js"),
        ("/static/js/../js/index.abc.js", "/static/js/index.abc.js"),
        ("//static//js///index.abc.js", "/static/js/index.abc.js"),
        ("/static/", "/static/"),
        ("/", "/"),
    ],
)
def test_a_path_is_read_without_its_dot_segments(path, normal):
    from serving.kept_files import normal_path

    assert normal_path(path) == normal


def test_one_file_spelt_many_ways_is_kept_once():
    """Forty-five spellings of one script (``./`` segments, doubled slashes) filled the 64 MB
    store with copies; each now is the one file, asked of the app once."""
    app, files = kept()
    spellings = [
        "/static/js/index.abc.js",
        *(f"/static/{'./' * n}js/index.abc.js" for n in range(1, 40)),
        *(f"/static{'/' * n}js/index.abc.js" for n in range(2, 8)),
    ]

    async def every_spelling():
        return [await get(files, path, accept_encoding="gzip") for path in spellings]

    answers = asyncio.run(every_spelling())
    assert app.asked == ["/static/js/index.abc.js"]
    assert files.kept_bytes == len(SCRIPT) + len(gzip.compress(SCRIPT, 9, mtime=0))
    assert all(status == 200 and gzip.decompress(body) == SCRIPT for status, _, body in answers)
    # out of the kept folders once its dots are read: the app answers it as it was asked
    asyncio.run(get(files, "/static/../secret.txt"))
    assert app.asked[-1] == "/static/../secret.txt"
