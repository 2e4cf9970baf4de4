#!/usr/bin/env bash
# DESCRIPTION "Shows the Git status of the project: branch, upstream, commits ahead and behind, and every changed, staged, unmerged or untracked file. Read-only."
# PARAM untracked AS boolean DEFAULT true DESCRIPTION "List untracked files too."
# PARAM max_files AS integer DEFAULT 500 DESCRIPTION "List at most this many files (1-5000); the rest are counted."
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib/git-tools.sh"
read_json_args
enter_repository
int_arg max_files 500 1 5000
max_files=$REPLY
arg untracked true
untracked=all
[[ $REPLY != false ]] || untracked=no

describe() {
  case $1 in
    .) REPLY=null ;;
    M) REPLY='"modified"' ;;
    T) REPLY='"type changed"' ;;
    A) REPLY='"added"' ;;
    D) REPLY='"deleted"' ;;
    R) REPLY='"renamed"' ;;
    C) REPLY='"copied"' ;;
    U) REPLY='"unmerged"' ;;
    *) REPLY="\"$1\"" ;;
  esac
}

branch=null commit=null upstream=null ahead=0 behind=0 listed=0 total=0 files=''
add_file() {
  total=$((total + 1))
  if ((listed >= max_files)); then return 0; fi
  listed=$((listed + 1))
  [[ -z $files ]] || files+=','
  files+=$1
}

status=$(git_ro status --porcelain=v2 --branch -z --untracked-files="$untracked" | tr '\0' '\036') ||
  fail 'git status failed.'
IFS=$'\036' read -r -d '' -a entries <<<"$status" || true
for ((i = 0; i < ${#entries[@]}; i++)); do
  entry=${entries[i]}
  case $entry in
    '# branch.oid '*) [[ ${entry#\# branch.oid } == '(initial)' ]] || { json_string "${entry#\# branch.oid }"; commit=$REPLY; } ;;
    '# branch.head '*) [[ ${entry#\# branch.head } == '(detached)' ]] || { json_string "${entry#\# branch.head }"; branch=$REPLY; } ;;
    '# branch.upstream '*) json_string "${entry#\# branch.upstream }"; upstream=$REPLY ;;
    '# branch.ab '*)
      read -r _ _ a b <<<"$entry"
      ahead=${a#+}
      behind=${b#-}
      ;;
    '1 '* | 'u '*)
      read -r kind xy _ <<<"$entry"
      # Ordinary entries have 8 fields before the path, unmerged ones 10.
      if [[ $kind == 1 ]]; then path=$(cut -d' ' -f9- <<<"$entry"); else path=$(cut -d' ' -f11- <<<"$entry"); fi
      json_string "$path"
      path=$REPLY
      if [[ $kind == u ]]; then
        add_file "{\"path\":$path,\"staged\":\"unmerged\",\"unstaged\":\"unmerged\"}"
      else
        describe "${xy:0:1}"
        staged=$REPLY
        describe "${xy:1:1}"
        add_file "{\"path\":$path,\"staged\":$staged,\"unstaged\":$REPLY}"
      fi
      ;;
    '2 '*)
      read -r _ xy _ <<<"$entry"
      json_string "$(cut -d' ' -f10- <<<"$entry")"
      path=$REPLY
      i=$((i + 1))
      json_string "${entries[i]:-}"
      from=$REPLY
      describe "${xy:0:1}"
      staged=$REPLY
      describe "${xy:1:1}"
      add_file "{\"path\":$path,\"from\":$from,\"staged\":$staged,\"unstaged\":$REPLY}"
      ;;
    '? '*)
      json_string "${entry#\? }"
      add_file "{\"path\":$REPLY,\"staged\":null,\"unstaged\":\"untracked\"}"
      ;;
  esac
done

clean=true
((total == 0)) || clean=false
printf '{"branch":%s,"commit":%s,"upstream":%s,"ahead":%s,"behind":%s,"clean":%s,"fileCount":%s,"truncated":%s,"files":[%s]}\n' \
  "$branch" "$commit" "$upstream" "$ahead" "$behind" "$clean" "$total" "$([[ $listed -lt $total ]] && echo true || echo false)" "$files"
