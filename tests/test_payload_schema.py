"""The step player's payload, written down once (``views/payload.schema.json``): what
``views/player.py`` writes and the player (``static/player/``) reads.  Every page's payload in
``tests/test_pictures.py`` is checked against it; here, that the check finds what is wrong,
and that the player reads the schema's version and refuses another with a sentence."""

import json
import re
from functools import cache

import jsonschema

from views import pictures, player


@cache
def _validator():
    schema = json.loads(player.SCHEMA.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def payload_problems(payload):
    """What in ``payload`` (a dict) the schema refuses, panels sharing a key (the player
    addresses panels by key), and traces a panel addresses that its figure does not name
    (frames, predictions and lowest-point markers address traces by uid), as sentences;
    [] when it follows it."""
    problems = [
        f"{'/'.join(map(str, error.absolute_path)) or '(top)'}: {error.message[:200]}"
        for error in _validator().iter_errors(payload)
    ]
    keys = [panel.get("key") for panel in payload.get("panels", []) if isinstance(panel, dict)]
    problems += [f"two panels are called {key!r}" for key in sorted({k for k in keys if keys.count(k) > 1})]
    for panel in payload.get("panels", []):
        if not isinstance(panel, dict):
            continue
        traces = (panel.get("figure") or {}).get("data") or []
        named = {trace.get("uid") for trace in traces if isinstance(trace, dict)} - {None}
        wanted = {name for frame in panel.get("frames") or [] for name in (frame.get("data") or {})}
        wanted |= set(panel.get("hide_when_predicting") or [])
        wanted |= {(trace.get("meta") or {}).get("min_of") for trace in traces if isinstance(trace, dict)} - {None}
        problems += [
            f"panel {panel.get('key')!r} addresses a trace its figure does not name: {name!r}"
            for name in sorted(map(str, wanted - named))
        ]
        problems += _layout_name_problems(panel)
    return problems


def _layout_name_problems(panel):
    """Annotations and shapes that frames change or reference lines label, which the
    figure does not name exactly once."""
    layout = (panel.get("figure") or {}).get("layout") or {}
    names = {kind: [item.get("name") for item in layout.get(kind) or []] for kind in ("annotations", "shapes")}
    wanted = {("shapes", ref.get("shape")) for ref in (layout.get("meta") or {}).get("refs") or []}
    for frame in panel.get("frames") or []:
        for path in frame.get("layout") or {}:
            kind, _, rest = path.partition(".")
            if kind in names:
                wanted.add((kind, rest.split(".")[0]))
    return [
        f"panel {panel.get('key')!r} addresses {kind} its figure does not name once: {name!r}"
        for kind, name in sorted(wanted, key=str)
        if names[kind].count(name) != 1
    ]


def _panel(payload, key):
    return next(panel for panel in payload["panels"] if panel["key"] == key)


def _rename_ref(payload, name):
    _panel(payload, "bounds")["figure"]["layout"]["meta"]["refs"][0]["shape"] = name


def _kmp():
    return json.loads(pictures.open_address("kmp", {"data": "sinc", "points": "150", "k": "4"}).payload())


def test_a_payload_follows_the_schema_and_carries_its_version():
    payload = _kmp()
    assert payload_problems(payload) == []
    assert payload["version"] == player.PAYLOAD_VERSION


def test_the_check_finds_what_the_player_could_not_read():
    """Each change below is one the player would draw wrongly or not at all."""
    for change, found in (
        (lambda p: p.pop("version"), "'version' is a required property"),
        (lambda p: p.update(version=player.PAYLOAD_VERSION + 1), "version"),
        (lambda p: p["panels"][0].pop("frames"), "'frames' is a required property"),
        (lambda p: p["panels"][0].update(span=[2]), "span"),
        (lambda p: p["panels"][0].update(role="a"), "role"),
        (lambda p: p["panels"][0].pop("presenter"), "'presenter' is a required property"),
        (lambda p: p["panels"][1].update(key=p["panels"][0]["key"]), "two panels are called"),
        (lambda p: p.update(scores={"dtype": "f16", "bdata": ""}), "scores"),
        (lambda p: p.update(predict=True, picks=None), "picks"),
        (lambda p: p["panels"][0]["frames"][1].update(data={"0": {}}), "frames/1/data"),  # by position
        (lambda p: p["panels"][1]["frames"][1].update(data={"loser": {}}), "does not name: 'loser'"),
        (lambda p: p["panels"][1].update(hide_when_predicting=["winner", "ghost"]), "does not name: 'ghost'"),
        (lambda p: p.update(steps=3), "Additional properties are not allowed"),
        # annotations and shapes by their name, never their position
        (lambda p: _panel(p, "heatmaps")["frames"][1].update(layout={"annotations.1.text": "K"}), "frames/1/layout"),
        (lambda p: _panel(p, "heatmaps")["frames"][1].update(layout={"annotations.k-title.text": "K"}), "'k-title'"),
        (lambda p: _rename_ref(p, "ghost"), "shapes its figure does not name once: 'ghost'"),
        (lambda p: _rename_ref(p, 0), "does not name once: 0"),
        (lambda p: _panel(p, "bounds")["figure"]["data"][0].update(meta={"lable": "x"}), "/figure: "),
    ):
        payload = _kmp()
        change(payload)
        problems = payload_problems(payload)
        assert problems and any(found in problem for problem in problems), (found, problems)


def test_the_player_reads_the_schemas_version():
    source = (player.PLAYER_DIR / "decode.js").read_text()
    declared = re.search(r"export const PAYLOAD_VERSION = (\d+);", source)
    assert declared and int(declared.group(1)) == player.PAYLOAD_VERSION
