// What `pnpm install` leaves for a newcomer to decide. pnpm 12 lists the dependencies whose
// build scripts or agent skills await approval after every install ("Agent skills awaiting
// approval: ... Run pnpm approve"), an open question a first install should not ask:
// pnpm-workspace.yaml decides each one. `pnpm permissions list` reads the same record the
// install's note comes from (node_modules/.modules.yaml), so nothing awaiting there means the
// note is not printed.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

it('leaves no dependency awaiting approval after the install', () => {
  const run = spawnSync('pnpm', ['permissions', 'list'], { cwd: root, encoding: 'utf8' });
  expect(run.error).toBeUndefined();
  expect(run.status).toBe(0);
  // The listing itself is there: the decisions pnpm-workspace.yaml records.
  expect(run.stdout).toMatch(/Denied:[\s\S]*@modelcontextprotocol\/inspector +build, skills/);
  expect(run.stdout).not.toMatch(/awaiting approval/i);
});
