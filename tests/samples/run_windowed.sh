#!/bin/sh
# Runs a windowed sample under Xvfb for a few frames with validation on: the
# sample's exit code fails on any validation message. Skips (exit 77) when
# xvfb-run is missing, unless CI=true, where that is a failure.
if ! command -v xvfb-run >/dev/null 2>&1; then
  if [ "$CI" = "true" ]; then echo "xvfb-run is required under CI" >&2; exit 1; fi
  echo "xvfb-run not installed: skipping" >&2
  exit 77
fi
exec xvfb-run -a -s "-screen 0 800x600x24" "$@"
