// The bench's result column (issue 39, item 10): a full run judges each target PASS or FAIL; a
// --quick run is a smoke test too short and small to judge by, and says so instead.
import { expect, it } from 'vitest';
import { benchRow, resultText } from '../../bench/report.js';

const met = benchRow({ scenario: 'login', backend: 'sqlite+local', metric: 'logins_per_s', unit: '1/s', value: 90, ceiling: 100, target: 0.85 });
const missed = benchRow({ scenario: 'login', backend: 'sqlite+local', metric: 'logins_per_s', unit: '1/s', value: 10, ceiling: 100, target: 0.85 });
const informs = benchRow({ scenario: 'upload', backend: 'sqlite+local', metric: 'upload_ms', unit: 'ms', value: 10 });

it('a full run prints PASS or FAIL, a quick run n/a (quick), a row without target nothing', () => {
  expect([met, missed, informs].map((r) => resultText(r, false))).toEqual(['PASS', 'FAIL', '']);
  expect([met, missed, informs].map((r) => resultText(r, true))).toEqual(['n/a (quick)', 'n/a (quick)', '']);
});
