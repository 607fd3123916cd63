// Progress of a long ingest: a redrawn bar on a terminal, one line per 10 % in logs and CI.
export interface Progress {
  tick(): void;
  done(): void;
}

const duration = (seconds: number) =>
  seconds >= 90 ? `${Math.floor(seconds / 60)}m${Math.round(seconds % 60)}s` : `${Math.round(seconds)}s`;

export function createProgress(
  total: number,
  stream: NodeJS.WriteStream = process.stderr,
  label = 'snapshots',
): Progress {
  const started = Date.now();
  let count = 0;
  let lastDecile = 0;
  const tty = Boolean(stream.isTTY);
  const line = () => {
    const elapsed = (Date.now() - started) / 1000;
    const rate = elapsed > 0 ? count / elapsed : 0;
    const eta = rate > 0 ? (total - count) / rate : 0;
    const pct = total > 0 ? Math.floor((count / total) * 100) : 100;
    return { elapsed, rate, eta, pct };
  };
  return {
    tick() {
      count += 1;
      const { rate, eta, pct } = line();
      if (tty) {
        const width = 30;
        const filled = Math.round((pct / 100) * width);
        stream.write(
          `\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${count}/${total} ${label} ${pct}% ` +
            `${rate.toFixed(1)}/s ETA ${duration(eta)}  `,
        );
      } else if (Math.floor(pct / 10) > lastDecile || count === total) {
        lastDecile = Math.floor(pct / 10);
        stream.write(`${count}/${total} ${label} (${pct}%), ${rate.toFixed(1)}/s, ETA ${duration(eta)}\n`);
      }
    },
    done() {
      if (tty) stream.write('\n');
    },
  };
}
