// Feeding a stream piece by piece in tests: pieces cut at arbitrary offsets, written one by one
// (empty ones included, which a pipeline would drop), and the output collected.
import { once } from 'node:events';
import type { Duplex } from 'node:stream';
import { finished } from 'node:stream/promises';

/** Writes the pieces one by one, ends the stream and collects its output. */
export async function feed(stream: Duplex, pieces: Uint8Array[]): Promise<Buffer> {
  const out: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => out.push(chunk));
  for (const piece of pieces) {
    if (!stream.write(piece)) await once(stream, 'drain');
  }
  stream.end();
  await finished(stream);
  return Buffer.concat(out);
}

/** Cuts `data` at the given offsets (modulo its length + 1); repeated cuts give empty pieces. */
export function cut(data: Buffer, cuts: number[]): Buffer[] {
  const points = cuts.map((c) => (data.length === 0 ? 0 : c % (data.length + 1))).sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let start = 0;
  for (const point of [...points, data.length]) {
    pieces.push(data.subarray(start, point));
    start = point;
  }
  return pieces;
}
