#!/bin/sh
# Load and soak (not part of CI): the release `ms4 serve` on a copy of the county
# GeoPackage on 127.0.0.1, ten minutes of mixed traffic (nearby, parcels in a bbox,
# determinations, inspection POSTs, an upload every minute). Prints requests/s, errors,
# p50/p99 by kind of request and the server's RSS, checks every inspection answered 2xx is
# there, and exits non-zero when a criterion is missed: at least 2,000 requests/s, 0
# errors, p99 under 50 ms, RSS after warm-up within 10%.
#
#   SOAK_SECONDS=600 SOAK_RATE=2500 SOAK_WORKERS=64 SOAK_POSTS=4 SOAK_UPLOAD_EVERY=60
#   SOAK_WARMUP=60 MS4_BENCH_PARCELS=1000000 scripts/soak.sh
#
# The county is generated (ms4 synth) and loaded on the first run, under target/bench-data,
# as the other benches do; each run works on a fresh copy of its registry.
set -eu
cd "$(dirname "$0")/.."
scripts/setup.sh
exec cargo bench --bench soak
