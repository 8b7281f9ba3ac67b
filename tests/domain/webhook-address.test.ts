// The server-side request forgery rule of webhook URLs (docs/api.md, Webhooks): which addresses
// and URLs a receiver may have, without the flag and with it.
import { describe, expect, it } from 'vitest';
import { addressRefusal, parseWebhookUrl } from '../../src/domain/webhook-address.js';

describe('addressRefusal', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved or broadcast'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:a9fe:a9fe', 'link-local'],
    ['64:ff9b::192.168.0.1', 'private'],
    ['::127.0.0.1', 'loopback'],
    // IPv4 addresses embedded in other IPv6 forms are decoded and checked.
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['64:ff9b:1::10.0.0.1', 'private'],
    ['64:ff9b:1::8.8.8.8', 'local-use NAT64'],
    ['64:ff9b:1:ab::808:808', 'local-use NAT64'],
    ['::ffff:0:127.0.0.1', 'loopback'],
    ['::ffff:0:a9fe:a9fe', 'link-local'],
    ['::ffff:0:192.168.1.1', 'private'],
    ['2002:7f00:1::1', 'loopback'],
    ['2002:a9fe:a9fe::', 'link-local'],
    ['2002:c0a8:0101:1::5', 'private'],
    ['2002:a00:1::', 'private'],
    ['not-an-address', 'not an IP address'],
  ])('refuses %s (%s)', (address, why) => {
    expect(addressRefusal(address)).toBe(why);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '172.32.0.1',
    '172.15.255.255',
    '100.128.0.1',
    '169.253.0.1',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
    '2001:db8::1',
    '64:ff9b::8.8.8.8',
    '::ffff:0:8.8.8.8',
    '2002:808:808::1',
  ])('accepts the public address %s', (address) => {
    expect(addressRefusal(address)).toBeNull();
  });
});

describe('parseWebhookUrl', () => {
  it('takes an https URL with a name apart', () => {
    expect(parseWebhookUrl('https://hooks.example.com/in?x=1', false)).toEqual({ protocol: 'https:', host: 'hooks.example.com', port: 443, path: '/in?x=1', literal: false });
    expect(parseWebhookUrl('https://[2606:4700::1111]:8443/', false)).toEqual({ protocol: 'https:', host: '2606:4700::1111', port: 8443, path: '/', literal: true });
  });

  it.each([
    ['http://hooks.example.com/', 'must be an https:// URL'],
    ['ftp://hooks.example.com/', 'must be an https:// URL'],
    ['not a url', 'is not a URL'],
    ['https://user:pw@hooks.example.com/', 'must not carry credentials'],
    ['https://127.0.0.1/', 'points to a loopback address'],
    ['https://10.0.0.1/', 'points to a private address'],
    ['https://169.254.169.254/latest/meta-data', 'points to a link-local address'],
    ['https://[::1]/', 'points to a loopback address'],
    ['https://[::ffff:127.0.0.1]/', 'points to a loopback address'],
    // The URL parser reads these IPv4 spellings as the addresses they are.
    ['https://2130706433/', 'points to a loopback address'],
    ['https://0x7f.1/', 'points to a loopback address'],
    ['https://0/', 'points to a unspecified address'],
  ])('refuses %s without the flag', (url, why) => {
    expect(parseWebhookUrl(url, false)).toMatchObject({ refused: why });
  });

  it('says which refusals GATEHOUSE_WEBHOOKS_ALLOW_PRIVATE=1 would lift: http:// and private addresses', () => {
    expect(parseWebhookUrl('http://hooks.example.com/', false)).toEqual({ refused: 'must be an https:// URL', private: true });
    expect(parseWebhookUrl('https://10.0.0.1/', false)).toEqual({ refused: 'points to a private address', private: true });
    expect(parseWebhookUrl('ftp://hooks.example.com/', false)).toEqual({ refused: 'must be an https:// URL', private: false });
    expect(parseWebhookUrl('https://user:pw@hooks.example.com/', false)).toEqual({ refused: 'must not carry credentials', private: false });
  });

  it('with GATEHOUSE_WEBHOOKS_ALLOW_PRIVATE: http:// and private addresses, but still no other scheme', () => {
    expect(parseWebhookUrl('http://127.0.0.1:9000/hook', true)).toEqual({ protocol: 'http:', host: '127.0.0.1', port: 9000, path: '/hook', literal: true });
    expect(parseWebhookUrl('https://10.0.0.1/', true)).toMatchObject({ host: '10.0.0.1' });
    expect(parseWebhookUrl('ftp://10.0.0.1/', true)).toEqual({ refused: 'must be an http:// or https:// URL', private: false });
  });
});
