# Shared by the git pack's scripts (sourced, never run as a tool: it is outside scripts/).
# The tools receive their arguments as one JSON object on stdin and print JSON or text.
# Written for bash 3.2 too (macOS's /bin/bash): no associative arrays, no empty "${a[@]}".

# Byte semantics everywhere: string lengths, regexes and escaping work on bytes, and Git's
# messages stay in English whatever the user's locale.
export LC_ALL=C
# Read-only: never wait for a credential prompt, never take the index lock to refresh it.
export GIT_TERMINAL_PROMPT=0 GIT_OPTIONAL_LOCKS=0

fail() {
  printf '%s\n' "$1" >&2
  exit "${2:-1}"
}

# Sets REPLY to the UTF-8 bytes of code point $1.
utf8_encode() {
  local cp=$1 fmt
  if ((cp < 0x80)); then
    printf -v fmt '\\x%02x' "$cp"
  elif ((cp < 0x800)); then
    printf -v fmt '\\x%02x\\x%02x' $((0xC0 | cp >> 6)) $((0x80 | (cp & 0x3F)))
  elif ((cp < 0x10000)); then
    printf -v fmt '\\x%02x\\x%02x\\x%02x' $((0xE0 | cp >> 12)) $((0x80 | ((cp >> 6) & 0x3F))) $((0x80 | (cp & 0x3F)))
  else
    printf -v fmt '\\x%02x\\x%02x\\x%02x\\x%02x' $((0xF0 | cp >> 18)) $((0x80 | ((cp >> 12) & 0x3F))) \
      $((0x80 | ((cp >> 6) & 0x3F))) $((0x80 | (cp & 0x3F)))
  fi
  printf -v REPLY "$fmt"
}

