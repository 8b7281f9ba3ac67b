// Upload progress on stderr: a bar redrawn in place when stderr is a terminal, otherwise (CI
// logs) a plain line at every quarter, so logs stay readable.

const MiB = 1024 * 1024;
/** MiB with one decimal; KiB below 1 MiB, so small files do not read 0.0. */
const size = (n: number, total: number) => (total < MiB ? `${(n / 1024).toFixed(1)} KiB` : `${(n / MiB).toFixed(1)} MiB`);

export interface Progress {
  update(sent: number, total: number): void;
  /** Ends the bar's line. */
  finish(): void;
}

export function createProgress(label: string, out: NodeJS.WriteStream = process.stderr): Progress {
  if (out.isTTY) {
    let lastDraw = 0;
    let drawn = false;
    return {
      update(sent, total) {
        const now = Date.now();
        if (sent < total && now - lastDraw < 100) return;
        lastDraw = now;
        const ratio = total === 0 ? 1 : sent / total;
        const width = 30;
        const filled = Math.round(ratio * width);
        out.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(ratio * 100).toFixed(0).padStart(3)}% ${size(sent, total)} of ${size(total, total)}`);
        drawn = true;
      },
      finish() {
        if (drawn) out.write('\n');
        drawn = false;
      },
    };
  }
  // A file under 1 MiB gets its 100% line only.
  let nextQuarter = 1;
  return {
    update(sent, total) {
      const percent = total === 0 ? 100 : Math.floor((sent / total) * 100);
      if (total < MiB) {
        if (percent < 100) return;
        nextQuarter = Math.max(nextQuarter, 4);
      }
      while (nextQuarter <= 4 && percent >= nextQuarter * 25) {
        out.write(`${label}: ${nextQuarter * 25}% (${size(Math.min(sent, total), total)} of ${size(total, total)})\n`);
        nextQuarter += 1;
      }
    },
    finish() {},
  };
}
