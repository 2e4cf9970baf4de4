import { describe, expect, it } from 'vitest';
import { deriveToolNames } from './tool-names.ts';

describe('deriveToolNames', () => {
  it.each([
    'send-notification',
    'SendNotification',
    'send_notification',
    'Send Notification',
    'sendNotification',
  ])('reads %s into every convention', (raw) => {
    expect(deriveToolNames(raw)).toEqual({
      words: ['send', 'notification'],
      snake: 'send_notification',
      kebab: 'send-notification',
      pascal: 'SendNotification',
      camel: 'sendNotification',
      invokeFunction: 'Invoke-SendNotification',
      verbNoun: 'Send-Notification',
      verbNounTool: 'Send_Notification',
    });
  });

  it('keeps a PowerShell Verb-Noun and one-word names readable', () => {
    expect(deriveToolNames('Get-DiskUsage')).toMatchObject({
      snake: 'get_disk_usage',
      verbNoun: 'Get-DiskUsage',
      invokeFunction: 'Invoke-GetDiskUsage',
    });
    expect(deriveToolNames('hello')).toMatchObject({
      snake: 'hello',
      verbNoun: 'Hello',
      camel: 'hello',
    });
  });

  it('refuses names without letters, starting with a digit, or too long for MCP', () => {
    expect(() => deriveToolNames('--')).toThrow(/has no letters or digits/);
    expect(() => deriveToolNames('2fa-code')).toThrow(/starts with a digit/);
    expect(() => deriveToolNames('a'.repeat(65))).toThrow(/not valid/);
  });
});
