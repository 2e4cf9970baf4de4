# Source this file (bash or zsh): puts a supported Node (24+, or 22.22+ on the 22 line: the
# `engines` range in package.json) and the pinned pnpm on PATH, installing them from the npm
# registry into .tools/ when the machine lacks them. Used by README and .ci/run.
if [ -n "${ZSH_VERSION:-}" ]; then
  # shellcheck disable=SC2296
  _toolpack_here=${(%):-%x}
else
  _toolpack_here=${BASH_SOURCE[0]}
fi
# cd prints the folder when CDPATH picks it, and zsh runs chpwd hooks (auto-ls, version
# managers) that may print too: only pwd may write into the result.
_toolpack_root=$(CDPATH='' cd -- "$(dirname -- "$_toolpack_here")/.." >/dev/null 2>&1 && pwd)
_toolpack_tools="$_toolpack_root/.tools"

# The one package that holds this platform's binary, installed directly: the wrapper packages
# (`node`, `pnpm`) make npm resolve a package for every platform first, and a registry mirror
# that refuses some of those makes npm retry each for minutes (seen: 5 min for Node, pnpm never).
case "$(uname -s)" in
  Linux) _toolpack_os=linux ;;
  Darwin) _toolpack_os=darwin ;;
  *) _toolpack_os=unsupported ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) _toolpack_arch=x64 ;;
  aarch64 | arm64) _toolpack_arch=arm64 ;;
  *) _toolpack_arch=unsupported ;;
esac
_toolpack_libc=
if [ "$_toolpack_os" = linux ] && ldd --version 2>&1 | grep -qi musl; then _toolpack_libc=-musl; fi
_toolpack_node_bin="$_toolpack_tools/node/node_modules/node-$_toolpack_os-$_toolpack_arch/bin"
_toolpack_pnpm_bin="$_toolpack_tools/pnpm/node_modules/@pnpm/exe.$_toolpack_os-$_toolpack_arch$_toolpack_libc"

# `npm install --prefix DIR` reads its global config from DIR/etc/npmrc instead of the user's
# global npmrc, where a proxy's CA file (cafile) often is: the install then fails with
# SELF_SIGNED_CERT_IN_CHAIN although plain npm works. Name the real global npmrc explicitly,
# as npm on the PATH this file was sourced with sees it (npm run by the Node installed below
# would derive it from that Node's folder instead).
_toolpack_path_before=$PATH
_toolpack_npm_install() {
  _toolpack_npm_globalconfig=$(PATH=$_toolpack_path_before npm config get globalconfig 2>/dev/null)
  if [ -n "$_toolpack_npm_globalconfig" ]; then
    npm_config_globalconfig="$_toolpack_npm_globalconfig" npm install "$@"
  else
    npm install "$@"
  fi
}

_toolpack_node_ok() {
  command -v node >/dev/null 2>&1 && node "$_toolpack_root/scripts/check-node.mjs" 2>/dev/null
}

if [ -x "$_toolpack_node_bin/node" ]; then
  export PATH="$_toolpack_node_bin:$PATH"
fi
if ! _toolpack_node_ok; then
  echo "toolchain: Node $(node --version 2>/dev/null || echo '(none)') is not supported (Toolpack needs 24+, or 22.22+ on the 22 line); installing Node 24 into .tools/node" >&2
  _toolpack_npm_install --prefix "$_toolpack_tools/node" --no-audit --no-fund --loglevel=error "node-$_toolpack_os-$_toolpack_arch@24" >&2 &&
    export PATH="$_toolpack_node_bin:$PATH"
fi

_toolpack_pnpm=$(node -p 'require(process.argv[1]).packageManager.split("@")[1]' "$_toolpack_root/package.json")
if [ -x "$_toolpack_pnpm_bin/pnpm" ]; then
  export PATH="$_toolpack_pnpm_bin:$PATH"
fi
if [ "$(pnpm --version 2>/dev/null)" != "$_toolpack_pnpm" ]; then
  echo "toolchain: installing pnpm $_toolpack_pnpm into .tools/pnpm (with npm: corepack's download fails signature checks on some machines)" >&2
  _toolpack_npm_install --prefix "$_toolpack_tools/pnpm" --no-audit --no-fund --loglevel=error "@pnpm/exe.$_toolpack_os-$_toolpack_arch$_toolpack_libc@$_toolpack_pnpm" >&2 &&
    export PATH="$_toolpack_pnpm_bin:$PATH"
fi
unset -f _toolpack_node_ok _toolpack_npm_install
unset _toolpack_npm_globalconfig _toolpack_path_before _toolpack_here _toolpack_root _toolpack_tools _toolpack_pnpm _toolpack_os _toolpack_arch _toolpack_libc _toolpack_node_bin _toolpack_pnpm_bin
