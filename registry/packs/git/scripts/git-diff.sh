#!/usr/bin/env bash
# DESCRIPTION "Shows the changes in the project's Git work tree as a unified diff: unstaged changes by default, staged ones, or the work tree against a commit. Read-only."
# PARAM staged AS boolean DEFAULT false DESCRIPTION "Show staged changes (the index against HEAD) instead of unstaged ones."
# PARAM ref AS string OPTIONAL LIKE "HEAD~1" DESCRIPTION "Compare with this branch, tag or commit instead."
# PARAM path AS string OPTIONAL LIKE "src" DESCRIPTION "Only changes to this file or folder, relative to the project root."
# PARAM stat_only AS boolean DEFAULT false DESCRIPTION "Only list the changed files with their added and removed line counts."
# PARAM context_lines AS integer DEFAULT 3 DESCRIPTION "Unchanged lines shown around each change (0-20)."
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/git-tools.sh"
read_json_args
enter_repository
int_arg context_lines 3 0 20
context_lines=$REPLY
options=(--no-ext-diff --no-textconv --no-color)
arg stat_only false
# -U implies a patch, so it is left out when only the summary is wanted.
if [[ $REPLY == true ]]; then options+=(--stat=200); else options+=("-U$context_lines"); fi
arg staged false
[[ $REPLY != true ]] || options+=(--cached)
revision=()
arg ref ''
if [[ -n $REPLY ]]; then
  check_ref "$REPLY"
  revision=("$REPLY")
fi
paths=()
arg path ''
if [[ -n $REPLY ]]; then
  check_path "$REPLY"
  paths=("$REPLY")
fi
diff=$(git_ro diff "${options[@]}" --end-of-options ${revision[@]+"${revision[@]}"} -- ${paths[@]+"${paths[@]}"}) ||
  fail 'git diff failed.'
if [[ -z $diff ]]; then
  echo 'No differences.'
else
  printf '%s\n' "$diff"
fi
