import { describe, expect, it } from 'vitest';
import { createProgressRecordMapper, type ProgressRecord } from './progress-records.ts';

function record(partial: Partial<ProgressRecord> & { activity: string }): ProgressRecord {
  return {
    activityId: 0,
    parentId: -1,
    status: '',
    operation: '',
    percent: -1,
    completed: false,
    ...partial,
  };
}

describe('createProgressRecordMapper', () => {
  it('maps -PercentComplete to progress of 100 with Activity - Status (CurrentOperation)', () => {
    const mapper = createProgressRecordMapper();
    expect(
      mapper.map(
        record({ activity: 'Copying', status: 'file 1', operation: 'a.txt', percent: 10 }),
      ),
    ).toEqual({ progress: 10, total: 100, message: 'Copying - file 1 (a.txt)' });
  });

  it('counts records that never give a percentage', () => {
    const mapper = createProgressRecordMapper();
    expect(mapper.map(record({ activity: 'Setting up', status: 'download' }))).toEqual({
      progress: 1,
      message: 'Setting up - download',
    });
    expect(mapper.map(record({ activity: 'Setting up', status: 'unpack' }))).toEqual({
      progress: 2,
      message: 'Setting up - unpack',
    });
  });

  it('refines the outer percentage with a nested activity, and names the chain', () => {
    const mapper = createProgressRecordMapper();
    mapper.map(record({ activityId: 1, activity: 'Folders', status: 'folder 1', percent: 40 }));
    expect(
      mapper.map(
        record({ activityId: 2, parentId: 1, activity: 'Files', status: 'file 3', percent: 50 }),
      ),
    ).toEqual({ progress: 40.49, total: 100, message: 'Folders - folder 1 / Files - file 3' });
    // The nested activity completes: no report of its own, and the chain forgets it.
    expect(
      mapper.map(record({ activityId: 2, parentId: 1, activity: 'Files', completed: true })),
    ).toBe(undefined);
    expect(
      mapper.map(record({ activityId: 1, activity: 'Folders', status: 'folder 2', percent: 70 })),
    ).toEqual({ progress: 70, total: 100, message: 'Folders - folder 2' });
  });

  it('keeps the number increasing over activities that complete and start again', () => {
    const mapper = createProgressRecordMapper();
    mapper.map(record({ activityId: 1, activity: 'Download', percent: 80 }));
    expect(mapper.map(record({ activityId: 1, activity: 'Download', completed: true }))).toEqual({
      progress: 100,
      total: 100,
      message: 'Download: done',
    });
    expect(mapper.map(record({ activityId: 1, activity: 'Install', percent: 20 }))).toEqual({
      progress: 120,
      total: 200,
      message: 'Install',
    });
    // Reused without -Completed: the percentage going down starts the next leg as well.
    expect(mapper.map(record({ activityId: 1, activity: 'Verify', percent: 5 }))?.progress).toBe(
      205,
    );
  });

  it('reports nothing for a record without a percentage once percentages are in use', () => {
    const mapper = createProgressRecordMapper();
    mapper.map(record({ activity: 'Copying', percent: 10 }));
    expect(mapper.map(record({ activityId: 3, activity: 'Side note' }))).toBeUndefined();
  });

  it('survives a parent cycle', () => {
    const mapper = createProgressRecordMapper();
    mapper.map(record({ activityId: 1, parentId: 2, activity: 'A', percent: 10 }));
    expect(mapper.map(record({ activityId: 2, parentId: 1, activity: 'B', percent: 20 }))).toEqual(
      expect.objectContaining({ message: 'A / B' }),
    );
  });
});
