# Source this file (bash): puts Node >= 22.13 and the pinned pnpm on PATH, installing them
# from the npm registry into .tools/ when the machine lacks them. Used by README and .ci/run.
_toolpack_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
_toolpack_tools="$_toolpack_root/.tools"

_toolpack_node_ok() {
  command -v node >/dev/null 2>&1 &&
    node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 22 || (a === 22 && b >= 13) ? 0 : 1)'
}

if [ -x "$_toolpack_tools/node/node_modules/.bin/node" ]; then
  export PATH="$_toolpack_tools/node/node_modules/.bin:$PATH"
fi
if ! _toolpack_node_ok; then
  echo "toolchain: Node $(node --version 2>/dev/null || echo '(none)') is older than 22.13; installing Node 24 into .tools/node" >&2
  npm install --prefix "$_toolpack_tools/node" --no-audit --no-fund --loglevel=error node@24 >&2 &&
    export PATH="$_toolpack_tools/node/node_modules/.bin:$PATH"
fi

_toolpack_pnpm=$(node -p 'require(process.argv[1]).packageManager.split("@")[1]' "$_toolpack_root/package.json")
if [ -x "$_toolpack_tools/pnpm/node_modules/.bin/pnpm" ]; then
  export PATH="$_toolpack_tools/pnpm/node_modules/.bin:$PATH"
fi
if [ "$(pnpm --version 2>/dev/null)" != "$_toolpack_pnpm" ]; then
  echo "toolchain: installing pnpm $_toolpack_pnpm into .tools/pnpm (with npm: corepack's download fails signature checks on some machines)" >&2
  npm install --prefix "$_toolpack_tools/pnpm" --no-audit --no-fund --loglevel=error "pnpm@$_toolpack_pnpm" >&2 &&
    export PATH="$_toolpack_tools/pnpm/node_modules/.bin:$PATH"
fi
unset -f _toolpack_node_ok
unset _toolpack_root _toolpack_tools _toolpack_pnpm
