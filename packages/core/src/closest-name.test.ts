import { describe, expect, it } from 'vitest';
import { editDistance, findClosestName } from './closest-name.ts';

describe('closest names', () => {
  it('counts edits', () => {
    expect(editDistance('inputschema', 'inputschema')).toBe(0);
    expect(editDistance('descripton', 'description')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });

  it('finds the closest name, ignoring case and separators', () => {
    expect(findClosestName('input-schema', ['inputSchema', 'outputSchema'])).toBe('inputSchema');
    expect(findClosestName('jira_get_isue', ['jira_get_issue', 'jira_list'])).toBe(
      'jira_get_issue',
    );
    expect(findClosestName('zzz', ['jira_get_issue'])).toBeUndefined();
  });
});
