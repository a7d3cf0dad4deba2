#!/usr/bin/env bash
# Runs every cargo-fuzz target for a while (default 600 s each) from the committed seeds,
# and prints one line per target for FUZZING.md. Needs the nightly toolchain; installs
# cargo-fuzz when it is missing.
#   scripts/fuzz.sh            # every target, 600 s each
#   scripts/fuzz.sh 60 wkb     # one target, 60 s
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
seconds="${1:-600}"
shift || true
command -v cargo-fuzz >/dev/null 2>&1 || cargo install cargo-fuzz --locked
cd fuzz
targets=("$@")
if ((${#targets[@]} == 0)); then
  mapfile -t targets < <(cargo +nightly fuzz list)
fi
cargo +nightly fuzz build
for t in "${targets[@]}"; do
  # New inputs go to corpus/ (not committed); the seeds are read, never written.
  # Leak detection is off: GDAL and PROJ (C++, not instrumented) keep process-lifetime
  # caches that LeakSanitizer reports as leaks (16 bytes per CRS they failed to build);
  # the RSS limit still stops a run whose memory grows. libFuzzer's flag covers each
  # input; ASAN_OPTIONS covers the check at exit.
  mkdir -p "corpus/$t"
  log="target/fuzz-$t.log"
  start=$SECONDS
  if ASAN_OPTIONS=detect_leaks=0 cargo +nightly fuzz run "$t" "corpus/$t" "seeds/$t" -- \
    -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -detect_leaks=0 -print_final_stats=1 >"$log" 2>&1; then
    result=ok
  else
    result="FAILED (crash input under fuzz/artifacts/$t; log in fuzz/$log)"
  fi
  runs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' | tail -1)
  cov=$(grep -Eo 'cov: [0-9]+' "$log" | tail -1 | grep -Eo '[0-9]+')
  echo "$t: $((SECONDS - start)) s of ${seconds} s, ${runs:-?} runs, coverage ${cov:-?} edges, $result"
done
