// Which signals stop the server at once (issue 39, item 1): a repeat of the first signal within
// SAME_PRESS_MS is a copy of the same press (npm relays the terminal's Ctrl-C to the server, which
// had it from the terminal already). The terminal itself is driven in server-lifecycle.test.ts.
import { expect, it } from 'vitest';
import { SAME_PRESS_MS, signalSorter } from '../../src/shutdown.js';

it('a repeat of the first signal within the window is a copy; a later or different one is a second press', () => {
  let now = 5_000;
  const sort = signalSorter(() => now);
  expect(sort('SIGINT')).toBe('first');
  now += 3;
  expect(sort('SIGINT')).toBe('copy');
  now += SAME_PRESS_MS - 4;
  expect(sort('SIGINT')).toBe('copy');
  expect(sort('SIGTERM')).toBe('again');
  now += 1;
  expect(sort('SIGINT')).toBe('again');
});
