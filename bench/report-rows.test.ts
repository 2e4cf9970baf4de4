import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildResultRows, type BenchOutputs } from './report-rows.ts';
import { fuzzRuns, fuzzTimeout } from '@toolpack/fuzz-runs';

const fixtures = path.join(import.meta.dirname, 'fixtures', 'report');
const load = (name: string): unknown =>
  JSON.parse(readFileSync(path.join(fixtures, `${name}.json`), 'utf8')) as unknown;

function fullOutputs(): BenchOutputs {
  return {
    'discovery-list': load('discovery-list'),
    runners: load('runners'),
    server: load('server'),
    reload: load('reload'),
    'pack-add': load('pack-add'),
    registry: load('registry'),
    'registry-replicas': load('registry-replicas'),
    peers: load('peers'),
    sandbox: load('sandbox'),
    'search-quality': load('search-quality'),
  };
}

describe('buildResultRows', { timeout: fuzzTimeout() }, () => {
  it('gives every benchmark its rows with ratios against the floor measured in the same run', () => {
    const rows = buildResultRows({ outputs: fullOutputs() });
    const call = rows.find((r) => r.scenario.startsWith('mcp serve: tools/call overhead'));
    expect(call?.ratio).toBeCloseTo(0.525772 / 0.220017, 5);
    expect(call?.target).toBe('<= 1.2x');
    expect(call?.met).toBe(false);
    const bash = rows.find((r) => r.scenario.startsWith('bash script tool'));
    expect(bash?.met).toBe(true);
    expect(bash?.target).toBe('within 2x of the floor');
    expect(bash?.ratio).toBeCloseTo(6.489785 / 5.488244, 5);
    const search = rows.find((r) => r.bench === 'registry' && r.target === '< 10 ms');
    expect(search?.met).toBe(true);
    const peers = rows.filter((r) => r.bench === 'peers');
    expect(peers.map((r) => r.reference)).toEqual(
      expect.arrayContaining([
        expect.stringContaining('FastMCP'),
        expect.stringContaining('mcp-framework'),
        expect.stringContaining('bare SDK server'),
      ]),
    );
  });

  it('tells a missed JS call target against the floor with the hop to a child, from the same run', () => {
    const peers = load('peers') as { servers: Record<string, unknown>[] };
    const bare = peers.servers.find((s) => s.id === 'bareSdk')!;
    const hop = {
      ...bare,
      id: 'bareSdkHop',
      label: 'bare SDK server, tool in a child process',
      callMs: { p50: 0.5, p99: 3, samples: 60 },
    };
    const rows = buildResultRows({
      outputs: { ...fullOutputs(), peers: { ...peers, servers: [...peers.servers, hop] } },
      loadAverages: { peers: [1.5, 1, 1] },
    }).filter((r) => r.bench === 'peers');
    const floor = rows.find((r) => r.target === '<= 1.5x');
    expect(floor).toMatchObject({ met: false, explained: true });
    // 0.687 ms ours, 0.277 ms bare, 0.5 ms with the hop (the fixture's figures and the one above).
    expect(floor?.note).toContain('took 0.500 ms p50 in the same run, 1.81x the bare SDK server');
    expect(floor?.note).toContain('1.37x (+0.187 ms per call)');
    expect(floor?.note).toContain('load average 1.50');
    expect(rows.find((r) => r.reference?.startsWith('mcp-framework'))?.target).toBe(
      '<= 1x (no slower)',
    );
    const hopRows = rows.filter((r) => r.reference?.includes('tool in a child process'));
    expect(hopRows.map((r) => [r.target, r.met])).toEqual([['reported', null]]);
  });

  it('puts PostgreSQL search beside SQLite on one catalogue, and replicas beside one', () => {
    const rows = buildResultRows({
      outputs: {
        ...fullOutputs(),
        registry: load('registry-stores'),
      },
    });
    const postgres = rows.find((r) =>
      r.scenario.includes('search over HTTP (loopback) on PostgreSQL'),
    );
    expect(postgres).toMatchObject({ oursValue: 13.41, referenceValue: 28.75, target: '< 20 ms' });
    expect(postgres?.met).toBe(true);
    expect(postgres?.ratio).toBeCloseTo(13.41 / 28.75, 5);
    expect(postgres?.scenario).toContain('100400 packs');
    const listing = rows.filter((r) => r.scenario.includes('/v0.1/servers page deep'));
    expect(listing.map((r) => r.target)).toEqual(['<= 2x the first page', '<= 2x the first page']);
    expect(listing[0]?.ratio).toBeCloseTo(2.75 / 2.54, 5);
    expect(listing.every((r) => r.met === true)).toBe(true);
    const sqlite = rows.find((r) => r.scenario.includes('on SQLite (embedded), p95'));
    expect(sqlite?.note).toContain('10 000 packs');
    const replicas = rows.filter((r) => r.bench === 'registry-replicas');
    expect(replicas).toHaveLength(3);
    expect(replicas[0]?.ratio).toBeCloseTo(148.85 / 146.78, 5);
    expect(replicas[1]?.ratio).toBeCloseTo(1461.43 / 1602.79, 5);
    for (const row of replicas) expect(row.note).toMatch(/Ratio is/);
  });

  it('explains every missed target and every row it could not measure', () => {
    const rows = buildResultRows({
      outputs: fullOutputs(),
      loadAverages: { server: [5.5, 4, 3] },
    });
    for (const row of rows.filter((r) => r.met === false || r.ours === 'not measured'))
      expect(row.note, row.scenario).toMatch(/.{30,}/);
    expect(rows.filter((r) => r.met === false).every((r) => r.explained === true)).toBe(true);
    const list = rows.find((r) => r.scenario.startsWith('mcp serve: tools/list'));
    expect(list?.met).toBe(false);
    expect(list?.note).toContain('5.50');
    const rss = rows.find((r) => r.scenario.startsWith('mcp serve: resident memory'));
    expect(rss?.note).toContain('child processes');
  });

  it('reports the PowerShell rows as not measurable without pwsh, and measured with it', () => {
    const without = buildResultRows({ outputs: fullOutputs() }).filter((r) =>
      r.scenario.includes('PowerShell script tool'),
    );
    expect(without).toHaveLength(1);
    expect(without[0]?.ours).toBe('not measured');
    expect(without[0]?.note).toContain('pwsh is not installed');

    const withPwsh = buildResultRows({
      outputs: { ...fullOutputs(), runners: load('runners-with-pwsh') },
    });
    const warm = withPwsh.find((r) => r.scenario.startsWith('PowerShell script tool'));
    expect(warm?.met).toBe(true);
    expect(warm?.ratio).toBeCloseTo(4.2 / 310.5, 5);
    expect(warm?.target).toBe('p50 < 10 ms and >= 30x faster than pwsh -File');
    const parallel = withPwsh.find((r) => r.scenario.startsWith('8 parallel'));
    expect(parallel?.met).toBe(false);
    expect(parallel?.note).not.toBeNull();
    expect(withPwsh.some((r) => r.ours === 'not measured')).toBe(false);
  });

  it('says which pwsh the PowerShell rows ran on and explains a parallel miss with the same-run floor', () => {
    const runners = {
      ...(load('runners-with-pwsh') as Record<string, unknown>),
      pwsh: { kind: 'engine', version: '7.6.9', description: 'the PowerShell engine 7.6.9' },
      pwshFirstCall: { p50: 450, samples: [450] },
      pwshPipelineFloor: { one: 0.3, eight: 0.9, ratio: 3 },
      pwshWaitingParallel: { toolMs: 100, oneP50: 104, eightP50: 111, ratio: 1.07 },
    };
    const rows = buildResultRows({ outputs: { runners } });
    const script = rows.find((r) => r.scenario.startsWith('PowerShell script tool'));
    expect(script?.note).toContain('Measured on the PowerShell engine 7.6.9');
    expect(script?.note).toContain('Spawn to first answered call');
    const parallel = rows.find((r) => r.scenario.startsWith('8 parallel'));
    expect(parallel?.explained).toBe(true);
    expect(parallel?.note).toContain('3.00x');
    expect(parallel?.note).toContain('(1.07x)');
    expect(rows.find((r) => r.scenario.startsWith('bash'))?.note ?? '').not.toContain(
      'Measured on',
    );
  });

  it('holds the memory target to the figure at rest and reports the one right after the calls', () => {
    const server = {
      ...(load('server') as Record<string, unknown>),
      residentMb: 190,
      bareSdkResidentMb: 250,
      residentAtRestMb: 140,
      bareSdkResidentAtRestMb: 248,
      restMs: 8_000,
    };
    const memory = buildResultRows({ outputs: { server } }).filter((r) =>
      r.scenario.includes('resident memory'),
    );
    expect(memory.map((r) => [r.ours, r.target, r.met])).toEqual([
      ['140.0 MB', '< 150 MB', true],
      ['190.0 MB', 'reported', null],
    ]);
    expect(memory[0]?.scenario).toContain('8 s after the last call');
  });

  it('holds hot reload to p95 < 1 s and compares it with fs.watch plus the debounce', () => {
    const reload = load('reload') as {
      floorMs: { p50: number };
      notifiedMs: { p50: number };
      listedMs: { p95: number };
    };
    const rows = buildResultRows({ outputs: { reload } }).filter((r) => r.bench === 'reload');
    expect(rows).toHaveLength(2);
    expect(rows[0]?.ratio).toBeCloseTo(reload.notifiedMs.p50 / reload.floorMs.p50, 5);
    expect(rows[0]?.reference).toContain('150 ms debounce');
    expect(rows[1]).toMatchObject({ target: 'p95 < 1000 ms', met: reload.listedMs.p95 < 1000 });
    const slow = buildResultRows({
      outputs: { reload: { ...reload, listedMs: { p50: 900, p95: 1400 } } },
      loadAverages: { reload: [6, 5, 4] },
    }).find((r) => r.bench === 'reload' && r.target !== 'reported');
    expect(slow).toMatchObject({ met: false, explained: true });
    expect(slow?.note).toContain('6.00');
  });

  it('holds find_tools to recall@5 >= 90% per corpus beside the naive floor, and times it over 10,000 tools', () => {
    const rows = buildResultRows({ outputs: { 'search-quality': load('search-quality') } }).filter(
      (r) => r.bench === 'search-quality',
    );
    expect(rows).toHaveLength(4);
    for (const quality of rows.slice(0, 3)) {
      expect(quality).toMatchObject({ target: '>= 90.0%', met: true, ratio: null });
      expect(quality.reference).toMatch(/^naive substring matcher \d/);
    }
    expect(rows[2]?.scenario).toContain('held out');
    expect(rows[3]?.scenario).toContain('10000 generated tools');
    expect(rows[3]?.ratio).toBeLessThan(1);
  });

  it("puts each module's listing beside pwsh's own import and the build before issue 29, with the issue's targets", () => {
    const rows = buildResultRows({
      outputs: { 'powershell-modules': load('powershell-modules') },
    }).filter((r) => r.bench === 'powershell-modules');
    // Per module: uncached vs pwsh, cached and after an edit vs uncached, and both against the
    // baseline build.
    expect(rows).toHaveLength(15);
    const [largest, largestCached, largestEdited, largestVsBefore, largestCachedVsBefore] = rows;
    expect(largest?.scenario).toMatch(/717 exported functions in 868 files.*--no-cache.*717 tools/);
    expect(largest?.reference).toMatch(/^pwsh's own Import-Module \+ Get-Command/);
    expect(largest?.ratio).toBeCloseTo(778.511745 / 1143.482181, 5);
    expect(largestCached?.met).toBeNull();
    expect(largestEdited?.scenario).toMatch(/after one file of the module changed/);
    expect(largestEdited?.ratio).toBeCloseTo(354.549797 / 778.511745, 5);
    expect(largestVsBefore?.scenario).toMatch(
      /--no-cache, against the build before issue 29 \(which listed 349 tools\)/,
    );
    expect(largestVsBefore?.target).toBe('<= 2x the build before issue 29');
    expect(largestVsBefore?.ratio).toBeCloseTo(778.511745 / 935.85984, 5);
    expect(largestVsBefore?.met).toBe(true);
    expect(largestCachedVsBefore?.target).toBe('<= 1x the build before issue 29');
    expect(largestCachedVsBefore?.met).toBe(true);
    const mediumCached = rows[6];
    expect(mediumCached?.target).toBe('<= 0.5x --no-cache');
    expect(mediumCached?.ratio).toBeCloseTo(109.530327 / 322.360042, 5);
    expect(mediumCached?.met).toBe(true);
    expect(rows.filter((r) => r.met !== null)).toHaveLength(3);

    const slow = structuredClone(load('powershell-modules')) as {
      rows: Array<{ cachedMs: number; uncachedMs: number }>;
    };
    slow.rows[1]!.cachedMs = 200;
    slow.rows[0]!.uncachedMs = 2000;
    const missed = buildResultRows({ outputs: { 'powershell-modules': slow } }).filter(
      (r) => r.bench === 'powershell-modules' && r.met === false,
    );
    expect(missed.map((r) => r.note)).toEqual([
      expect.stringMatching(/slower than issue 29 allows against the build before it/),
      expect.stringMatching(/more than half the uncached one/),
    ]);
  });

  it("holds PowerShell calls, bursts, first calls and memory to issue 34's floors of the peers' designs, naming the engine", () => {
    const rows = buildResultRows({
      outputs: { 'powershell-peers': load('powershell-peers') },
      loadAverages: { 'powershell-peers': [2.5, 2, 1] },
    }).filter((r) => r.bench === 'powershell-peers');
    expect(rows.map((r) => [r.ours, r.reference, r.target, r.met])).toEqual([
      [
        '4.50 ms',
        'one runspace per script, no reset (MCPServerPS design): 5.00 ms',
        '<= 1x the floor',
        true,
      ],
      [
        '3.00 ms',
        'one session that dot-sources every tool (dotbot design): 1.20 ms',
        '<= 2x the floor',
        false,
      ],
      [
        '30.0 ms',
        'one runspace per script, no reset (MCPServerPS design): 25.0 ms',
        '<= 1x the floor',
        false,
      ],
      [
        '900 ms',
        'one runspace per script, no reset (MCPServerPS design): 2000 ms',
        '<= 0.5x the floor',
        true,
      ],
      [
        '310.0 MB',
        'one runspace per script, no reset (MCPServerPS design): 280.0 MB',
        '<= 1x the floor',
        false,
      ],
      [
        '950 ms',
        'one session that dot-sources every tool (dotbot design): 800 ms',
        'reported',
        null,
      ],
      [
        '300.0 MB',
        'one session that dot-sources every tool (dotbot design): 150.0 MB',
        'reported',
        null,
      ],
    ]);
    expect(rows.every((r) => r.scenario.endsWith(', on PowerShell 7.6.9'))).toBe(true);
    expect(rows.every((r) => r.scenario.includes('50 '))).toBe(true);
    expect(rows[1]?.ratio).toBeCloseTo(3 / 1.2, 5);
    // A miss is open until someone explains it, and says what the floors leave out.
    expect(rows[1]).toMatchObject({ explained: false });
    expect(rows[1]?.note).toContain('2.50');
    expect(rows[1]?.note).toContain('no schema, argument check, policy or isolation');
    // Run alone, the benchmark's own load figure is quoted.
    const alone = buildResultRows({
      outputs: { 'powershell-peers': load('powershell-peers') },
    }).find((r) => r.bench === 'powershell-peers' && r.met === false);
    expect(alone?.note).toContain('load average 1.20');

    const without = buildResultRows({
      outputs: { 'powershell-peers': { cores: 2, hasPwsh: false } },
    }).filter((r) => r.bench === 'powershell-peers');
    expect(without.map((r) => r.ours)).toEqual(['not measured']);
    expect(without[0]?.note).toContain('pwsh is not installed');
  });

  it('explains a missed tool-folder target with the floor behind a Node relay, measured in the same run', () => {
    const output = load('powershell-peers') as { sizes: { contenders: Record<string, unknown> }[] };
    const withFront = structuredClone(output);
    const size = withFront.sizes[0]!;
    size.contenders.floorFoldersFront = {
      ...(size.contenders.floorFolders as Record<string, unknown>),
      label: 'the same floor behind a Node process that relays each JSON-RPC line',
      callMs: { p50: 1.5, p90: 1.8, p99: 2.5, samples: 200 },
    };
    const folderRow = (outputs: BenchOutputs) =>
      buildResultRows({ outputs }).find(
        (r) => r.bench === 'powershell-peers' && r.scenario.startsWith('dotbot tool-folder call'),
      );
    const explained = folderRow({ 'powershell-peers': withFront });
    expect(explained).toMatchObject({ met: false, explained: true });
    // ours 3.00 ms, the floor 1.20 ms, behind the relay 1.50 ms
    expect(explained?.note).toContain('took 1.50 ms p50 in the same run, 1.25x the floor');
    expect(explained?.note).toContain('adds 0.30 ms a call');
    expect(explained?.note).toContain('mcp serve is 2.00x (+1.50 ms a call');
    expect(explained?.note).not.toContain('CPU');
    // With each server's CPU per warm call, the note says where the time goes, by process.
    const withCpu = structuredClone(withFront);
    const contenders = withCpu.sizes[0]!.contenders as Record<string, Record<string, unknown>>;
    Object.assign(contenders.oursFolders!, { warmCpuMsPerCall: 1.1, warmOwnCpuMsPerCall: 0.3 });
    Object.assign(contenders.floorFoldersFront!, {
      warmCpuMsPerCall: 0.56,
      warmOwnCpuMsPerCall: 0.06,
    });
    const split = folderRow({ 'powershell-peers': withCpu });
    expect(split?.note).toContain(
      "mcp serve's Node process 0.30 ms and the PowerShell host under it 0.80 ms; the relay's Node process 0.06 ms and the floor under it 0.50 ms",
    );
    // ours' Node does 0.24 ms more than the relay: (1.50 + 0.24) / 1.20 of the floor
    expect(split?.note).toContain('does 0.24 ms more a call than the relay');
    expect(split?.note).toContain('comes to 1.45x the floor before any PowerShell work');
    // Without that floor in the output, the miss stays open.
    expect(folderRow({ 'powershell-peers': output })).toMatchObject({ explained: false });
  });

  it('reports the CPU each server tree used per call with a missed burst row, which stays open', () => {
    const output = load('powershell-peers') as { sizes: { contenders: Record<string, unknown> }[] };
    const withCpu = structuredClone(output);
    const size = withCpu.sizes[0]!;
    (size.contenders.oursScripts as Record<string, unknown>).burstCpuMsPerCall = 1.8;
    (size.contenders.floorScripts as Record<string, unknown>).burstCpuMsPerCall = 0.45;
    const burstRow = (outputs: BenchOutputs) =>
      buildResultRows({ outputs }).find(
        (r) => r.bench === 'powershell-peers' && r.scenario.startsWith('8 different'),
      );
    const missed = burstRow({ 'powershell-peers': withCpu });
    expect(missed).toMatchObject({ met: false, explained: false });
    expect(missed?.note).toMatch(/^Not explained yet:/);
    expect(missed?.note).toContain(
      "used 1.80 ms of CPU a call, the work after each answer included, and the floor's 0.45 ms (4.00x)",
    );
    // Without the figures the note says nothing of CPU.
    expect(burstRow({ 'powershell-peers': output })?.note).not.toContain('CPU');
  });

  it('names the engine in every PowerShell row of the other benchmarks', () => {
    const runners = {
      ...(load('runners-with-pwsh') as Record<string, unknown>),
      pwsh: { kind: 'engine', version: '7.6.9', description: 'the PowerShell engine 7.6.9' },
    };
    const rows = buildResultRows({
      outputs: {
        runners,
        sandbox: load('sandbox'),
        'powershell-modules': load('powershell-modules'),
      },
    });
    const powershell = rows.filter(
      (r) => /PowerShell|--module/.test(r.scenario) && r.ours !== 'not measured',
    );
    expect(powershell.length).toBeGreaterThan(5);
    for (const entry of powershell) expect(entry.scenario, entry.scenario).toMatch(/, on \S/);
    const others = rows.filter((r) => r.bench === 'runners' && !r.scenario.includes('PowerShell'));
    expect(others.length).toBeGreaterThan(0);
    for (const entry of others) expect(entry.scenario).not.toContain(', on ');
  });

  it('says how to produce a missing output instead of failing', () => {
    const rows = buildResultRows({ outputs: { server: load('server') } });
    const notRun = rows.filter((r) => r.scenario.endsWith('not run'));
    expect(notRun.map((r) => r.bench).sort()).toEqual(
      [
        'discovery-list',
        'pack-add',
        'peers',
        'registry',
        'registry-replicas',
        'reload',
        'runners',
        'sandbox',
        'search-quality',
      ].sort(),
    );
    expect(notRun[0]?.note).toMatch(/pnpm --filter @toolpack\/bench bench:/);
  });

  it('holds the sandbox to what bubblewrap adds to a process call, against the same tool unconfined', () => {
    const rows = buildResultRows({ outputs: { sandbox: load('sandbox') } }).filter(
      (r) => r.bench === 'sandbox',
    );
    expect(rows.map((r) => [r.ours, r.reference, r.target, r.met])).toEqual([
      ['9.50 ms', 'the same tool unconfined 6.10 ms', 'bubblewrap adds <= 5 ms', true],
      ['7.90 ms', 'the same spawn without a sandbox plan 4.60 ms', 'reported', null],
      ['88.00 ms', 'the same first call unconfined 71.00 ms', 'reported', null],
      ['0.06 ms', 'the same call unconfined 0.05 ms', 'reported', null],
      ['495 ms', 'the same first call unconfined 480 ms', 'adds <= 50 ms', true],
      ['4.10 ms', 'the same call unconfined 3.00 ms', 'reported', null],
    ]);
    expect(rows[4]?.note).toBe('Measured on the PowerShell engine 7.6.9.');
    expect(rows[4]?.scenario).toContain('+15.00 ms');
    const withoutPwsh = { ...(load('sandbox') as Record<string, unknown>) };
    delete withoutPwsh.pwsh;
    delete withoutPwsh.pwshCall;
    delete withoutPwsh.pwshFirstCall;
    const unmeasured = buildResultRows({ outputs: { sandbox: withoutPwsh } }).filter((r) =>
      r.scenario.includes('PowerShell'),
    );
    expect(unmeasured.map((r) => r.ours)).toEqual(['not measured', 'not measured']);
    expect(unmeasured[0]?.note).toContain('pwsh is not installed');
    expect(rows[0]?.ratio).toBeCloseTo(9.5 / 6.1, 5);
    expect(rows[0]?.scenario).toContain('+3.40 ms (1.56x)');
    expect(rows[2]?.scenario).toContain('p50 of 10');

    const slow = load('sandbox') as { processCall: { confined: { p50: number } } };
    slow.processCall.confined.p50 = 12.2;
    const missed = buildResultRows({
      outputs: { sandbox: slow },
      loadAverages: { sandbox: [3.25, 2, 1] },
    }).find((r) => r.bench === 'sandbox');
    expect(missed).toMatchObject({ met: false, explained: true });
    expect(missed?.note).toContain('3.25');
    expect(missed?.note).toContain('+3.30 ms');

    // Issue 34: the sandboxed PowerShell host adds at most 50 ms to a pack tool's first call.
    const slowHost = load('sandbox') as { pwshFirstCall: { confined: { p50: number } } };
    slowHost.pwshFirstCall.confined.p50 = 545;
    const hostMissed = buildResultRows({ outputs: { sandbox: slowHost } }).find((r) =>
      r.scenario.startsWith('First call of a sandboxed PowerShell'),
    );
    expect(hostMissed).toMatchObject({ met: false, explained: false });
    expect(hostMissed?.note).toContain('65.00 ms more than the unconfined one');
  });

  it('reports the sandbox rows as not measurable where bubblewrap cannot run, with its reason', () => {
    const rows = buildResultRows({
      outputs: {
        sandbox: { sandbox: { available: false, reason: 'bwrap is not installed' }, calls: 200 },
      },
    }).filter((r) => r.bench === 'sandbox');
    expect(rows).toHaveLength(6);
    for (const row of rows) {
      expect(row).toMatchObject({ ours: 'not measured', met: null });
      expect(row.note).toContain('bwrap is not installed');
    }
  });

  it('lists the load-test figures whatever their shape', () => {
    const rows = buildResultRows({
      outputs: { ...fullOutputs(), 'system-load': load('system-load') },
    });
    const system = rows.filter((r) => r.bench === 'system-load');
    const stdio = system.filter((r) => r.scenario.includes('over stdio'));
    // Speed is bench/bursts.ts's (beside its floor); the load test reports memory.
    expect(stdio.map((r) => r.ours)).toEqual(['208.6 MB']);
    expect(stdio[0]?.ratio).toBeCloseTo(208.6 / 174.2, 5);
    expect(stdio[0]?.met).toBe(true);
    const http = system.filter((r) => r.scenario.includes('over http'));
    expect(http[0]?.met).toBe(false);
    expect(http[0]?.note).toContain('116 MB above before');
    expect(http[0]?.explained).toBe(false);
    expect(system.some((r) => /System load: (cores|node|date)/.test(r.scenario))).toBe(false);

    const soak = buildResultRows({
      outputs: {
        'system-load': {
          soak: {
            seconds: 120,
            ratePerSecond: 50,
            calls: 6000,
            failures: 0,
            p50Ms: 4,
            p99Ms: 30,
            rssBaselineMb: 170,
            rssSecondMinuteMb: 240,
            rssLastMinuteMb: 300,
            rssAtEndMb: 290,
            rssAfterMb: 185,
            samples: [{ second: 0, rssMb: 180 }],
          },
        },
      },
    }).filter((r) => r.bench === 'system-load');
    expect(soak.map((r) => r.met)).toEqual([true, false, true]);
    expect(soak[1]?.note).toContain('still climbed');
    expect(soak[2]?.scenario).toContain('290 MB as the last call ended');
    expect(soak[0]?.scenario).toContain('6000 calls at 50/s over 120 s');

    const other = buildResultRows({
      outputs: { 'system-load': { later: { minutes: 5, lost: 0 }, cores: 2 } },
    }).filter((r) => r.bench === 'system-load');
    expect(other.map((r) => r.scenario)).toEqual([
      'System load: later.minutes',
      'System load: later.lost',
    ]);
  });

  it('never throws on malformed outputs (fuzz)', () => {
    const names = [
      'discovery-list',
      'powershell-modules',
      'powershell-peers',
      'runners',
      'server',
      'pack-add',
      'registry',
      'registry-replicas',
      'peers',
      'sandbox',
      'system-load',
      'argument-check',
    ] as const;
    fc.assert(
      fc.property(
        fc.record(
          Object.fromEntries(names.map((n) => [n, fc.option(fc.anything(), { nil: undefined })])),
        ),
        (outputs) => {
          const rows = buildResultRows({ outputs: outputs as BenchOutputs });
          expect(Array.isArray(rows)).toBe(true);
        },
      ),
      { numRuns: fuzzRuns(1500) },
    );
  });

  it('never throws on real outputs with fields mutated (fuzz)', () => {
    const real = fullOutputs();
    const mutate = (value: unknown, path: string[], replacement: unknown): unknown => {
      if (path.length === 0) return replacement;
      if (typeof value !== 'object' || value === null) return value;
      const copy: Record<string, unknown> = Array.isArray(value)
        ? ({ ...value } as Record<string, unknown>)
        : { ...(value as Record<string, unknown>) };
      const [head, ...rest] = path as [string, ...string[]];
      copy[head] = mutate(copy[head], rest, replacement);
      return Array.isArray(value) ? Object.values(copy) : copy;
    };
    fc.assert(
      fc.property(
        fc.constantFrom(...(Object.keys(real) as (keyof BenchOutputs)[])),
        fc.array(fc.constantFrom('rows', 'servers', '0', '1', 'callMs', 'p50', 'search', 'met'), {
          maxLength: 4,
        }),
        fc.oneof(
          fc.constant(null),
          fc.double(),
          fc.string(),
          fc.constant(Number.NaN),
          fc.anything(),
        ),
        (name, path, replacement) => {
          const outputs = { ...real, [name]: mutate(real[name], path, replacement) };
          expect(() => buildResultRows({ outputs })).not.toThrow();
        },
      ),
      { numRuns: fuzzRuns(1500) },
    );
  });
});
