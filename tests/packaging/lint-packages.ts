// `pnpm lint:packages`: builds what is stale, packs every package as it would be published
// and runs publint (strict) and are-the-types-wrong on each tarball. Exit 1 on any problem.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ATTW_PROFILE, lintTarball } from './lint-tarball.ts';
import { WORKSPACE_PACKAGES, ensureBuilt, packPackage } from './workspace-packages.ts';

const build = ensureBuilt(WORKSPACE_PACKAGES);
if (build.rebuilt.length > 0) {
  console.error(`built ${build.rebuilt.map((pkg) => pkg.name).join(', ')}`);
}

const destination = mkdtempSync(path.join(os.tmpdir(), 'toolpack-lint-packages-'));
let failed = 0;
try {
  for (const pkg of WORKSPACE_PACKAGES) {
    const buildFailure = build.failed.get(pkg.name);
    if (buildFailure !== undefined) {
      console.log(`FAIL ${pkg.name.padEnd(20)} not built`);
      console.log(buildFailure.replace(/^/gm, '       '));
      failed += 1;
      continue;
    }
    const packed = packPackage(pkg, destination);
    const report = await lintTarball(packed.tarball);
    const problems = [
      ...report.publint.map((line) => `publint: ${line}`),
      ...report.attw.map((line) => `attw: ${line}`),
    ];
    const summary = `publint --strict ${report.publint.length}, attw --profile ${ATTW_PROFILE} ${report.attw.length}`;
    console.log(
      `${problems.length === 0 ? 'ok  ' : 'FAIL'} ${pkg.name.padEnd(20)} ${String(packed.files.length).padStart(3)} files  ${summary}`,
    );
    for (const problem of problems) console.log(`       ${problem}`);
    if (problems.length > 0) failed += 1;
  }
} finally {
  rmSync(destination, { recursive: true, force: true });
}
if (failed > 0) {
  console.error(`${failed} package(s) would be published with problems`);
  process.exitCode = 1;
}
