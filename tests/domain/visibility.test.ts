import { describe, expect, it } from 'vitest';
import { visibleTo } from '../../src/domain/visibility.js';

const items = [
  { name: 'motd', isPublic: true },
  { name: 'secret', isPublic: false },
  { name: 'version', isPublic: true },
  { name: 'key', isPublic: false },
];

describe('visibleTo', () => {
  it('anonymous callers see public items only, in order', () => {
    expect(visibleTo(items, 'anonymous').map((i) => i.name)).toEqual(['motd', 'version']);
  });

  it('members see every item, in order', () => {
    expect(visibleTo(items, 'member').map((i) => i.name)).toEqual(['motd', 'secret', 'version', 'key']);
  });

  it('returns a new array and leaves the input alone', () => {
    const out = visibleTo(items, 'member');
    expect(out).not.toBe(items);
    out.pop();
    expect(items).toHaveLength(4);
  });

  it('nothing public: anonymous sees nothing', () => {
    expect(visibleTo([{ isPublic: false }], 'anonymous')).toEqual([]);
    expect(visibleTo([], 'member')).toEqual([]);
  });
});
