#!/bin/sh
# Release check: 50 SIGKILLs per store during imports, uploads and inspection bursts.
# After each kill the layer must be exactly its state before or after the write, the audit
# must agree, `ogrinfo -ro` must read the GeoPackage and the next import must work.
# Needs MS4_TEST_PG for the PostGIS half (scripts/test.sh sets it the same way).
set -eu
cd "$(dirname "$0")/.."
: "${MS4_TEST_PG:=postgres://ms4:ms4@127.0.0.1:5432/postgres}"
export MS4_TEST_PG
MS4_KILLS="${MS4_KILLS:-50}" exec cargo test --test kill killed_writes -- --test-threads 1 --nocapture
