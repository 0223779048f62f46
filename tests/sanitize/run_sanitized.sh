#!/usr/bin/env bash
# run_sanitized.sh REPORT_DIR COMMAND [ARGS...]
# Runs COMMAND under the options of env.sh with every sanitizer report (AddressSanitizer,
# LeakSanitizer, UndefinedBehaviorSanitizer) written to a file under REPORT_DIR. Fails
# when COMMAND fails or when any report was written, by COMMAND or by any process it
# started (the CLI tests expect some tools to exit non-zero: a report must not pass
# for an expected failure).
set -uo pipefail
report_dir=$1
shift
rm -rf "$report_dir"
export TESSERA_SANITIZE_LOG_DIR=$report_dir
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"

"$@"
rc=$?

if compgen -G "$report_dir/report.*" >/dev/null; then
  for f in "$report_dir"/report.*; do
    echo "=== sanitizer report: $f"
    cat "$f"
  done
  echo "run_sanitized: FAILED: $(ls "$report_dir" | wc -l) sanitizer report(s) (exit status $rc)"
  exit 1
fi
echo "run_sanitized: no sanitizer reports (exit status $rc)"
exit $rc
