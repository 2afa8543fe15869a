/** A one-line progress bar on a TTY (stderr); silent otherwise, so logs and pipes stay clean. */
export function createProgressBar(label: string, stream: NodeJS.WriteStream = process.stderr) {
  let last = '';
  return {
    update(done: number, total: number) {
      if (!stream.isTTY || total === 0) return;
      const width = 30;
      const filled = Math.round((Math.min(done, total) / total) * width);
      const line = `${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}`;
      if (line !== last) stream.write(`\r${line}`);
      last = line;
    },
    finish() {
      if (stream.isTTY && last) stream.write('\n');
    },
  };
}
