#!/usr/bin/env bash
# Writes the demo town's answers (CLI and HTTP, JSON and GeoJSON) into OUT, one file per
# question, so two builds can be compared byte for byte:
#   scripts/demo_answers.sh BIN_BEFORE before && scripts/demo_answers.sh BIN_AFTER after
#   diff -r before after
set -euo pipefail
bin=$(realpath "$1"); out=$(realpath -m "$2"); port=${3:-18089}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d); trap 'kill $pid 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p "$out"; cd "$work"
"$bin" demo --data "$here/data/demo" --registry demo.gpkg --no-serve >/dev/null
s=sqlite://demo.gpkg
cli() { local name=$1; shift; "$bin" --store $s "$@" >"$out/cli-$name" 2>&1 || echo "exit $?" >>"$out/cli-$name"; }
for f in json geojson; do
  cli trace-up.$f trace OF-000001 --upstream --format $f
  cli trace-down.$f trace CB-0000001 --downstream --format $f
  cli trace-hw.$f trace HW-0001 --upstream --format $f
  cli network-check.$f network-check --format $f
  cli illicit.$f illicit --format $f
  cli smps.$f smps-without-easement --format $f
  cli ws.$f watershed-facilities WS-0001 --format $f
  cli receiving.$f receiving-waters --parcel P-000010 --format $f
  cli determine.$f determine --parcel P-000010 --disturbed "1.5 acres" --format $f
  cli nearby.$f nearby --lon -73.8575 --lat 41.2137 --radius "500 ft" --format $f
done
cli screen.json screen --disturbed "1.5 acres" --format json
cli report.json report --year 2026 --format json
cli deadlines.json deadlines --as-of 2026-12-01 --format json
"$bin" --store $s serve --listen 127.0.0.1:$port --public-read >/dev/null 2>&1 & pid=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/health" >/dev/null && break; sleep 0.2; done
# The items' timeStamp is the time of the request: the one field two runs may not share.
api() { local name=$1 path=$2; curl -s "http://127.0.0.1:$port$path" | sed -E 's/"timeStamp":"[^"]*"/"timeStamp":"-"/' >"$out/api-$name"; }
for f in json geojson; do
  api trace-up.$f "/api/trace/OF-000001?direction=upstream&f=$f"
  api trace-hw.$f "/api/trace/HW-0001?direction=upstream&f=$f"
  api network-check.$f "/api/network-check?f=$f"
  api illicit.$f "/api/illicit?f=$f"
  api smps.$f "/api/smps-without-easement?f=$f"
  api ws.$f "/api/watersheds/WS-0001/facilities?f=$f"
  api nearby.$f "/api/nearby?lon=-73.8575&lat=41.2137&radius=500%20ft&f=$f"
  api receiving.$f "/api/receiving-waters?parcel=P-000010&f=$f"
  api screen.$f "/api/screen?disturbed=1.5%20acres&f=$f"
done
api collections "/collections"
api items "/collections/outfalls/items?limit=5"
api openapi "/api/openapi.json"
api deadlines "/api/deadlines?as_of=2026-12-01"
api report "/api/report?year=2026"
