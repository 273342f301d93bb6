"""The step player's payload, the presets' lessons, the median heuristic and the live
Thm 5 check (the browser side is in test_browser.py)."""

import base64
import json

import numpy as np
import pytest

import mpcore
from mpcore import datasets, studies
from mpcore.kernels import median_gamma
from mpcore.skpca import check_theorem5
from serving import routes as serving_routes
from ui import component, compute
from views import figures, player, steps
from views.presets import PRESETS


def _decode_q8(spec):
    codes = np.frombuffer(base64.b64decode(spec["q8"]), dtype=np.uint8).astype(float)
    values = spec["lo"] + codes * (spec["hi"] - spec["lo"]) / 254
    values[codes == 255] = np.nan
    return values.reshape(spec["shape"])


def test_quantized_heatmaps_are_exact_to_one_level_and_keep_zero_and_gaps():
    rng = np.random.default_rng(0)
    matrix = rng.uniform(-1, 1, size=(30, 40))
    matrix[0, 0], matrix[1, 1] = np.nan, 0.0
    spec = player.encode(player.Quantized(matrix, -1.0, 1.0))
    back = _decode_q8(spec)
    assert back.shape == matrix.shape and np.isnan(back[0, 0]) and back[1, 1] == 0.0
    ok = np.isfinite(matrix)
    assert np.max(np.abs(back[ok] - matrix[ok])) <= 1 / 254 + 1e-12  # half a level of 2/254


def test_typed_arrays_round_trip():
    spec = player.encode({"a": np.arange(5, dtype=float), "b": np.array([[1, 2], [3, 4]]), "c": float("nan")})
    a = np.frombuffer(base64.b64decode(spec["a"]["bdata"]), dtype=np.float32)
    b = np.frombuffer(base64.b64decode(spec["b"]["bdata"]), dtype=np.int32).reshape(spec["b"]["shape"])
    assert a.tolist() == [0, 1, 2, 3, 4] and b.tolist() == [[1, 2], [3, 4]] and spec["c"] is None
    json.dumps(spec, allow_nan=False)  # the payload is strict JSON


@pytest.fixture(scope="module")
def kmp():
    split = datasets.prepare(datasets.load_dataset("sinc", n_samples=200), seed=0)
    return studies.kmp_study(split, k=12, gamma=10.0)


def test_heatmaps_are_thinned_to_the_budget():
    order = np.arange(200)
    assert len(steps._heat_order(order, 10)) == steps.MAX_HEAT_CELLS
    thinned = steps._heat_order(order, 150)
    assert len(thinned) ** 2 * 151 <= player.HEAT_BUDGET and len(thinned) >= 90
    assert np.all(np.diff(thinned) > 0)  # still in display order


def test_every_panel_has_a_patch_per_step_and_the_payload_is_json(kmp):
    j_steps = range(kmp.n_steps + 1)
    panels = [
        steps.data_panel(kmp, j_steps, kmp.split.y_train),
        steps.fit_panel(kmp, j_steps),
        steps.criterion_panel(kmp, j_steps, kmp.coords[:, 0], kmp.split.y_train, title="step {j}"),
        steps.heatmap_panel(kmp, j_steps, sort_note="sorted"),
        steps.bound_panel(kmp.curves, j_steps),
    ]
    text = player.payload("kmp", "key", kmp.n_steps, panels, [f"story {j}" for j in j_steps])
    body = json.loads(player.with_step(text, 3))
    assert body["step"] == 3
    assert all(len(item["frames"]) == kmp.n_steps + 1 for item in body["panels"])
    bound = next(item for item in body["panels"] if item["key"] == "bounds")
    assert bound["step_line"] is True  # the player draws the step line over it


