import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { applyEdits, textEdits } from '../../testing/fuzz-mutations.ts';
import { fuzzRuns, fuzzTimeout } from '@toolpack/fuzz-runs';
import { describeToolFolder } from './describe-tool-folder.ts';
import { expectOnlyDiagnostics } from '../../testing/expect-only-diagnostics.ts';

const FIXTURES = join(import.meta.dirname, 'fixtures');
const metadataFiles = [
  'tools/send-notification/metadata.yaml',
  'tools/list-files/metadata.yaml',
  'tools/word-count/metadata.yaml',
  'project/.bot/workflows/default/tools/task-create/metadata.yaml',
  'project/.bot/workflows/start-from-jira/tools/jira-fetch/metadata.json',
].map((file) => ({ file, content: readFileSync(join(FIXTURES, file), 'utf8') }));
const ps1 = readFileSync(join(FIXTURES, 'tools/send-notification/script.ps1'), 'utf8');

const edits = textEdits([
  ':',
  '-',
  ' ',
  '\n',
  '\t',
  '"',
  "'",
  '{',
  '}',
  '[',
  ']',
  '&',
  '*',
  '!',
  '#',
  'a',
  '1',
  '|',
]);

/** Metadata-shaped YAML with values of every kind in every place. */
const anyValue = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom('object', 'array', 'strin', '30s', '-1', 'yes'),
  fc.array(fc.string({ maxLength: 4 }), { maxLength: 3 }),
);
const metadataObject = fc.dictionary(
  fc.constantFrom(
    'name',
    'description',
    'inputSchema',
    'input_schema',
    'outputSchema',
    'annotations',
    'timeout',
    'timeoutMs',
    'title',
    'other',
  ),
  fc.oneof(
    anyValue,
    fc.dictionary(
      fc.constantFrom(
        'type',
        'properties',
        'required',
        'additionalProperties',
        'readOnlyHint',
        'destructiveHint',
        'title',
        'x',
      ),
      fc.oneof(anyValue, fc.dictionary(fc.string({ maxLength: 4 }), anyValue, { maxKeys: 3 })),
      { maxKeys: 5 },
    ),
  ),
  { maxKeys: 8 },
);

const folder = '/project/tools/send-notification';
const describeMetadata = (metadata: string, metadataName = 'metadata.yaml') =>
  describeToolFolder({
    folder,
    metadataPath: `${folder}/${metadataName}`,
    metadata,
    scriptPath: `${folder}/script.sh`,
    script: '',
    scripts: ['script.sh'],
  });

describe('describeToolFolder under fuzzing', { timeout: fuzzTimeout() }, () => {
  it('turns random text into diagnostics, never an exception', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: 'binary', maxLength: 300 }),
        fc.constantFrom('metadata.yaml', 'metadata.json'),
        async (metadata, name) => {
          expectOnlyDiagnostics(await describeMetadata(metadata, name));
        },
      ),
      { numRuns: fuzzRuns(1000) },
    );
  });

  it('turns metadata of any shape into diagnostics, never an exception', async () => {
    await fc.assert(
      fc.asyncProperty(metadataObject, async (object) => {
        expectOnlyDiagnostics(await describeMetadata(JSON.stringify(object), 'metadata.json'));
      }),
      { numRuns: fuzzRuns(1000) },
    );
  });

  it('turns mutations of the good metadata files into diagnostics, never an exception', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...metadataFiles),
        edits,
        async ({ file, content }, changes) => {
          expectOnlyDiagnostics(
            await describeMetadata(applyEdits(content, changes), file.split('/').pop()),
          );
        },
      ),
      { numRuns: fuzzRuns(1000) },
    );
  });

  it('turns mutations of a .ps1 script into diagnostics, never an exception', async () => {
    const metadata = readFileSync(join(FIXTURES, 'tools/send-notification/metadata.yaml'), 'utf8');
    await fc.assert(
      fc.asyncProperty(edits, async (changes) => {
        expectOnlyDiagnostics(
          await describeToolFolder({
            folder,
            metadataPath: `${folder}/metadata.yaml`,
            metadata,
            scriptPath: `${folder}/script.ps1`,
            script: applyEdits(ps1, changes),
            scripts: ['script.ps1'],
          }),
        );
      }),
      { numRuns: fuzzRuns(200) },
    );
  });
});
