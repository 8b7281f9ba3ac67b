// The upload progress of `gatehouse files push`: a bar redrawn in place on a terminal, plain
// quarter lines in a CI log.
import { describe, expect, it } from 'vitest';
import { createProgress } from '../../src/cli/progress.js';

const MiB = 1024 * 1024;

function fakeStream(isTTY: boolean) {
  const writes: string[] = [];
  return { writes, stream: { isTTY, write: (s: string) => writes.push(s) > 0 } as unknown as NodeJS.WriteStream };
}

describe('upload progress', () => {
  it('on a terminal: one line redrawn with \\r, ended by finish()', () => {
    const { writes, stream } = fakeStream(true);
    const progress = createProgress('uploading app.zip', stream);
    progress.update(0, 10 * MiB);
    progress.update(10 * MiB, 10 * MiB);
    progress.finish();
    expect(writes[0]).toBe(`\ruploading app.zip [${'.'.repeat(30)}]   0% 0.0 MiB of 10.0 MiB`);
    expect(writes[1]).toBe(`\ruploading app.zip [${'#'.repeat(30)}] 100% 10.0 MiB of 10.0 MiB`);
    expect(writes[2]).toBe('\n');
  });

  it('in a log: a line at each quarter, each once; a small file only at 100%', () => {
    const { writes, stream } = fakeStream(false);
    const progress = createProgress('uploading app.zip', stream);
    for (let sent = 0; sent <= 8 * MiB; sent += MiB / 2) progress.update(sent, 8 * MiB);
    expect(writes).toEqual([25, 50, 75, 100].map((p) => `uploading app.zip: ${p}% (${((8 * p) / 100).toFixed(1)} MiB of 8.0 MiB)\n`));
    const small = fakeStream(false);
    const tiny = createProgress('uploading x', small.stream);
    tiny.update(0, 10);
    tiny.update(10, 10);
    expect(small.writes).toEqual(['uploading x: 100% (0.0 KiB of 0.0 KiB)\n']);
  });
});
