// Issue 33 items 2, 3 and 7, walked as a newcomer meets them: the `mcp` scripts/install-mcp.sh
// installs, run in a NEW bash (nothing sourced: the system PATH and the install's bin folder).
// A first tool that the next `mcp list` shows with no toolpack.yaml written by hand; the
// "No sources" lines, copied as printed, serving a folder; an existing toolpack.yaml keeping
// its comments; `.toolpack/` out of git; and every npm name printed either working offline
// (examples/embed's install lines) or carrying the "not on npm yet" warning.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const cliVersion = (
  JSON.parse(readFileSync(path.join(root, 'packages/cli/package.json'), 'utf8')) as {
    version: string;
  }
).version;
const posix = process.platform !== 'win32';
const hasGit = spawnSync('git', ['--version']).status === 0;
const NOT_ON_NPM = `@toolpack/cli is not on the npm registry yet: \`npx -y @toolpack/cli@${cliVersion}\` fails (404) until it is published.`;

let work = '';
let prefix = '';
let home = '';
let installed: SpawnSyncReturns<string>;

/** `command` in a new bash that has only what a fresh login would, in `cwd`. */
function inNewShell(
  cwd: string,
  command: string,
  extraPath: string[] = [],
  env: Record<string, string> = {},
): SpawnSyncReturns<string> {
  const PATH = [path.join(prefix, 'bin'), ...extraPath, '/usr/bin', '/bin'].join(':');
  return spawnSync(
    'env',
    [
      '-i',
      `HOME=${home}`,
      `PATH=${PATH}`,
      ...Object.entries(env).map(([key, value]) => `${key}=${value}`),
      'bash',
      '--norc',
      '--noprofile',
      '-c',
      command,
    ],
    { cwd, encoding: 'utf8', timeout: 120_000 },
  );
}

