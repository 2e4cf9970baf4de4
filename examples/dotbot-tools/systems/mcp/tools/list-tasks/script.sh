#!/usr/bin/env bash
# Arguments arrive as one JSON object on stdin.
set -euo pipefail
limit=$(python3 -c 'import json,sys; print(json.load(sys.stdin).get("limit", 10))')
printf '{"tasks": [{"id": 1, "title": "Write the release notes"}], "limit": %s}\n' "$limit"
