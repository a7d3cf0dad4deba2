#!/usr/bin/env bash
# Writes the page's copy of the API definition (web/openapi.json, the document the server
# serves at /api/openapi.json) and the page's types generated from it
# (web/src/api-types.ts). Run it after changing a route, a parameter or a schema; the test
# `the_pages_copy_of_the_document_is_the_one_served` fails until it is run, and the page's
# type check (scripts/web.sh) then names every use of what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --lib http::openapi::tests::write_the_committed_document -- --ignored --quiet
cd web
if [[ ! -f node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json ]]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
npm run --silent api-types
