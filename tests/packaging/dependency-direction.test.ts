// The dependency direction of docs/architecture.md, enforced: core <- containment <- runners
// <- discovery <- server, core <- packs, the CLI and the registry on top. A package declares
// and imports only packages below it, and reaches another package through its exports,
// never through its files (a relative path or `@toolpack/<name>/src/...`), so each one still
// works when it is installed alone from its tarball.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { WORKSPACE_PACKAGES, readJson, repoRoot } from './workspace-packages.ts';

const LOWER_LAYERS = ['@toolpack/core', '@toolpack/containment', '@toolpack/runners'];

/** What each workspace package may depend on; anything else is a dependency the wrong way. */
const MAY_DEPEND_ON: Record<string, readonly string[]> = {
  '@toolpack/core': [],
  '@toolpack/containment': ['@toolpack/core'],
  '@toolpack/runners': ['@toolpack/core', '@toolpack/containment'],
  '@toolpack/discovery': LOWER_LAYERS,
  '@toolpack/server': [...LOWER_LAYERS, '@toolpack/discovery'],
  '@toolpack/packs': ['@toolpack/core'],
  '@toolpack/cli': [...LOWER_LAYERS, '@toolpack/discovery', '@toolpack/server', '@toolpack/packs'],
  '@toolpack/registry': [
    ...LOWER_LAYERS,
    '@toolpack/discovery',
    '@toolpack/server',
    '@toolpack/packs',
  ],
};

const workspaceNames = new Set(WORKSPACE_PACKAGES.map((pkg) => pkg.name));

interface Manifest {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

function declaredWorkspaceDependencies(dir: string): string[] {
  const manifest = readJson<Manifest>(path.join(repoRoot, dir, 'package.json'));
  const names = Object.keys({
    ...manifest.dependencies,
    ...manifest.devDependencies,
    ...manifest.peerDependencies,
  });
  return names.filter((name) => workspaceNames.has(name)).sort();
}

function listSourceFiles(dir: string): string[] {
  const root = path.join(repoRoot, dir, 'src');
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(?:[cm]?ts|[cm]?js)$/u.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .filter((file) => !file.split(path.sep).includes('node_modules'));
}

// Static and dynamic imports, re-exports and require(): enough to see every specifier a
// source file names, without a parser.
const SPECIFIER =
  /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)(['"])([^'"\n]+)\1/gu;

function listSpecifiers(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(SPECIFIER)].map((match) => match[2] ?? '');
}

/** Which workspace package folder holds `file`, if any. */
function owningDir(file: string): string | undefined {
  const relative = path.relative(repoRoot, file).split(path.sep).join('/');
  return WORKSPACE_PACKAGES.find((pkg) => relative.startsWith(`${pkg.dir}/`))?.dir;
}

/** Why `specifier`, written in `file` of package `pkg`, breaks the direction; undefined if it does not. */
function explainViolation(
  pkg: (typeof WORKSPACE_PACKAGES)[number],
  file: string,
  specifier: string,
): string | undefined {
  const at = `${path.relative(repoRoot, file)} imports '${specifier}'`;
  if (specifier.startsWith('.')) {
    const target = owningDir(path.resolve(path.dirname(file), specifier));
    if (target !== undefined && target !== pkg.dir) {
      return `${at}: another package's files, not its exports`;
    }
    return undefined;
  }
  const match = /^(@toolpack\/[^/]+)(\/.*)?$/u.exec(specifier);
  const name = match?.[1];
  if (name === undefined || !workspaceNames.has(name) || name === pkg.name) return undefined;
  if (match?.[2]?.startsWith('/src/')) return `${at}: another package's src/, not its exports`;
  if (!(MAY_DEPEND_ON[pkg.name] ?? []).includes(name)) {
    return `${at}: ${pkg.name} may not depend on ${name}`;
  }
  if (!declaredWorkspaceDependencies(pkg.dir).includes(name)) {
    return `${at}: ${name} is not in ${pkg.dir}/package.json`;
  }
  return undefined;
}

describe('dependency direction', () => {
  it('places every workspace package in the direction', () => {
    expect(Object.keys(MAY_DEPEND_ON).sort()).toEqual([...workspaceNames].sort());
  });

  for (const pkg of WORKSPACE_PACKAGES) {
    it(`${pkg.name} declares only packages below it`, () => {
      const wrongWay = declaredWorkspaceDependencies(pkg.dir).filter(
        (name) => !(MAY_DEPEND_ON[pkg.name] ?? []).includes(name),
      );
      expect(wrongWay).toEqual([]);
    });

    it(`${pkg.name} imports only packages below it, through their exports`, () => {
      const violations = listSourceFiles(pkg.dir).flatMap((file) =>
        listSpecifiers(file).flatMap((specifier) => explainViolation(pkg, file, specifier) ?? []),
      );
      expect(violations).toEqual([]);
    });
  }
});