# Sets REPLY to the text of a JSON string body (the part between the quotes).
json_unescape() {
  local s=$1 out='' c hex cp lo
  while [[ $s == *\\* ]]; do
    out+=${s%%\\*}
    s=${s#*\\}
    c=${s:0:1}
    s=${s:1}
    case $c in
      '"' | '\' | /) out+=$c ;;
      b) out+=$'\b' ;;
      f) out+=$'\f' ;;
      n) out+=$'\n' ;;
      r) out+=$'\r' ;;
      t) out+=$'\t' ;;
      u)
        hex=${s:0:4}
        s=${s:4}
        [[ $hex =~ ^[0-9a-fA-F]{4}$ ]] || fail 'Invalid arguments: a \u escape needs four hex digits.' 2
        cp=$((16#$hex))
        if ((cp >= 0xD800 && cp <= 0xDBFF)) && [[ ${s:0:2} == '\u' && ${s:2:4} =~ ^[dD][c-fC-F][0-9a-fA-F]{2}$ ]]; then
          lo=$((16#${s:2:4}))
          s=${s:6}
          cp=$((0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00)))
        fi
        if ((cp == 0)); then fail 'Invalid arguments: NUL characters are not allowed.' 2; fi
        utf8_encode "$cp"
        out+=$REPLY
        ;;
      *) fail "Invalid arguments: unknown escape \\$c." 2 ;;
    esac
  done
  REPLY=$out$s
}

# Reads the flat JSON object on stdin into ARG_<name> variables (strings unescaped, numbers
# and booleans as text, null left unset). These tools take no nested values, so objects and
# arrays are refused. The prefix keeps an argument from ever replacing PATH or the like.
read_json_args() {
  local rest key
  rest=$(cat)
  rest=${rest#"${rest%%[![:space:]]*}"}
  [[ $rest == '{'* ]] || fail 'Invalid arguments: expected a JSON object on stdin.' 2
  rest=${rest:1}
  local re_key='^[[:space:]]*"(([^"\\]|\\.)*)"[[:space:]]*:[[:space:]]*'
  local re_string='^"(([^"\\]|\\.)*)"'
  local re_literal='^(true|false|null|-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?)'
  if [[ $rest =~ ^[[:space:]]*\}[[:space:]]*$ ]]; then return 0; fi
  while :; do
    [[ $rest =~ $re_key ]] || fail 'Invalid arguments: expected "name": value.' 2
    json_unescape "${BASH_REMATCH[1]}"
    key=$REPLY
    rest=${rest:${#BASH_REMATCH[0]}}
    if [[ $rest =~ $re_string ]]; then
      rest=${rest:${#BASH_REMATCH[0]}}
      json_unescape "${BASH_REMATCH[1]}"
      set_arg "$key" "$REPLY"
    elif [[ $rest =~ $re_literal ]]; then
      rest=${rest:${#BASH_REMATCH[0]}}
      [[ ${BASH_REMATCH[1]} == null ]] || set_arg "$key" "${BASH_REMATCH[1]}"
    else
      fail "Invalid arguments: $key must be a string, a number or a boolean." 2
    fi
    rest=${rest#"${rest%%[![:space:]]*}"}
    case ${rest:0:1} in
      ,) rest=${rest:1} ;;
      '}') break ;;
      *) fail 'Invalid arguments: expected , or } in the JSON object.' 2 ;;
    esac
  done
}

set_arg() {
  # The server already refused names outside the tool's schema; anything else is ignored.
  if [[ $1 =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]]; then printf -v "ARG_$1" '%s' "$2"; fi
}

# Sets REPLY to argument $1, or to $2 when it was not given.
arg() {
  local var="ARG_$1"
  REPLY=${!var-${2-}}
}

# Sets REPLY to $1 as a JSON string literal.
json_string() {
  local s=$1 out='' c i code
  s=${s//\\/\\\\}
  s=${s//\"/\\\"}
  s=${s//$'\n'/\\n}
  s=${s//$'\r'/\\r}
  s=${s//$'\t'/\\t}
  if [[ $s == *[$'\x01'-$'\x1f\x7f']* ]]; then
    for ((i = 0; i < ${#s}; i++)); do
      c=${s:i:1}
      if [[ $c == [$'\x01'-$'\x1f\x7f'] ]]; then
        printf -v code '%d' "'$c"
        printf -v c '\\u%04x' "$code"
      fi
      out+=$c
    done
    s=$out
  fi
  REPLY="\"$s\""
}

# Git with nothing that writes, prompts, pages, colours or runs external diff programs.
git_ro() {
  git --no-pager --literal-pathspecs -c core.quotepath=off -c color.ui=false -c core.fsmonitor=false "$@"
}

# Moves to the project root and checks it is inside a Git work tree.
enter_repository() {
  cd "${TOOLPACK_PROJECT_ROOT:-$PWD}" || fail 'The project root does not exist.'
  local inside
  inside=$(git_ro rev-parse --is-inside-work-tree 2>&1) ||
    fail "The project root ($PWD) is not inside a Git repository: ${inside##*fatal: }"
  [[ $inside == true ]] || fail "The project root ($PWD) is not inside a Git work tree."
}

# Refuses a ref that could be read as an option, or that names no commit.
check_ref() {
  local ref=$1
  [[ $ref != -* ]] || fail "ref \"$ref\" starts with \"-\"; give a branch, tag or commit." 2
  git_ro rev-parse --verify --quiet --end-of-options "$ref^{commit}" >/dev/null ||
    fail "ref \"$ref\" is not a branch, tag or commit of this repository." 2
}

# Refuses paths outside the project root; Git reads the rest literally (no pathspec magic).
check_path() {
  local path=$1
  [[ $path != /* && $path != [A-Za-z]:* ]] || fail "path \"$path\" is absolute; give it relative to the project root." 2
  [[ "/$path/" != */../* ]] || fail "path \"$path\" climbs out of the project root with \"..\"." 2
}

# Reads an integer argument with a default and bounds.
int_arg() {
  local name=$1 default=$2 min=$3 max=$4 value
  arg "$name" "$default"
  value=$REPLY
  [[ $value =~ ^-?[0-9]+$ ]] || fail "$name must be a whole number from $min to $max." 2
  ((value >= min && value <= max)) || fail "$name must be from $min to $max (got $value)." 2
  REPLY=$value
}
