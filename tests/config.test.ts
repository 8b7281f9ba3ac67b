import { describe, expect, it } from 'vitest';
import { ConfigError, readConfig } from '../src/config.js';

describe('configuration added for issue 12', () => {
  it('GATEHOUSE_COOKIE_SECURE is auto by default, always when asked, and nothing else', () => {
    expect(readConfig({}).cookieSecure).toBe('auto');
    expect(readConfig({ GATEHOUSE_COOKIE_SECURE: 'always' }).cookieSecure).toBe('always');
    expect(() => readConfig({ GATEHOUSE_COOKIE_SECURE: 'yes' })).toThrow(ConfigError);
    expect(() => readConfig({ GATEHOUSE_COOKIE_SECURE: 'yes' })).toThrow(/GATEHOUSE_COOKIE_SECURE must be auto or always/);
  });

  it('GATEHOUSE_PASSWORD_QUEUE is 64 by default, 1 to 100,000', () => {
    expect(readConfig({}).passwordQueue).toBe(64);
    expect(readConfig({ GATEHOUSE_PASSWORD_QUEUE: '5' }).passwordQueue).toBe(5);
    expect(() => readConfig({ GATEHOUSE_PASSWORD_QUEUE: '0' })).toThrow(/GATEHOUSE_PASSWORD_QUEUE must be from 1 to 100000/);
  });
});
