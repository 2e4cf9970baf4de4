import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkPackFolder,
  describeSandbox,
  hasPwsh,
  PWSH_TEST_TAG,
  openPackSession,
  readStructured,
  type CheckedPack,
  type PackSession,
} from '../../../../apps/registry/src/testing/pack-test-kit.ts';

const packDir = path.resolve(import.meta.dirname, '..');
const temp = mkdtempSync(path.join(os.tmpdir(), 'toolpack-sysinfo-pack-'));
let checked: CheckedPack;
const sandbox = describeSandbox();

beforeAll(async () => {
  checked = await checkPackFolder(packDir, path.join(temp, 'unpacked'));
});
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const readOnly = { readOnlyHint: true, idempotentHint: true, openWorldHint: false };

describe('the sysinfo pack (discovery, no pwsh needed)', () => {
  it('publishes cleanly: four PowerShell tools read from comment-based help, no diagnostics', () => {
    expect(checked.manifest).toMatchObject({
      name: 'sysinfo',
      version: '1.1.1',
      tags: expect.arrayContaining(['MCPTools', 'powershell']),
    });
    // Only the expected info that Get-X scripts are served as Get_X.
    expect(checked.listing.diagnostics.filter((d) => d.severity !== 'info')).toEqual([]);
    expect(checked.listing.diagnostics.map((d) => d.code)).toEqual([
      'I_RENAMED',
      'I_RENAMED',
      'I_RENAMED',
      'I_RENAMED',
    ]);
    expect(checked.files).toEqual([
      'README.md',
      'scripts/Get-CpuInfo.ps1',
      'scripts/Get-DiskInfo.ps1',
      'scripts/Get-MemoryInfo.ps1',
      'scripts/Get-OsInfo.ps1',
      'toolpack.yaml',
    ]);
  });

  it('reads descriptions, hints and schemas from the help and param blocks', () => {
    const tools = Object.fromEntries(checked.listing.tools.map((tool) => [tool.name, tool]));
    expect(Object.keys(tools)).toEqual([
      'Get_CpuInfo',
      'Get_DiskInfo',
      'Get_MemoryInfo',
      'Get_OsInfo',
    ]);
    for (const tool of Object.values(tools)) expect(tool.annotations).toEqual(readOnly);
    expect(tools.Get_OsInfo?.description).toMatch(/^Describes the operating system/);
    expect(tools.Get_OsInfo?.inputSchema).toMatchObject({
      type: 'object',
      properties: {},
      additionalProperties: false,
    });
    expect(tools.Get_CpuInfo?.inputSchema.properties).toEqual({
      SampleMilliseconds: {
        type: 'integer',
        description: 'How long to measure CPU usage, in milliseconds; 0 skips the measurement.',
        minimum: 0,
        maximum: 5000,
        default: 500,
      },
    });
    expect(tools.Get_MemoryInfo?.inputSchema.properties).toMatchObject({
      Unit: { type: 'string', enum: ['B', 'KB', 'MB', 'GB'], default: 'MB' },
    });
    expect(tools.Get_DiskInfo?.inputSchema.properties).toMatchObject({
      Unit: { type: 'string', enum: ['MB', 'GB', 'TB'], default: 'GB' },
      IncludeAll: {
        type: 'boolean',
        description: 'Also list pseudo, RAM-backed and zero-sized file systems.',
      },
    });
    for (const tool of Object.values(tools)) expect(tool.inputSchema.required ?? []).toEqual([]);
  });

  it('declares no files, network or environment; it starts programs (sysctl, vm_stat on macOS)', () => {
    expect(checked.manifest.permissions).toEqual({
      filesystem: { read: [], write: [] },
      network: { access: 'none', hosts: [] },
      env: [],
      subprocess: true,
    });
  });
});

