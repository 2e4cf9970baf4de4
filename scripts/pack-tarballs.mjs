// Packs every public package into installable tarballs: the supported way to use Toolpack
// outside this workspace until it is published. `npm pack` would keep `workspace:^` ranges
// (npm then fails on them); `pnpm pack` applies publishConfig and writes real versions, and
// this script checks every tarball's manifest for leftovers before printing how to install.
//
//   pnpm pack-tarballs                   # build, then pack into dist-tarballs/
//   pnpm pack-tarballs --out <dir>       # pack somewhere else (its toolpack-*.tgz are replaced)
//   pnpm pack-tarballs --no-build        # pack the dist/ folders as they are
//   pnpm pack-tarballs --json            # print the result as JSON instead of prose
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';

const repoRoot = path.resolve(import.meta.dirname, '..');
const PACKAGE_FOLDERS = ['packages', 'apps'];
const LOCAL_RANGE = /^(workspace|link|file|portal|catalog):/;
const useShell = process.platform === 'win32';

function fail(message) {
  process.stderr.write(`pack-tarballs: ${message}\n`);
  process.exit(1);
}

function run(command, args, cwd) {
  try {
    return execFileSync(command, args, {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 * 1024 * 1024,
      shell: useShell,
    });
  } catch (error) {
    const output = `${error.stdout ?? ''}\n${error.stderr ?? ''}`.trim();
    fail(`\`${command} ${args.join(' ')}\` failed in ${cwd}:\n${output.slice(-4000)}`);
  }
}

/** Public workspace packages (not `private`), each after the @toolpack packages it needs. */
function listPublicPackages() {
  const found = [];
  for (const folder of PACKAGE_FOLDERS) {
    for (const entry of readdirSync(path.join(repoRoot, folder), { withFileTypes: true })) {
      const file = path.join(repoRoot, folder, entry.name, 'package.json');
      if (!entry.isDirectory() || !existsSync(file)) continue;
      const manifest = JSON.parse(readFileSync(file, 'utf8'));
      if (manifest.private === true) continue;
      found.push({ name: manifest.name, dir: path.dirname(file), manifest });
    }
  }
  const byName = new Map(found.map((pkg) => [pkg.name, pkg]));
  const ordered = [];
  const visit = (pkg) => {
    if (ordered.includes(pkg)) return;
    for (const dependency of Object.keys(pkg.manifest.dependencies ?? {})) {
      const inner = byName.get(dependency);
      if (inner !== undefined) visit(inner);
    }
    ordered.push(pkg);
  };
  [...found].sort((a, b) => a.name.localeCompare(b.name)).forEach(visit);
  return ordered;
}

/** The package.json inside a tarball npm would install (a gzipped tar, 512-byte blocks). */
function readPackedManifest(tarball) {
  const archive = gunzipSync(readFileSync(tarball));
  for (let offset = 0; offset + 512 <= archive.length;) {
    const header = archive.subarray(offset, offset + 512);
    const name = header.toString('utf8', 0, 100).replace(/\0.*$/s, '');
    if (name === '') break;
    const size = Number.parseInt(header.toString('utf8', 124, 136).replace(/\0.*$/s, ''), 8);
    if (name === 'package/package.json') {
      return JSON.parse(archive.toString('utf8', offset + 512, offset + 512 + size));
    }
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  fail(`${tarball} has no package/package.json.`);
}

function quoteForShell(file) {
  if (/^[\w@%+=:,./\\-]+$/.test(file)) return file;
  return process.platform === 'win32' ? `"${file}"` : `'${file.replaceAll("'", "'\\''")}'`;
}

/** The @toolpack packages `name` needs, itself included, in install order. */
function closureOf(name, packages) {
  const byName = new Map(packages.map((pkg) => [pkg.name, pkg]));
  const needed = new Set();
  const visit = (current) => {
    const pkg = byName.get(current);
    if (pkg === undefined || needed.has(current)) return;
    needed.add(current);
    Object.keys(pkg.manifest.dependencies ?? {}).forEach(visit);
  };
  visit(name);
  return packages.filter((pkg) => needed.has(pkg.name));
}

const { values: flags } = parseArgs({
  options: {
    out: { type: 'string', default: path.join(repoRoot, 'dist-tarballs') },
    'no-build': { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (flags.help) {
  process.stdout.write(
    'Usage: pnpm pack-tarballs [--out <dir>] [--no-build] [--json]\n' +
      'Builds and packs every public @toolpack package into dist-tarballs/ (or --out),\n' +
      'then prints the npm commands that install them.\n',
  );
  process.exit(0);
}

const outDir = path.resolve(flags.out);
const packages = listPublicPackages();
if (!flags['no-build']) {
  run(
    'pnpm',
    ['exec', 'turbo', 'run', 'build', ...packages.map((pkg) => `--filter=${pkg.name}`)],
    repoRoot,
  );
}
mkdirSync(outDir, { recursive: true });
// Only what an earlier run wrote goes: --out may name a folder that holds other files.
for (const file of readdirSync(outDir)) {
  if (/^toolpack-.*\.tgz$/.test(file)) rmSync(path.join(outDir, file));
}

const tarballs = packages.map((pkg) => {
  const output = run('pnpm', ['pack', '--json', '--pack-destination', outDir], pkg.dir);
  const report = JSON.parse(output.slice(output.indexOf('{')));
  const file = path.resolve(outDir, report.filename);
  const manifest = readPackedManifest(file);
  const local = Object.entries({ ...manifest.dependencies, ...manifest.peerDependencies }).filter(
    ([, range]) => LOCAL_RANGE.test(range),
  );
  if (local.length > 0) {
    fail(
      `${path.basename(file)} still depends on ${local.map(([name, range]) => `${name}@${range}`).join(', ')}; ` +
        'npm cannot install that. Pack with pnpm (it resolves workspace ranges), not npm.',
    );
  }
  const files = report.files.map((entry) => entry.path).sort();
  return { name: pkg.name, version: manifest.version, file, files };
});

const cliTarballs = closureOf('@toolpack/cli', packages).map(
  (pkg) => tarballs.find((tarball) => tarball.name === pkg.name).file,
);
const installLine = `npm install ${tarballs.map((tarball) => quoteForShell(tarball.file)).join(' ')}`;
const installCliLine = `npm install -g ${cliTarballs.map(quoteForShell).join(' ')}`;
// npm looks every @toolpack name up in the registry once even when a tarball given with it
// meets the range; mapping each name to its own dependency spec stops that (a mirror that
// refuses unknown names instead of answering 404 would otherwise stall the install).
const overrides = Object.fromEntries(tarballs.map((tarball) => [tarball.name, `$${tarball.name}`]));

if (flags.json) {
  const result = { outDir, tarballs, cliTarballs, installLine, installCliLine, overrides };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} else {
  process.stdout.write(
    `Packed ${tarballs.length} packages into ${outDir}:\n` +
      tarballs.map((tarball) => `  ${path.basename(tarball.file)}`).join('\n') +
      `\n\nUse them in a project (npm keeps them as file: dependencies):\n  ${installLine}\n` +
      `\nInstall the \`mcp\` command for your user:\n  ${installCliLine}\n`,
  );
}
