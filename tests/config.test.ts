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

describe('metrics (docs/configuration.md, Metrics)', () => {
  it('are off by default; GATEHOUSE_METRICS=1 serves them on the port, GATEHOUSE_METRICS_PORT on a port of their own', () => {
    expect(readConfig({}).metrics).toEqual({ kind: 'off' });
    expect(readConfig({ GATEHOUSE_METRICS: '0' }).metrics).toEqual({ kind: 'off' });
    expect(readConfig({ GATEHOUSE_METRICS: '1' }).metrics).toEqual({ kind: 'route' });
    expect(readConfig({ GATEHOUSE_METRICS_PORT: '9464' }).metrics).toEqual({ kind: 'port', port: 9464 });
    expect(readConfig({ GATEHOUSE_METRICS: '1', GATEHOUSE_METRICS_PORT: '9464' }).metrics).toEqual({ kind: 'port', port: 9464 });
    expect(() => readConfig({ GATEHOUSE_METRICS: 'yes' })).toThrow(/GATEHOUSE_METRICS must be 0 or 1/);
    expect(() => readConfig({ GATEHOUSE_METRICS_PORT: '0' })).toThrow(/GATEHOUSE_METRICS_PORT must be from 1 to 65535/);
    expect(() => readConfig({ GATEHOUSE_METRICS_PORT: 'http' })).toThrow(/GATEHOUSE_METRICS_PORT must be a whole number/);
  });
});
