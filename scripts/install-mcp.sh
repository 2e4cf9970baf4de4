#!/usr/bin/env bash
# Installs the `mcp` command for your user from this clone, so a new shell has it without
# sourcing anything. The packages are not on the npm registry: this builds and packs them
# (scripts/pack-tarballs.mjs resolves their workspace ranges), installs the tarballs with npm
# into <prefix>/share/toolpack and writes the launcher <prefix>/bin/mcp, which runs them on a
# supported Node: the machine's own when it is recent enough, else a copy of the Node that
# scripts/toolchain.sh provides, kept in <prefix>/share/toolpack/node.
#
#   scripts/install-mcp.sh [--prefix DIR]               DIR defaults to ~/.local
#   scripts/install-mcp.sh --uninstall [--prefix DIR]   removes exactly what the install added
#
# Installing again replaces the previous install (an upgrade after `git pull`).
set -euo pipefail

# The second line of every launcher this script writes: it never overwrites or removes a
# `mcp` without it.
LAUNCHER_MARK='# Written by Toolpack scripts/install-mcp.sh.'
# The file in the install folder that lists what the install created, for --uninstall.
RECORD=installed-by-toolpack.txt

die() {
  printf 'install-mcp: %s\n' "$*" >&2
  exit 1
}

usage() {
  cat <<'EOF'
Usage: scripts/install-mcp.sh [--prefix DIR]
       scripts/install-mcp.sh --uninstall [--prefix DIR]

Installs `mcp` into DIR/bin (the packages into DIR/share/toolpack); DIR defaults to ~/.local.
--uninstall removes exactly what the install added.
EOF
}

prefix="$HOME/.local"
action=install
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix)
      [ $# -ge 2 ] || die '--prefix needs a folder, e.g. --prefix ~/.local'
      prefix=$2
      shift 2
      ;;
    --prefix=*)
      prefix=${1#--prefix=}
      shift
      ;;
    --uninstall)
      action=uninstall
      shift
      ;;
    -h | --help)
      usage
      exit 0
      ;;
    *) die "unknown argument '$1'; run scripts/install-mcp.sh --help" ;;
  esac