def test_bound_plot_shows_running_minimum_stop_and_labelled_rescale(kmp):
    fig = figures.bound_figure(kmp.curves, 3, rescale=0.2)
    names = [trace.name for trace in fig.data]
    assert "running minimum of a bound" in names
    assert "KMP bound × 1/5" in names  # the factor is in the name, never a silent rescale
    scaled = next(t for t in fig.data if t.name == "KMP bound × 1/5")
    raw = next(t for t in fig.data if t.name == "KMP bound")
    assert np.allclose(np.array(scaled.y, dtype=float), 0.2 * np.array(raw.y, dtype=float), equal_nan=True)
    stop = figures.bound_stop(kmp.curves)
    if np.nanmin(kmp.curves.curves["KMP bound"]) >= 1:  # vacuous everywhere: no stop, and it says so in words
        assert stop is None and not any(getattr(shape, "name", None) == "stop" for shape in fig.layout.shapes)
        assert any("never below 1" in (a.text or "") for a in fig.layout.annotations)
    else:
        name, t, value = stop
        assert name == "KMP bound" and value == np.nanmin(kmp.curves.curves["KMP bound"])
        assert any(getattr(shape, "x0", None) == t for shape in fig.layout.shapes)


def _study_for(page, params):
    kinds = {
        "skpca": studies.skpca_study,
        "kmp": studies.kmp_study,
        "skcca": studies.skcca_study,
        "mpkfda": studies.mpkfda_study,
    }
    info = datasets.REGISTRY[params["data"]]
    options = {}
    points = int(params.get("points", 500))
    if "n_samples" in info.options:
        options["n_samples"] = points
    if "spread" in params:
        options["spread"] = float(params["spread"])
    data = datasets.load_dataset(params["data"], **options)
    split = datasets.prepare(data, test_size=0.3, seed=0, subsample=points if data.n_samples > points else None)
    gamma = {"1/d": None, None: "median"}.get(params.get("gamma"), params.get("gamma"))
    settings = {"k": int(params["k"]), "gamma": gamma if gamma in (None, "median") else float(gamma)}
    for key in ("variant", "deflation"):
        if key in params:
            settings[key] = params[key]
    if "alpha" in params:
        settings["alpha"] = float(params["alpha"])
    return kinds[page](split, **settings)


@pytest.mark.parametrize("page", list(PRESETS))
def test_each_page_opens_on_a_lesson_its_bound_can_teach(page):
    """The first preset's bound gets below 1 (it says something); a preset named after a
    trivial bound never does."""
    first = PRESETS[page][0]
    curves = _study_for(page, first.params).curves
    bound = curves.bound_names[0]
    assert np.nanmin(curves.curves[bound]) < 1, f"{page}: {first.name}"
    for preset in PRESETS[page]:
        if "trivial" in preset.name.lower():
            curves = _study_for(page, preset.params).curves
            assert np.nanmin(curves.curves[curves.bound_names[0]]) >= 1, f"{page}: {preset.name}"


# What each preset's name and lesson claim, checked on its own settings (the numbers in
# the lesson are computed; these are the findings they must show).
PRESET_FINDINGS = {
    ("skpca", "Boston: the bound has a best sparsity"): lambda n: n["bound_min"] < 1 and 1 < n["bound_argmin"] < 60,
    ("kmp", "XOR, many points: a bound below 1"): lambda n: n["bound_min"] < 1 and n["test_argmin"] > n["bound_argmin"],
    ("kmp", "sinc: the bound's best sparsity is near the test error's"): lambda n: (
        n["bound_min"] >= 1 and abs(n["bound_argmin"] - n["test_argmin"]) <= 3
    ),
    ("skcca", "Two-view rings: the bound picks the test error's sparsity"): lambda n: (
        n["bound_min"] < 1 and n["bound_argmin"] == n["test_argmin"] and n["rank_corr"] < 0.5
    ),
    ("skcca", "Fewer points: below 1 only briefly"): lambda n: n["bound_min"] < 1,
    ("mpkfda", "Tight blobs: the bound dips below 1"): lambda n: n["bound_min"] < 1,
}