describe.skipIf(!hasPwsh)('the sysinfo pack run by pwsh', () => {
  let session: PackSession;
  beforeAll(async () => {
    session = await openPackSession({ dir: packDir, projectRoot: temp });
  }, 60_000);
  afterAll(() => session?.close());

  it(`${PWSH_TEST_TAG} Get_OsInfo describes this machine`, async () => {
    const info = readStructured(await session.call('Get_OsInfo', {}, { timeoutMs: 60_000 }));
    expect(info).toMatchObject({
      platform: expect.stringMatching(/^(windows|linux|macos)$/),
      hostName: os.hostname(),
    });
    expect(Number(info.uptimeSeconds)).toBeGreaterThan(0);
    if (process.platform === 'linux') {
      // The distribution's PRETTY_NAME from /etc/os-release, when the machine has one.
      const release = existsSync('/etc/os-release') ? readFileSync('/etc/os-release', 'utf8') : '';
      const pretty = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(release)?.[1];
      if (pretty !== undefined) expect(info.name).toBe(pretty);
    }
  });

  it(`${PWSH_TEST_TAG} Get_CpuInfo counts the logical processors`, async () => {
    const info = readStructured(
      await session.call('Get_CpuInfo', { SampleMilliseconds: 100 }, { timeoutMs: 60_000 }),
    );
    expect(info.logicalProcessors).toBe(os.availableParallelism());
    if (process.platform === 'linux') {
      // Read from /proc: the model (not the "processor : 0" index line), the load averages,
      // and the usage sampled over the 100 ms asked for.
      const model = /^model name\s*:\s*(.*)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1];
      if (model !== undefined) expect(info.model).toBe(model.trim());
      expect(info.loadAverage).toEqual(os.loadavg().map(() => expect.any(Number)));
      expect(Number(info.usagePercent)).toBeGreaterThanOrEqual(0);
      expect(Number(info.usagePercent)).toBeLessThanOrEqual(100);
    }
  });

  it(`${PWSH_TEST_TAG} Get_MemoryInfo reports total memory in the unit asked for`, async () => {
    const info = readStructured(
      await session.call('Get_MemoryInfo', { Unit: 'MB' }, { timeoutMs: 60_000 }),
    );
    expect(info.unit).toBe('MB');
    expect(Math.abs(Number(info.total) - os.totalmem() / 1024 / 1024)).toBeLessThan(
      os.totalmem() / 1024 / 1024 / 10,
    );
    expect(Number(info.available)).toBeGreaterThan(0);
    expect(Number(info.available)).toBeLessThanOrEqual(Number(info.total));
  });

  it(`${PWSH_TEST_TAG} Get_DiskInfo lists at least one volume`, async () => {
    const info = readStructured<{ unit: string; disks: { mount: string; total: number }[] }>(
      await session.call('Get_DiskInfo', { Unit: 'GB', IncludeAll: true }, { timeoutMs: 60_000 }),
    );
    expect(info.unit).toBe('GB');
    expect(info.disks.length).toBeGreaterThan(0);
  });
});

describe.skipIf(!hasPwsh || !sandbox.available)(
  `the sysinfo pack confined to what it declares, in its own PowerShell host [the OS sandbox: ${sandbox.reason}]`,
  () => {
    let confined: PackSession;
    beforeAll(async () => {
      confined = await openPackSession({ dir: packDir, projectRoot: temp, confine: {} });
    }, 60_000);
    afterAll(() => confined?.close());

    // What it reads (/proc, /etc/os-release) is the system's, which the sandbox shows read-only.
    it(`${PWSH_TEST_TAG} reads the system as it does unconfined`, async () => {
      const call = async (tool: string, args: Record<string, unknown>) =>
        readStructured(await confined.call(tool, args, { timeoutMs: 60_000 }));
      const system = await call('Get_OsInfo', {});
      // The sandbox is Linux's (bubblewrap): nowhere else does this run.
      expect(system.platform).toBe('linux');
      if (existsSync('/etc/os-release')) {
        const pretty = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(
          readFileSync('/etc/os-release', 'utf8'),
        )?.[1];
        if (pretty !== undefined) expect(system.name).toBe(pretty);
      }
      expect((await call('Get_CpuInfo', { SampleMilliseconds: 0 })).logicalProcessors).toBe(
        os.availableParallelism(),
      );
      expect(Number((await call('Get_MemoryInfo', { Unit: 'MB' })).total)).toBeGreaterThan(0);
      // The volumes it sees are the sandbox's: its private HOME, not the project it may not read.
      const disks = (await call('Get_DiskInfo', { IncludeAll: true })).disks as { mount: string }[];
      const mounts = disks.map((disk) => disk.mount);
      expect(mounts).toContain('/home/toolpack');
      expect(mounts).not.toContain(temp);
    });
  },
);
