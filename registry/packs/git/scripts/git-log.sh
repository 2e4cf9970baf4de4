#!/usr/bin/env bash
# DESCRIPTION "Lists recent commits of the project's Git repository, newest first: hash, author, date and subject. Read-only."
# PARAM max_count AS integer DEFAULT 20 DESCRIPTION "How many commits to list (1-200)."
# PARAM ref AS string OPTIONAL LIKE "main" DESCRIPTION "Start from this branch, tag or commit instead of HEAD."
# PARAM path AS string OPTIONAL LIKE "src" DESCRIPTION "Only commits that touch this file or folder, relative to the project root."
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/git-tools.sh"
read_json_args
enter_repository
int_arg max_count 20 1 200
max_count=$REPLY
revision=()
arg ref ''
if [[ -n $REPLY ]]; then
  check_ref "$REPLY"
  revision=("$REPLY")
elif ! git_ro rev-parse --verify --quiet HEAD >/dev/null; then
  # A repository without commits yet: nothing to list, which is not an error.
  printf '{"commits":[]}\n'
  exit 0
fi
paths=()
arg path ''
if [[ -n $REPLY ]]; then
  check_path "$REPLY"
  paths=("$REPLY")
fi

out=''
while IFS=$'\037' read -r -d $'\036' hash short author email date subject; do
  hash=${hash#$'\n'}
  json_string "$author"
  author=$REPLY
  json_string "$email"
  email=$REPLY
  json_string "$subject"
  [[ -z $out ]] || out+=','
  out+="{\"hash\":\"$hash\",\"short\":\"$short\",\"author\":$author,\"email\":$email,\"date\":\"$date\",\"subject\":$REPLY}"
done < <(git_ro log --no-show-signature -n "$max_count" --format='%H%x1f%h%x1f%an%x1f%ae%x1f%aI%x1f%s%x1e' \
  --end-of-options ${revision[@]+"${revision[@]}"} -- ${paths[@]+"${paths[@]}"})
printf '{"commits":[%s]}\n' "$out"