@pytest.mark.parametrize("page,name", list(PRESET_FINDINGS))
def test_each_preset_shows_what_it_says(page, name):
    """ "Loosely" in the sparse KCCA lesson means what the gallery's card means by not
    tracking: a rank correlation below 0.5 (its criterion for "tracks")."""
    preset = next(p for p in PRESETS[page] if p.name == name)
    study = _study_for(page, preset.params)
    numbers = {"m": study.m, **study.curves.summary()}
    assert PRESET_FINDINGS[(page, name)](numbers), (name, numbers)
    text = preset.text(numbers)
    assert "{" not in text and f"{numbers['bound_min']:.2f}" in text


def test_curve_summary_is_computed_from_the_curves():
    from mpcore.curves import BoundCurves

    t = np.arange(1, 6)
    curves = BoundCurves(
        "demo",
        t,
        {"test error rate": np.array([0.5, 0.3, 0.2, 0.25, 0.3]), "a bound": np.array([5.0, 2.0, 0.9, np.inf, 3.0])},
        ("a bound",),
    )
    summary = curves.summary()
    assert summary["bound_min"] == 0.9 and summary["bound_argmin"] == 3
    assert summary["test_min"] == 0.2 and summary["test_argmin"] == 3
    # over t = 1, 2, 3, 5 (the bound is infinite at 4): the bound's ranks 4, 2, 1, 3, the error's 4, 2.5, 1, 2.5
    # (a tie shares its ranks); Spearman's coefficient is the correlation of the ranks
    assert summary["rank_corr"] == pytest.approx(np.corrcoef([4, 2, 1, 3], [4, 2.5, 1, 2.5])[0, 1])
    flat = BoundCurves("demo", t, {"test error rate": np.ones(5), "a bound": np.ones(5)}, ("a bound",))
    assert np.isnan(flat.summary()["rank_corr"])


def test_median_heuristic_matches_its_definition():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(50, 3))
    distances = np.linalg.norm(X[:, None] - X[None], axis=2)[np.triu_indices(50, 1)]
    assert median_gamma(X) == pytest.approx(1 / (2 * np.median(distances) ** 2))
    l1 = np.abs(X[:, None] - X[None]).sum(axis=2)[np.triu_indices(50, 1)]
    assert median_gamma(X, "laplacian") == pytest.approx(1 / np.median(l1))
    assert median_gamma(X, "poly") == pytest.approx(1 / 3)
    assert median_gamma(3 * X) == pytest.approx(median_gamma(X) / 9)  # scales with the data
    assert median_gamma(np.ones((4, 2))) == 0.5  # no positive distance: 1/d
    with pytest.raises(ValueError, match="2-D"):
        median_gamma(np.ones(5))


def test_theorem5_check_agrees_on_a_well_conditioned_kernel_and_explains_a_difference():
    X = np.random.default_rng(2).normal(size=(120, 3))
    K = mpcore.kernel_matrix(X, gamma=0.5)
    path = mpcore.skpca_path(K, 15)
    check = check_theorem5(K, path)
    assert check.same and check.steps == 15 and check.first_difference is None
    # Capped work: only the first steps are compared on a big problem.
    assert check_theorem5(K, path, max_flops=120**2 * 25 / 2).steps == 5


def test_a_packed_payload_carries_the_study_once_and_the_view_beside_it():
    """What the browser receives: the study gzip-compressed once (the same bytes for every
    session and step) and the step, lesson and display as a small JSON head; unpacking
    gives exactly the text the page would have sent whole."""
    text = json.dumps({"id": "s1", "n_steps": 3, "panels": [{"x": [0.5] * 2000}]}, separators=(",", ":"))
    gz = player.gzipped(text)
    assert player.gzipped(text) == gz and len(gz) < len(text) / 3  # deterministic (mtime 0), and compressed
    lesson = ("Boston", 'a "quoted" lesson')
    data = player.packed(gz, 2, lesson, True, 1.25)
    assert data.startswith(player.PACKED) and data.endswith(gz)
    assert player.unpacked(data) == player.with_step(text, 2, lesson, True, 1.25)
    assert json.loads(player.unpacked(player.packed(gz, 0)))["step"] == 0
    with pytest.raises(ValueError, match="packed"):
        player.unpacked(text.encode())


