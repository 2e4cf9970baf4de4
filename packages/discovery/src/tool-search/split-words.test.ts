import { describe, expect, it } from 'vitest';
import { normaliseWord, splitWords } from './split-words.ts';

describe('splitWords', () => {
  it('splits every naming style into the same words', () => {
    for (const name of ['Get-Widget', 'get_widget', 'get widget'])
      expect(splitWords(name)).toEqual(['get', 'widget']);
    // A mixed-case run also counts whole: `GitLab` must meet `gitlab_list_projects`.
    expect(splitWords('getWidget')).toEqual(['get', 'widget', 'getwidget']);
    expect(splitWords('GetWidgetJSON')).toEqual(['get', 'widget', 'json', 'getwidgetjson']);
    expect(splitWords('JSONParser')).toEqual(['json', 'parser', 'jsonparser']);
    expect(splitWords('jira_create_issue')).toEqual(['jira', 'create', 'issue']);
    expect(splitWords('Get-AzVM2Disk')).toEqual(['get', 'az', 'vm', '2', 'disk', 'azvm2disk']);
    expect(splitWords('GitLab issues')).toEqual(['git', 'lab', 'gitlab', 'issue']);
  });

  it('drops stopwords and folds plurals and the third person', () => {
    expect(splitWords('Lists the issues of a project')).toEqual(['list', 'issue', 'project']);
    expect(splitWords('  ,; ')).toEqual([]);
  });

  it('leaves short words, -ss and -us alone', () => {
    expect(
      ['bus', 'class', 'status', 'gas', 'entries', 'queries', 'ies'].map(normaliseWord),
    ).toEqual(['bus', 'class', 'status', 'gas', 'entry', 'query', 'ies']);
  });
});
