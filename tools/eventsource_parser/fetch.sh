#!/usr/bin/env bash
# Vendor static/player/eventsource-parser.js: the server-sent events parser of the npm
# package eventsource-parser (MIT; its ES module, which imports nothing), with a banner.
# The live class reads its stream with fetch (static/player/stream.js), which can send the
# lecturer's key in a header where the browser's EventSource cannot.  Needs npm and the npm
# registry; the app and its tests never run this.
set -euo pipefail
version="${1:-3.1.1}"
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
npm pack --silent "eventsource-parser@$version" >/dev/null
tar xzf "eventsource-parser-$version.tgz"
out="$repo/static/player/eventsource-parser.js"
{
  echo "// eventsource-parser v$version (MIT, Copyright (c) Espen Hovlandsdal; https://github.com/rexxars/eventsource-parser):"
  echo "// its dist/index.js as published, vendored by tools/eventsource_parser/fetch.sh."
  grep -v '^//# sourceMappingURL=' package/dist/index.js
} > "$out"
ls -l "$out"