def _serving(monkeypatch):
    """The serving layer installed as ``server.py`` installs it (no child processes), and
    the plain one put back after the test."""
    import serving

    monkeypatch.setattr(compute, "SERVING", compute.SERVING)
    monkeypatch.setattr(serving_routes, "_BASE", serving_routes._BASE)
    serving.install(in_children=False)


def _get(route, path, headers=((b"accept-encoding", b"gzip, deflate, br"),)):
    """``route`` answering a GET of ``path`` (with a browser's ``headers``): (status, headers, body)."""
    import asyncio

    from starlette.requests import Request

    match, scope = route.matches({"type": "http", "method": "GET", "path": path, "headers": []})
    assert match.name == "FULL", path
    asked = {"type": "http", "method": "GET", "path": path, "headers": list(headers), "query_string": b""}
    request = Request({**asked, **scope})
    response = asyncio.run(route.endpoint(request))
    return response.status_code, dict(response.headers), response.body


def test_a_shown_payload_is_fetched_by_its_hash_and_the_oldest_leave_first(monkeypatch):
    """The app's payload route (server.py): a reference names the study's compressed bytes
    by their SHA-1, the route answers them gzip-encoded and cacheable forever (the name is
    the content), unknown or malformed names get a 404 (the player then asks for the bytes
    inline), and past ``KEPT_BYTES`` the least recently shown payload is dropped."""
    import gzip
    import hashlib

    monkeypatch.setattr(serving_routes, "_KEPT", type(serving_routes._KEPT)())
    monkeypatch.setattr(serving_routes, "_NAMES", {})
    _serving(monkeypatch)
    routes = {route.path: route for route in serving_routes.routes()}
    payload = routes["/mpl/payload/{name}"]
    texts = [json.dumps({"id": f"s{i}", "x": list(range(300 * i, 300 * i + 3000))}) for i in range(3)]
    gzs = [player.gzipped(text) for text in texts]
    names = [compute.SERVING.payload_name(gz) for gz in gzs]  # as a page names them, once installed
    assert compute.SERVING.routed and names == [hashlib.sha1(gz).hexdigest() for gz in gzs]
    status, headers, body = _get(payload, f"/mpl/payload/{names[1]}")
    assert status == 200 and gzip.decompress(body).decode() == texts[1]
    assert headers["content-encoding"] == "gzip" and "immutable" in headers["cache-control"]
    data = player.reference(names[1], 3, ("Boston", "a lesson"), True, 1.5)
    size = int.from_bytes(data[4:8], "big")
    assert data.startswith(player.REFERENCE) and data[8 + size :].decode() == names[1]
    assert json.loads(data[8 : 8 + size]) == {
        "step": 3,
        "present": True,
        "text_scale": 1.5,
        "lesson": {"name": "Boston", "text": "a lesson"},
    }
    for bad in ("0" * 40, names[0][:-1] + "g", names[0].upper(), names[0] + "0", ".." + names[0][2:]):
        assert _get(payload, f"/mpl/payload/{bad}")[0] == 404, bad

    monkeypatch.setattr(serving_routes, "KEPT_BYTES", len(gzs[0]) + len(gzs[1]) + len(gzs[2]) - 1)
    serving_routes.served_name(gzs[0])  # shown again: now the most recent; the oldest is names[1]
    serving_routes.served_name(player.gzipped(texts[2] + " "))
    assert _get(payload, f"/mpl/payload/{names[1]}")[0] == 404
    assert _get(payload, f"/mpl/payload/{names[0]}")[0] == 200


