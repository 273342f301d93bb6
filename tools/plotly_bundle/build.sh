#!/usr/bin/env bash
# Rebuild static/plotly-player.min.js: plotly.js (the version the installed plotly
# package bundles, or $1) with only the traces the step player draws.  Needs node and npm
# and the npm registry; the app and its tests never run this.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
version="${1:-$(python3 -c "import plotly, pathlib, re; t = (pathlib.Path(plotly.__file__).parent / 'package_data/plotly.min.js').read_text()[:200]; print(re.search(r'plotly.js v([0-9.]+)', t).group(1))")}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
npm pack --silent "plotly.js@$version" >/dev/null
tar xzf "plotly.js-$version.tgz"
cd package
npm install --silent --omit=dev --ignore-scripts --no-audit --no-fund
npm install --silent --no-save --ignore-scripts --no-audit --no-fund esbuild esbuild-plugin-glsl \
  esbuild-plugin-inline-css esbuild-plugin-environment stream-browserify
cp "$here/entry.js" ./mpl-entry.js
cp "$here/build.js" ./mpl-build.js  # beside its node_modules
banner="/** plotly.js v$version (MIT, Copyright 2012-2026 Plotly, Inc.), partial bundle: scatter, scattergl, heatmap, contour, histogram. Built by tools/plotly_bundle/build.sh. */"
node ./mpl-build.js ./mpl-entry.js "$repo/static/plotly-player.min.js" "$banner"
ls -l "$repo/static/plotly-player.min.js"
