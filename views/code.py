"""Copy as code: a runnable script (``mpcore`` and scikit-learn only) that recomputes what a
page shows from the same settings, and prints the numbers.  The last line it prints is
``NUMBERS = {...}`` (JSON), so a test can compare them with the page's."""

from __future__ import annotations

import json
from urllib.parse import urlencode

from views import site

PRINT_STUDY = """
print("chosen training points:", result.path.indices.tolist())
for name, values in result.curves.curves.items():
    print(f"{name:>45s}: lowest {min(values):.4g} at t = {int(values.argmin()) + 1}")
numbers = {"indices": result.path.indices.tolist(),
           "curves": {name: [float(v) for v in values] for name, values in result.curves.curves.items()}}
"""

PRINT_DEFLATIONS = """
for name, path in result.paths.items():
    errors = result.errors[name].round(3).tolist()
    print(f"{name:>16s}: chosen {path.indices.tolist()}; test error after each step {errors}")
numbers = {"indices": {name: path.indices.tolist() for name, path in result.paths.items()},
           "errors": {name: [float(v) for v in errors] for name, errors in result.errors.items()}}
"""

PRINT_COLUMNS = """
table = result.table()
for name, values in table.items():
    print(f"{name:>32s}:", [float(f"{v:.4g}") for v in values])
numbers = {name: [float(v) for v in values] for name, values in table.items()}
"""

#: What a page's script prints, by the name its page gives (:attr:`views.site.Page.printer`).
PRINTERS = {"study": PRINT_STUDY, "deflations": PRINT_DEFLATIONS, "columns": PRINT_COLUMNS}


def _literal(value):
    """A Python literal for a setting (tuples stay tuples; numpy scalars become numbers)."""
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_literal(v) for v in value)
        return (
            f"({inner},)"
            if isinstance(value, tuple) and len(value) == 1
            else (f"({inner})" if isinstance(value, tuple) else f"[{inner}]")
        )
    if hasattr(value, "item"):
        value = value.item()
    return repr(value)


def _header(title, query):
    link = f"?{urlencode(query)}" if query else ""
    return (
        f'"""{title}, recomputed with mpcore (Matching Pursuit Lab).\n\n'
        f"The page's settings{(' (' + link + ')') if link else ''}; run with `python this_file.py`.\n"
        'Needs only mpcore and scikit-learn."""\n'
    )


def _data_lines(data, upload_name=None):
    """Load the page's dataset and split it exactly as the page does."""
    if upload_name is not None:
        lines = [
            "from pathlib import Path",
            "",
            "from mpcore.datasets import parse_csv, parse_npz, prepare",
            "",
            f"FILE = Path({upload_name!r})  # the file you uploaded: put its path here",
            "data = (parse_npz if FILE.suffix == '.npz' else parse_csv)(FILE.read_bytes())",
        ]
    else:
        options = ", ".join(f"{key}={_literal(value)}" for key, value in data.options)
        lines = [
            "from mpcore.datasets import load_dataset, prepare",
            "",
            f"data = load_dataset({data.name!r}{', ' + options if options else ''})",
        ]
    lines += [
        f"subsample = {data.points} if data.n_samples > {data.points} else None",
        f"split = prepare(data, test_size={data.test!r}, seed={data.seed}, standardize={data.standardize}, "
        "subsample=subsample)",
    ]
    return lines


def study_script(kind, title, data, kernel, settings, query=None, upload_name=None):
    """The script for the page ``kind`` (its own name), whose view comes from its study's
    core function (:attr:`views.site.Page.study`).

    ``data`` and ``kernel`` are the page's ``DataChoice`` and ``KernelChoice``,
    ``settings`` the keyword settings it passes; ``query`` the page's URL parameters (for
    the header); ``upload_name`` the uploaded file's name when the data came from one."""
    page = site.by_key(kind)
    module, function = page.study.split(":")
    arguments = [f"kernel={kernel.kernel!r}", f"gamma={_literal(kernel.gamma)}", f"degree={kernel.degree}"]
    arguments += [f"{key}={_literal(value)}" for key, value in sorted(settings.items())]
    lines = [_header(title, query), "import json", ""] + _data_lines(data, upload_name)
    lines += [
        "",
        f"from {module} import {function}",
        "",
        f"result = {function}(split, {', '.join(arguments)})",
        PRINTERS[page.printer].strip("\n"),
        'print("NUMBERS =", json.dumps(numbers))',
    ]
    return "\n".join(lines) + "\n"


def explore_script(title, name, vary, xs, settings, query=None):
    """The Bounds explorer's curve: :func:`mpcore.explore.explore` along one knob."""
    arguments = ", ".join(f"{key}={_literal(value)}" for key, value in sorted(settings.items()))
    lines = [
        _header(title, query),
        "import json",
        "",
        "import numpy as np",
        "",
        "from mpcore.explore import explore",
        "",
        f"xs = np.array({_literal([float(x) for x in xs])})",
        f"values = explore({name!r}, {vary!r}, xs{', ' + arguments if arguments else ''})",
        "for x, value in zip(xs, values):",
        f'    print(f"{vary} = {{x:g}}: {{value:.4g}}")',
        'print("NUMBERS =", json.dumps({"x": xs.tolist(), "bound": [float(v) for v in values]}))',
    ]
    return "\n".join(lines) + "\n"


def experiment_script(title, name, size):
    """A paper item: :func:`mpcore.experiments.run`, its findings and verdict."""
    lines = [
        _header(title, None),
        "import json",
        "",
        "from mpcore import experiments",
        "",
        f"result = experiments.run({name!r}, {size!r}, n_jobs=-1)",
        "for key, value in result.findings.items():",
        '    print(f"{key}: {value}")',
        "if result.verdict is not None:",
        '    print("verdict:", result.verdict.status, "-", result.verdict.reason)',
        "numbers = {key: [float(v) if not isinstance(v, str) else v for v in values]",
        "           for key, values in result.table.items()}",
        'print("NUMBERS =", json.dumps(numbers))',
    ]
    return "\n".join(lines) + "\n"


def numbers_of(output):
    """The ``NUMBERS = {...}`` line of a script's output, parsed."""
    line = next(line for line in reversed(output.splitlines()) if line.startswith("NUMBERS = "))
    return json.loads(line[len("NUMBERS = ") :])