def test_the_players_modules_are_served_at_their_version_only(monkeypatch):
    """The player's modules at ``mpl/player/<version>/<name>``: each as it is on disk,
    JavaScript, cacheable forever (the version names every module's content); another
    version's address, or a name that is not a module, gets a 404."""
    route = {route.path: route for route in serving_routes.routes()}["/mpl/player/{version}/{name}"]
    version = player.player_version()
    for name in player.used_modules("streamlit.js"):
        status, headers, body = _get(route, f"/mpl/player/{version}/{name}")
        assert status == 200 and body == (player.PLAYER_DIR / name).read_bytes(), name
        assert "javascript" in headers["content-type"] and "immutable" in headers["cache-control"]
    for bad in (
        f"/mpl/player/{'0' * 12}/player.js",
        f"/mpl/player/{version}/nothing.js",
        f"/mpl/player/{version}/..%2fapp.py",
    ):
        assert _get(route, bad)[0] == 404, bad


def test_the_player_module_graph_is_whole():
    """Every module a module imports exists and exports what is imported of it; the app's
    entry reaches every module of the player but the saved page's own, the live class's bar (and their loaders),
    a worker's script counted as reached from the module that starts it: a module added and
    never imported is dead code, one renamed breaks the player."""
    import re

    modules = player.player_modules()
    exported = {
        name: set(re.findall(r"^export (?:async )?(?:function|const|let|class) (\w+)", text, re.M))
        | {item.strip() for block in re.findall(r"^export \{([^}]*)\}", text, re.M) for item in block.split(",")}
        for name, text in modules.items()
    }
    for name, text in modules.items():
        for names, used in re.findall(r'^import \{([^}]*)\} from "\./([\w-]+\.js)";', text, re.M):
            assert used in modules, f"{name} imports {used}, which is not a module"
            missing = {item.strip() for item in names.split(",") if item.strip()} - exported[used]
            assert not missing, f"{name} imports {sorted(missing)} from {used}, which does not export them"
    app = set(player.used_modules("streamlit.js"))
    saved = set(player.used_modules("standalone.js"))
    live = set(player.used_modules("live.js"))  # the live class's bar, loaded by its component's script
    # a worker's script, started by a module the app reaches (its address beside the module's), is reached
    started = r'new Worker\(new URL\("\./([\w-]+\.js)", import\.meta\.url\)'
    workers = {script for name in app for script in re.findall(started, modules[name])}
    assert workers == {"decode-worker.js"} and workers <= set(modules)
    app |= {name for script in workers for name in player.used_modules(script)}
    assert set(modules) - app - saved - live == {"boot.js", "offline.js", "live-boot.js"}
    assert live == {
        "live.js",
        "class-bar.js",
        "class-round.js",
        "board.js",
        "dom.js",
        "stream.js",
        "eventsource-parser.js",
    }
    assert {"plotly.js", "fetching.js"} <= app  # what the component script starts early
    # (a saved page carries no worker's script: standalone.js reads its studies on the main thread)
    assert saved - app == {"standalone.js"}
    assert app - saved == {"streamlit.js", "fetching.js", "drag.js", "pick.js", "decode-worker.js"}


def test_the_component_script_imports_the_player_where_it_is_served(monkeypatch):
    """The component's script (``static/player/boot.js`` filled in) names the very paths
    the app serves: routed, the modules' versioned route and the payloads' route; not
    routed, Streamlit's static files.  No placeholder is left, and the modules it imports
    are the player's."""
    import re

    monkeypatch.setattr(compute, "SERVING", compute.Plain())
    plain = component._boot()
    assert '"app/static/player/"' in plain
    _serving(monkeypatch)
    script = component._boot()
    assert not re.search(r'"__[A-Z]+__"', script) and not re.search(r'"__[A-Z]+__"', plain)
    paths = {route.path.lstrip("/") for route in serving_routes.routes()}
    assert f'"{player.ROUTE}payload/"' in script and f"{player.ROUTE}payload/{{name}}" in paths
    assert f'"{player.ROUTE}player/{player.player_version()}/"' in script
    imported = set(re.findall(r'address\("([\w-]+\.js)"\)', script))
    assert imported == {"plotly.js", "fetching.js", "streamlit.js"} and imported <= set(player.player_modules())
    assert json.dumps(player.used_modules("streamlit.js")) in script  # every module fetched at once
    assert f"{player.ROUTE}player/{{version}}/{{name}}" in paths
    assert f'"{player.plotly_url()}"' in script


