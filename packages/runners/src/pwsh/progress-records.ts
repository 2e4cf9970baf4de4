import type { ToolProgress } from '../runner-types.ts';
import type { HostProgressMessage } from './host-protocol.ts';

/** A Write-Progress record as the host forwards it. */
export type ProgressRecord = Omit<HostProgressMessage, 'type' | 'id'>;

/**
 * Turns one call's Write-Progress records into MCP progress, which is one number that must
 * increase. PowerShell's model is richer: activities nest (-Id/-ParentId), end (-Completed)
 * and start again. The mapping:
 *
 * - The outermost activity with a -PercentComplete gives the number (total 100); the first
 *   activity with a percent nested in it refines it within its current point (40% with a
 *   child at 50% is 40.49), so a long inner loop still moves the number.
 * - A leg ends when that outer activity completes or its percent goes back down (a second
 *   loop that reuses the -Id): the next leg counts on from 100, the total grows by 100, so
 *   the number keeps increasing.
 * - The message is the chain of activities from the outermost to the one reported:
 *   `Activity - Status (CurrentOperation)`, joined with ` / `.
 * - A call whose records have no percent at all counts them: 1, 2, 3… with no total. Once a
 *   percent has been seen, a record whose chain has none reports nothing (it has no number).
 */
export interface ProgressRecordMapper {
  /** The progress to report for this record, or undefined when there is none. */
  map(record: ProgressRecord): ToolProgress | undefined;
}

interface Activity {
  parentId: number;
  name: string;
  text: string;
  percent: number;
}

// Write-Progress chains are a few levels deep; the bound only guards against a cycle.
const MAX_DEPTH = 16;

export function createProgressRecordMapper(): ProgressRecordMapper {
  const activities = new Map<number, Activity>();
  let percentSeen = false;
  let counter = 0;
  let legs = 0;
  let lastOuterPercent = -1;

  const findChain = (activityId: number): Activity[] => {
    const chain: Activity[] = [];
    const visited = new Set<number>();
    let id = activityId;
    while (chain.length < MAX_DEPTH && !visited.has(id)) {
      const activity = activities.get(id);
      if (activity === undefined) break;
      visited.add(id);
      chain.unshift(activity);
      id = activity.parentId;
    }
    return chain;
  };

  const forget = (activityId: number): void => {
    activities.delete(activityId);
    for (const [id, activity] of activities) {
      if (activity.parentId === activityId) forget(id);
    }
  };

  const isOuter = (record: ProgressRecord): boolean =>
    record.parentId < 0 || !activities.has(record.parentId);

  return {
    map(record) {
      if (record.completed) {
        const known = activities.get(record.activityId);
        const outerWithPercent =
          known !== undefined &&
          known.percent >= 0 &&
          isOuter({ ...record, parentId: known.parentId });
        forget(record.activityId);
        if (!outerWithPercent) return undefined;
        const progress = {
          progress: legs * 100 + 100,
          total: (legs + 1) * 100,
          message: `${known.name}: done`,
        };
        legs += 1;
        lastOuterPercent = -1;
        return progress;
      }
      activities.set(record.activityId, {
        parentId: record.parentId === record.activityId ? -1 : record.parentId,
        name: record.activity,
        text: formatActivity(record),
        percent: Number.isFinite(record.percent) ? Math.min(record.percent, 100) : -1,
      });
      const chain = findChain(record.activityId);
      const message = chain.map((activity) => activity.text).join(' / ');
      const numbered = chain.filter((activity) => activity.percent >= 0);
      if (numbered.length > 0) percentSeen = true;
      if (!percentSeen) {
        counter += 1;
        return { progress: counter, message };
      }
      const [outer, inner] = numbered;
      if (outer === undefined) return undefined;
      if (outer.percent < lastOuterPercent) legs += 1;
      lastOuterPercent = outer.percent;
      const refinement = inner === undefined ? 0 : Math.floor(inner.percent * 0.99) / 100;
      return {
        progress: legs * 100 + outer.percent + refinement,
        total: (legs + 1) * 100,
        message,
      };
    },
  };
}

function formatActivity(record: ProgressRecord): string {
  let text = record.activity;
  if (record.status !== '') text = `${text} - ${record.status}`;
  if (record.operation !== '') text = `${text} (${record.operation})`;
  return text;
}
