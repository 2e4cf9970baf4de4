import { describe, expect, it } from 'vitest';
import * as packs from './index.ts';
import * as testing from './testing/index.ts';

// The public surface as a literal list: adding or removing a name is a visible change here,
// made on purpose, never a side effect of exporting something for a neighbour inside.
describe('@toolpack/packs exports', () => {
  it('exports exactly these runtime names', () => {
    expect(Object.keys(packs).sort()).toEqual([
      'DEFAULT_PACK_LIMITS',
      'DEFAULT_SERVER_NAMESPACE',
      'MANIFEST_FILE',
      'MAX_SEARCH_LIMIT',
      'RegistryError',
      'SERVER_JSON_SCHEMA_URL',
      'addManifestSource',
      'addPack',
      'addProjectSource',
      'areInterpretersEqual',
      'auditPacks',
      'buildVersionDoc',
      'computeIntegrity',
      'createHttpRegistry',
      'createPackCache',
      'createPackTarball',
      'defaultAlias',
      'describeDifferences',
      'describeInterpreters',
      'fetchServedPack',
      'findInterpreterWidening',
      'formatBytes',
      'hashToolDefinition',
      'inspectNupkg',
      'inspectTarball',
      'installPacks',
      'isHttpUrl',
      'isValidPackName',
      'isValidServerNamespace',
      'listPackSources',
      'listProjectPacks',
      'loadProject',
      'normalizeInterpreters',
      'openNuGetFeed',
      'openRegistry',
      'packInstallDir',
      'parseManifest',
      'parseNuspec',
      'parsePackSpecifier',
      'readLockfile',
      'readManifest',
      'readNupkgAsPack',
      'readNupkgContent',
      'readPolicyFile',
      'removePack',
      'resolveFeed',
      'resolveRegistryLocation',
      'selectVersion',
      'sortVersionsDescending',
      'toFileStem',
      'toNuGetIdFromPackName',
      'toPackName',
      'toPackNameFromNuGetId',
      'toSemverFromNuGetVersion',
      'toServedToolName',
      'toServerJson',
      'toServerName',
      'updatePacks',
      'writePackFiles',
    ]);
  });

  it('keeps the test registry, the test NuGet feed and the hostile-archive builders in the testing entry', () => {
    expect(Object.keys(testing).sort()).toEqual([
      'buildModuleNupkg',
      'buildTarball',
      'buildZip',
      'nuspecText',
      'packManifestText',
      'startTestNuGetFeed',
      'startTestRegistry',
    ]);
  });
});