function makeProject(name: string): string {
  const dir = path.join(home, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

beforeAll(() => {
  if (!posix) return;
  work = mkdtempSync(path.join(os.tmpdir(), 'toolpack-first-tool-'));
  home = path.join(work, 'home');
  prefix = path.join(work, 'prefix');
  mkdirSync(home);
  const { NODE_OPTIONS: _ignored, ...env } = process.env;
  installed = spawnSync('bash', [path.join(root, 'scripts/install-mcp.sh'), '--prefix', prefix], {
    cwd: work,
    encoding: 'utf8',
    env: { ...env, PATH: '/usr/local/bin:/usr/bin:/bin' },
    timeout: 280_000,
  });
}, 300_000);

afterAll(() => {
  if (work !== '') rmSync(work, { recursive: true, force: true });
});

describe.skipIf(!posix)(
  'a first tool, as installed by scripts/install-mcp.sh [needs a POSIX shell]',
  () => {
    it('installs', () => {
      expect(installed.status, installed.stderr).toBe(0);
    });

    it('the "No sources" note prints lines that, written as printed, serve the folder', () => {
      const project = makeProject('scripts-by-hand');
      writeFileSync(
        path.join(project, 'greet.sh'),
        '#!/usr/bin/env bash\n# DESCRIPTION "Greets someone."\n# PARAM name AS string DESCRIPTION "Who to greet."\necho "{}"\n',
      );
      const bare = inNewShell(project, 'mcp list');
      expect(bare.status, bare.stderr).toBe(0);
      expect(bare.stdout).not.toMatch(/\bgreet\b/);
      const lines = /with these lines:\n((?: {2}.*\n)+)/.exec(bare.stderr)?.[1];
      expect(lines, bare.stderr).toBe('  sources:\n    - scripts: .\n');
      writeFileSync(path.join(project, 'toolpack.yaml'), (lines ?? '').replace(/^ {2}/gm, ''));
      const listed = inNewShell(project, 'mcp list');
      expect(listed.status, listed.stderr).toBe(0);
      expect(listed.stdout).toMatch(/^greet\s+script\s+greet\.sh/m);
    });

    it.skipIf(!hasGit)(
      'mcp new tool adds to the toolpack.yaml there, comments kept, and .toolpack/ stays out of git [needs git]',
      () => {
        const project = makeProject('existing-project');
        const manifest =
          '# Our tools: keep this comment.\nsources:\n  - scripts: scripts   # shell scripts\n\nmaxTools: 40\n';
        writeFileSync(path.join(project, 'toolpack.yaml'), manifest);
        mkdirSync(path.join(project, 'scripts'));
        writeFileSync(
          path.join(project, 'scripts', 'greet.sh'),
          '#!/usr/bin/env bash\n# DESCRIPTION "Greets someone."\n# PARAM name AS string DESCRIPTION "Who to greet."\necho "{}"\n',
        );
        expect(inNewShell(project, 'git init -q').status).toBe(0);
        // Without the ignore line, the cache the first list writes is there for git to add.
        expect(inNewShell(project, 'mcp list').status).toBe(0);
        expect(inNewShell(project, 'git status --porcelain').stdout).toMatch(
          /^\?\? \.toolpack\/$/m,
        );

        const created = inNewShell(
          project,
          'mcp new tool count-lines --kind folder --lang sh --dir tools --description "Counts the lines of a text."',
        );
        expect(created.status, created.stderr).toBe(0);
        expect(created.stdout).toContain(
          'Added "- tools: tools" to sources: in toolpack.yaml, so mcp list serves it.',
        );
        expect(created.stdout).toContain('Created .gitignore with .toolpack/');
        expect(readFileSync(path.join(project, 'toolpack.yaml'), 'utf8')).toBe(
          manifest.replace('# shell scripts\n', '# shell scripts\n  - tools: tools\n'),
        );

        // A second tool where a source serves it already: said, and the file is left alone.
        const second = inNewShell(
          project,
          'mcp new tool count-words --kind script --lang sh --dir scripts',
        );
        expect(second.status, second.stderr).toBe(0);
        expect(second.stdout).toContain(
          'toolpack.yaml serves it already: sources: - scripts: scripts.',
        );
        expect(second.stdout).not.toContain('.gitignore');
        expect(readFileSync(path.join(project, 'toolpack.yaml'), 'utf8')).toBe(
          manifest.replace('# shell scripts\n', '# shell scripts\n  - tools: tools\n'),
        );

        const listed = inNewShell(project, 'mcp list');
        expect(listed.status, listed.stderr).toBe(0);
        expect(listed.stdout).toMatch(/^count_lines\s/m);
        expect(listed.stdout).toMatch(/^count_words\s/m);

        const status = inNewShell(project, 'git status --porcelain --ignored');
        expect(status.stdout).toMatch(/^!! \.toolpack\/$/m);
        expect(status.stdout).not.toMatch(/^[^!].*\.toolpack/m);
      },
    );

    it('mcp config --npx and mcp pack server-json print the npm name with the warning, the plain entry starts the install', () => {
      const project = makeProject('configured');
      const npx = inNewShell(project, 'mcp config claude --npx');
      expect(npx.status, npx.stderr).toBe(0);
      expect(npx.stdout).toContain(`"@toolpack/cli@${cliVersion}"`);
      expect(npx.stderr).toContain(`warning ${NOT_ON_NPM}`);
      expect(npx.stderr).toContain('scripts/install-mcp.sh');

      const plain = inNewShell(project, 'mcp config claude');
      expect(plain.stderr).not.toContain('warning');
      const { command, args } = Object.values(
        (
          JSON.parse(plain.stdout) as {
            mcpServers: Record<string, { command: string; args: string[] }>;
          }
        ).mcpServers,
      )[0] ?? { command: '', args: [] };
      // The entry the warning points to starts the installed mcp, with no npm involved.
      const started = spawnSync(command, [...args.slice(0, -1), '--version'], {
        encoding: 'utf8',
        env: { HOME: home, PATH: '/usr/bin:/bin' },
      });
      expect([started.status, started.stdout]).toEqual([0, `${cliVersion}\n`]);

      cpSync(path.join(root, 'registry/packs/json'), path.join(project, 'packs/json'), {
        recursive: true,
      });
      const document = inNewShell(project, 'mcp pack server-json json --registry packs');
      expect(document.status, document.stderr).toBe(0);
      expect(JSON.parse(document.stdout)).toMatchObject({
        packages: [{ registryType: 'npm', identifier: '@toolpack/cli', version: cliVersion }],
      });
      const serve = /`mcp (serve --pack json@\S+ --registry \S+)` serves this pack version/.exec(
        document.stderr,
      )?.[1];
      expect(document.stderr).toContain(`warning ${NOT_ON_NPM}`);
      // The command the warning names, run by the installed mcp, serves the pack.
      const initialize =
        '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"newcomer","version":"1"}}}';
      const served = inNewShell(
        project,
        `printf '%s\\n' '${initialize}' '{"jsonrpc":"2.0","method":"notifications/initialized"}' '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' | mcp ${serve ?? 'missing'}`,
      );
      expect(served.stdout, served.stderr).toMatch(/"name":"json_format"/);
    });

    it("examples/embed's install lines work with npm offline: no package is looked up on the registry", () => {
      const readme = readFileSync(path.join(root, 'examples/embed/README.md'), 'utf8');
      const block = /^```sh\n(cd ~\/toolpack && pnpm pack-tarballs[^\n]*)\n([\s\S]*?)^```$/m.exec(
        readme,
      );
      expect(block, 'examples/embed/README.md has no pnpm pack-tarballs block').not.toBeNull();
      // No command line installs from the registry (the prose may say that one is a 404).
      expect(readme).not.toMatch(/^\s*npm (install|i) @toolpack\//m);
      // The block's first line packs the clone: install-mcp.sh ran exactly that (pack-tarballs)
      // and kept the tarballs, so ~/toolpack here is a clone whose dist-tarballs/ holds them.
      const clone = path.join(home, 'toolpack');
      cpSync(path.join(prefix, 'share/toolpack/tarballs'), path.join(clone, 'dist-tarballs'), {
        recursive: true,
      });
      cpSync(path.join(root, 'examples/embed'), path.join(clone, 'examples/embed'), {
        recursive: true,
        filter: (source) => !source.includes('node_modules'),
      });
      mkdirSync(path.join(home, 'my-project'));
      // The rest as written, with npm offline (its cache is this machine's, which the install
      // filled): npm must need nothing from the registry for the @toolpack packages.
      const cache = spawnSync('npm', ['config', 'get', 'cache'], {
        encoding: 'utf8',
      }).stdout.trim();
      const rest = (block?.[2] ?? '').replace(/\n\s*node serve\.mjs[^\n]*\n?$/, '\n');
      const ran = inNewShell(home, `set -e\n${rest}`, [path.dirname(process.execPath)], {
        npm_config_offline: 'true',
        npm_config_cache: cache,
        npm_config_audit: 'false',
        npm_config_fund: 'false',
      });
      expect(ran.status, ran.stderr).toBe(0);
      // What the README said before: offline (and online: a 404) npm cannot find it.
      mkdirSync(path.join(home, 'from-registry'));
      const fromRegistry = inNewShell(
        path.join(home, 'from-registry'),
        'npm install @toolpack/server',
        [path.dirname(process.execPath)],
        { npm_config_offline: 'true', npm_config_cache: cache },
      );
      expect(fromRegistry.status).not.toBe(0);
      const project = path.join(home, 'my-project');
      const initialize =
        '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"newcomer","version":"1"}}}';
      const served = inNewShell(
        project,
        `printf '%s\\n' '${initialize}' '{"jsonrpc":"2.0","method":"notifications/initialized"}' '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' | node serve.mjs`,
        [path.dirname(process.execPath)],
      );
      expect(served.status, served.stderr).toBe(0);
      expect(served.stdout).toMatch(/"name":"greet"/);
    });
  },
);
