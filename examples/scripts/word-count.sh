#!/usr/bin/env bash
# DESCRIPTION "Counts the lines, words and characters of a text."
# PARAM text AS string LIKE "one two three" DESCRIPTION "The text to count."
# PARAM unit AS string OPTIONAL ENUM ["lines","words","chars"] DESCRIPTION "Count only this unit."
# HINTS readOnly, idempotent, openWorld: false
set -euo pipefail
input=$(cat)
text=$(printf '%s' "$input" | python3 -c 'import json,sys; print(json.load(sys.stdin)["text"], end="")')
printf '{"lines": %d, "words": %d, "chars": %d}\n' \
  "$(printf '%s' "$text" | wc -l)" "$(printf '%s' "$text" | wc -w)" "$(printf '%s' "$text" | wc -m)"
