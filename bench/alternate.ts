// Runs the measured side and its ceiling in turns (A B, B A, A B...), so that whatever else the
// machine does during the run weighs on both alike.
export async function alternate<A, B>(rounds: number, a: () => Promise<A>, b: () => Promise<B>): Promise<{ a: A[]; b: B[] }> {
  const results = { a: [] as A[], b: [] as B[] };
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      results.a.push(await a());
      results.b.push(await b());
    } else {
      results.b.push(await b());
      results.a.push(await a());
    }
  }
  return results;
}

export function median(values: number[]): number {
  if (values.length === 0) throw new Error('median of nothing');
  const sorted = [...values].sort((x, y) => x - y);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}
