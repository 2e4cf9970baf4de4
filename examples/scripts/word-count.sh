#!/usr/bin/env bash
# DESCRIPTION "Counts the lines, words and characters of a text."
# PARAM text AS string LIKE "one two three" DESCRIPTION "The text to count."
# PARAM unit AS string OPTIONAL ENUM ["lines","words","chars"] DESCRIPTION "Count only this unit."
# HINTS readOnly, idempotent, openWorld: false
# OUTPUT lines AS integer OPTIONAL DESCRIPTION "How many lines (a last line without a newline counts)."
# OUTPUT words AS integer OPTIONAL DESCRIPTION "How many words."
# OUTPUT chars AS integer OPTIONAL DESCRIPTION "How many characters."
# EXAMPLE {"text": "one two\nthree"} DESCRIPTION "Counts 2 lines, 3 words and 13 characters."
# EXAMPLE {"text": "one two three", "unit": "words"} DESCRIPTION "Counts only the words."
set -euo pipefail
input=$(cat)
field() { printf '%s' "$input" | python3 -c 'import json,sys; print(json.load(sys.stdin).get(sys.argv[1], ""), end="")' "$1"; }
# The x keeps the text's trailing newlines, which $(...) would strip.
text=$(field text; printf x)
text=${text%x}
unit=$(field unit)
# wc -l counts newline characters, so a last line without one is added here.
lines=$(printf '%s' "$text" | wc -l)
if [[ -n $text && $text != *$'\n' ]]; then lines=$((lines + 1)); fi
words=$(printf '%s' "$text" | wc -w)
chars=$(printf '%s' "$text" | wc -m)
case $unit in
  lines | words | chars) printf '{"%s": %d}\n' "$unit" "${!unit}" ;;
  *) printf '{"lines": %d, "words": %d, "chars": %d}\n' "$lines" "$words" "$chars" ;;
esac
