#!/usr/bin/env bash
# Builds the web page (web/ -> web/dist), which build.rs embeds into the ms4 binary.
# Idempotent and quick when nothing changed: `npm ci` runs only when the lockfile is newer
# than the installed packages, the build only when a source is newer than the build.
set -euo pipefail
cd "$(dirname "$0")/../web"
if ! command -v npm >/dev/null 2>&1; then
  echo "scripts/web.sh: npm is not installed (scripts/setup.sh installs it)" >&2
  exit 1
fi
if [[ ! -f node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json ]]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
stamp=dist/index.html
if [[ -f "$stamp" ]] && [[ -z "$(find index.html vite.config.ts tsconfig.json package.json package-lock.json openapi.json src public -newer "$stamp" -print -quit)" ]]; then
  echo "web page up to date (web/dist)"
  exit 0
fi
npm run --silent build
# A build that left the old index.html in place would look up to date next time.
touch "$stamp"