def test_every_page_names_plotly_and_the_player_for_the_browser_to_fetch_early(monkeypatch):
    """server.py's middleware adds a Link header to HTML pages (and nothing else) naming
    the very URLs the component's script then asks for, so the preloaded files are the ones
    used: plotly.js, the entry the script imports and every module that imports."""
    import asyncio

    from starlette.responses import HTMLResponse, Response

    module = f"/{player.ROUTE}player/{player.player_version()}/player.js"
    answers = {"/kmp": HTMLResponse("<html></html>"), module: Response(b"", media_type="text/javascript")}

    async def app(scope, receive, send):
        await answers[scope["path"]](scope, receive, send)

    def headers_of(path, method="GET"):
        sent = []

        async def send(message):
            sent.append(message)

        async def receive():
            return {"type": "http.request", "body": b""}

        scope = {"type": "http", "method": method, "path": path, "headers": [], "query_string": b""}
        asyncio.run(serving_routes.PreloadPlayer(app)(scope, receive, send))
        return dict((k.decode(), v.decode()) for k, v in sent[0]["headers"])

    _serving(monkeypatch)  # as server.py does, before the middleware is made
    link = headers_of("/kmp")["link"]
    script = component._boot()
    plotly, entry, *rest = (part.split(">")[0].lstrip("<") for part in link.split(", "))
    assert link.split(", ")[0].endswith("rel=preload; as=script") and link.count("rel=modulepreload") == 1 + len(rest)
    base = entry.rsplit("/", 1)[0] + "/"
    assert f'"{plotly}"' in script and f'"{base}"' in script  # the component script's own URLs
    assert [url.removeprefix(base) for url in [entry, *rest]] == player.used_modules("streamlit.js")
    assert "link" not in headers_of(module) and "link" not in headers_of("/kmp", "HEAD")


def test_an_address_names_the_payload_last_shown_there_while_it_is_kept(monkeypatch):
    """What the page's Link header may name (``PreloadPlayer``): the payload last shown at
    the same path and query, whatever their order and the step, presenter mode and text
    size (one payload serves every view); none once that payload is no longer kept for
    fetching, for another path or setting, and none for addresses forgotten (the
    ``LINKED_MAX`` most recent are remembered)."""
    monkeypatch.setattr(serving_routes, "_KEPT", type(serving_routes._KEPT)())
    monkeypatch.setattr(serving_routes, "_LINKED", type(serving_routes._LINKED)())
    monkeypatch.setattr(serving_routes, "LINKED_MAX", 3)
    serving_routes._KEPT["a" * 40] = b"gz a"
    serving_routes._KEPT["b" * 40] = b"gz b"
    serving_routes.remember("/kmp", [("data", "xor"), ("k", "40"), ("step", "4")], "a" * 40)
    for query in ("data=xor&k=40", "k=40&data=xor", "data=xor&k=40&step=9&present=1&text=150"):
        assert serving_routes.linked_payload("/kmp", query) == "a" * 40, query
    for path, query in (("/kmp", "data=xor&k=41"), ("/kmp", "data=xor"), ("/mpkfda", "data=xor&k=40")):
        assert serving_routes.linked_payload(path, query) is None, (path, query)
    serving_routes.remember("/kmp", [("k", "40"), ("data", "xor")], "b" * 40)  # shown again, another study
    assert serving_routes.linked_payload("/kmp", "data=xor&k=40") == "b" * 40
    del serving_routes._KEPT["b" * 40]  # no longer fetchable: not named
    assert serving_routes.linked_payload("/kmp", "data=xor&k=40") is None
    for k in range(3):
        serving_routes.remember("/kmp", [("k", str(k))], "a" * 40)
    assert serving_routes.linked_payload("/kmp", "k=0") == "a" * 40 and len(serving_routes._LINKED) == 3
    serving_routes._KEPT["b" * 40] = b"gz b"
    assert serving_routes.linked_payload("/kmp", "data=xor&k=40") is None  # the oldest, forgotten