done
case "$prefix" in
  /*) ;;
  *) prefix="$PWD/$prefix" ;;
esac
prefix=${prefix%/}
bin_dir="$prefix/bin"
share_parent="$prefix/share"
share="$share_parent/toolpack"
launcher="$bin_dir/mcp"

is_our_launcher() {
  [ -f "$launcher" ] && [ "$(sed -n 2p "$launcher")" = "$LAUNCHER_MARK" ]
}

uninstall() {
  if [ ! -f "$share/$RECORD" ] && ! is_our_launcher; then
    echo "install-mcp: nothing to uninstall under $prefix (no $launcher written by this script)." >&2
    return 0
  fi
  if [ -e "$launcher" ] && ! is_our_launcher; then
    echo "install-mcp: leaving $launcher alone: this script did not write it." >&2
  elif is_our_launcher; then
    rm -f "$launcher"
  fi
  local created=()
  if [ -f "$share/$RECORD" ]; then
    # Folders the install created, deepest last: removed (when empty) in reverse order.
    while IFS= read -r line; do
      case "$line" in created\ *) created+=("${line#created }") ;; esac
    done <"$share/$RECORD"
    rm -rf "$share"
  fi
  local i
  for ((i = ${#created[@]} - 1; i >= 0; i--)); do
    rmdir "${created[i]}" 2>/dev/null || true
  done
  echo "Removed mcp from $prefix."
}

if [ "$action" = uninstall ]; then
  uninstall
  exit 0
fi

if [ -e "$launcher" ] && ! is_our_launcher; then
  die "$launcher exists and was not written by this script; remove it, or install elsewhere with --prefix DIR."
fi

root=$(CDPATH='' cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." >/dev/null && pwd)
user_path=$PATH

# A Node the launcher may use as it is: supported, and not inside this clone, which may
# move or be deleted after the install.
node_is_usable() {
  case "$1" in "$root"/*) return 1 ;; esac
  "$1" "$root/scripts/check-node.mjs" 2>/dev/null
}
system_node=$(PATH=$user_path command -v node || true)

# shellcheck source=toolchain.sh
source "$root/scripts/toolchain.sh"
# toolchain.sh reports its own failures (no network, a certificate problem) and carries on;
# without its Node and pnpm nothing below can work.
command -v pnpm >/dev/null 2>&1 && node "$root/scripts/check-node.mjs" ||
  die 'scripts/toolchain.sh could not provide a supported Node and pnpm (see its messages above); fix that, then run this again.'
if [ ! -d "$root/node_modules" ]; then
  (cd "$root" && pnpm install --frozen-lockfile) >&2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/toolpack-install-XXXXXX")
staging="$share.new"
created=()
# A failed install leaves nothing behind but what was there before.
clean_up() {
  local status=$? i
  rm -rf "$work"
  if [ "$status" -ne 0 ]; then
    rm -rf "$staging" "$launcher.tmp"
    for ((i = ${#created[@]} - 1; i >= 0; i--)); do rmdir "${created[i]}" 2>/dev/null || true; done
  fi
}
trap clean_up EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

echo "install-mcp: building and packing the packages" >&2
node "$root/scripts/pack-tarballs.mjs" --out "$work/tarballs" --json >"$work/packed.json"

# Folders this install creates, so --uninstall removes them again (and only them); an
# install over an earlier one keeps the earlier one's list.
if [ -f "$share/$RECORD" ]; then
  while IFS= read -r line; do
    case "$line" in created\ *) created+=("${line#created }") ;; esac
  done <"$share/$RECORD"
else
  for dir in "$prefix" "$bin_dir" "$share_parent"; do
    if [ ! -d "$dir" ]; then created+=("$dir"); fi
  done
fi
mkdir -p "$bin_dir" "$share_parent"

# Built beside the current install and swapped in at the end: a failed install leaves the
# previous one working.
rm -rf "$staging"
mkdir -p "$staging/tarballs"
node - "$work/packed.json" "$staging" <<'EOF'
const { copyFileSync, readFileSync, writeFileSync } = require('node:fs');
const path = require('node:path');
const [packedFile, staging] = process.argv.slice(2);
const packed = JSON.parse(readFileSync(packedFile, 'utf8'));
const dependencies = {};
for (const file of packed.cliTarballs) {
  const { name } = packed.tarballs.find((tarball) => tarball.file === file);
  copyFileSync(file, path.join(staging, 'tarballs', path.basename(file)));
  dependencies[name] = `file:tarballs/${path.basename(file)}`;
}
// Each @toolpack name resolves to its own tarball: npm never asks the registry for names
// that are not published there.
const overrides = Object.fromEntries(Object.keys(dependencies).map((name) => [name, `$${name}`]));
writeFileSync(
  path.join(staging, 'package.json'),
  `${JSON.stringify({ name: 'toolpack-mcp', private: true, dependencies, overrides }, null, 2)}\n`,
);
EOF

echo "install-mcp: installing with npm into $share" >&2
# npm run by the toolchain's Node would read its global config from that Node's folder, not the
# user's global npmrc (where a proxy's CA file often is): name the one the user's npm reads.
npm_globalconfig=$(PATH=$user_path npm config get globalconfig 2>/dev/null || true)
(
  cd "$staging"
  if [ -n "$npm_globalconfig" ]; then export npm_config_globalconfig=$npm_globalconfig; fi
  npm install --omit=dev --prefer-offline --no-audit --no-fund --loglevel=error
) >&2

if [ -n "$system_node" ] && node_is_usable "$system_node"; then
  node_for_mcp=$system_node
else
  # The machine's Node is missing or too old: keep a copy of the toolchain's next to the
  # packages (one file), so mcp does not depend on this clone.
  mkdir -p "$staging/node/bin"
  cp "$(command -v node)" "$staging/node/bin/node"
  node_for_mcp="$share/node/bin/node"
fi

{
  echo "Toolpack mcp installed from $root ($(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo 'no git'))"
  echo "launcher $launcher"
  echo "node $node_for_mcp"
  for dir in "${created[@]}"; do echo "created $dir"; done
} >"$staging/$RECORD"

rm -rf "$share.old"
if [ -d "$share" ]; then mv "$share" "$share.old"; fi
mv "$staging" "$share"
rm -rf "$share.old"

quote() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
cat >"$launcher.tmp" <<EOF
#!/bin/sh
$LAUNCHER_MARK
# Remove with: scripts/install-mcp.sh --uninstall --prefix $(quote "$prefix")
exec $(quote "$node_for_mcp") $(quote "$share/node_modules/@toolpack/cli/bin/mcp.js") "\$@"
EOF
chmod +x "$launcher.tmp"
mv "$launcher.tmp" "$launcher"

version=$("$launcher" --version)
echo "Installed mcp $version: $launcher (runs on $("$node_for_mcp" --version) at $node_for_mcp)."
case ":$user_path:" in
  *":$bin_dir:"*) echo "Open a new shell, or run 'hash -r' in this one, and mcp is there." ;;
  *)
    echo "$bin_dir is not on your PATH. Add it (then open a new shell):"
    echo "  bash: echo 'export PATH=\"$bin_dir:\$PATH\"' >> ~/.bashrc"
    echo "  zsh:  echo 'export PATH=\"$bin_dir:\$PATH\"' >> ~/.zshrc"
    ;;
esac
echo "Uninstall: scripts/install-mcp.sh --uninstall$([ "$prefix" = "$HOME/.local" ] || printf ' --prefix %s' "$(quote "$prefix")")"
