import { delimiter, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LEAST_PERMISSIONS, type DiscoveredTool } from '@toolpack/core';
import { createConfinementResolver } from './call-confinement.ts';

const toolIn = (root: string | undefined) =>
  ({
    source: root === undefined ? {} : { sandbox: { root, permissions: LEAST_PERMISSIONS } },
  }) as unknown as DiscoveredTool;

describe('createConfinementResolver', () => {
  it("puts a confined tool's pack folder first on PSModulePath, where its module's RequiredModules are", () => {
    const projectRoot = resolve('/work/project');
    const confine = createConfinementResolver({ projectRoot, unconfinedEnvironment: { A: '1' } });
    const confined = confine(toolIn('.toolpack/packs/echomain'));
    expect(confined.environment.PSModulePath?.split(delimiter)[0]).toBe(
      resolve(projectRoot, '.toolpack/packs/echomain'),
    );
    // The project's own tools keep the server's environment as it is.
    expect(confine(toolIn(undefined)).environment).toEqual({ A: '1' });
  });
});