def test_a_panel_addresses_its_traces_by_name_never_by_position():
    """A frame that patches trace 0, a prediction that hides trace 1, or a marker following a
    line its figure does not name is refused when the payload is made, with the panel and
    the names; two traces of one figure cannot share a name."""
    import plotly.graph_objects as go

    figure = go.Figure([go.Scatter(uid="line", y=[1, 2]), go.Scatter(uid="low", y=[1], meta={"min_of": "line"})])
    assert player.Panel(
        "ok", "curve", "t", figure, [{"data": {"line": {"y": [2, 3]}}}], hide_when_predicting=("low",)
    ).as_dict()
    for frames, hidden, found in (
        ([{"data": {0: {"y": [2, 3]}}}], (), "0"),
        ([{"data": {"line": {"y": [2]}}}], (1,), "1"),
        ([{"data": {"lines": {"y": [2]}}}], (), "lines"),
    ):
        with pytest.raises(
            ValueError, match=rf"panel 'bad' addresses traces its figure does not name \(uid\): {found}"
        ):
            player.Panel("bad", "curve", "t", figure, frames, hide_when_predicting=hidden).as_dict()
    follows = go.Figure([go.Scatter(uid="line", y=[1]), go.Scatter(uid="low", meta={"min_of": "curve"})])
    with pytest.raises(ValueError, match="curve"):
        player.Panel("bad", "curve", "t", follows, []).as_dict()
    twice = go.Figure([go.Scatter(uid="line", y=[1]), go.Scatter(uid="line", y=[2])])
    with pytest.raises(ValueError, match="two traces share a uid"):
        player.Panel("bad", "curve", "t", twice, []).as_dict()


def test_a_panel_addresses_annotations_and_shapes_by_name():
    """A frame that changes an annotation by its position, or a reference line labelling a
    shape the figure does not name, is refused when the payload is made."""
    import plotly.graph_objects as go

    figure = go.Figure(go.Scatter(y=[1, 2]))
    figure.add_annotation(text="K", name="after-title", x=0, y=0)
    figure.add_shape(type="line", x0=0, x1=1, y0=1, y1=1, name="trivial")
    figure.update_layout(meta={"refs": [{"shape": "trivial", "axis": "y", "text": "trivial", "when": "always"}]})
    renamed = [{"layout": {"annotations.after-title.text": "K1"}}]
    assert player.Panel("ok", "bound", "t", figure, renamed).as_dict()
    for frames, found in (
        ([{"layout": {"annotations.0.text": "K1"}}], "annotations.0"),
        ([{"layout": {"annotations.before-title.text": "K1"}}], "annotations.before-title"),
        ([{"layout": {"shapes.stop.visible": False}}], "shapes.stop"),
    ):
        with pytest.raises(ValueError, match=f"does not name once: {found}"):
            player.Panel("bad", "bound", "t", figure, frames).as_dict()
    figure.update_layout(meta={"refs": [{"shape": 0, "axis": "y", "text": "trivial", "when": "always"}]})
    with pytest.raises(ValueError, match="does not name once: shapes.0"):
        player.Panel("bad", "bound", "t", figure, []).as_dict()


def test_a_panel_says_what_it_is_by_a_role_the_schema_names():
    """Presenter mode places a panel by what it is; a letter or a made-up role is refused
    when the payload is made, naming the roles there are."""
    import plotly.graph_objects as go

    figure = go.Figure(go.Scatter(y=[1, 2]))
    assert player.ROLES[:3] == ("data", "criterion", "bound")
    assert player.Panel("ok", "kernel", "t", figure, []).as_dict()["role"] == "kernel"
    for role in ("a", "heatmap", ""):
        with pytest.raises(ValueError, match=rf"panel 'bad': role '{role}' is none of data, criterion"):
            player.Panel("bad", role, "t", figure, []).as_dict()
