import { formatBytes, type DownloadListener } from '@toolpack/packs';
import type { CliIo } from '../../io.ts';

/**
 * Shows a download's progress on stderr once it has taken more than a second (fast
 * downloads print nothing): one self-updating line on a terminal, a line a second otherwise.
 */
export function createDownloadProgress(io: CliIo): { onDownload: DownloadListener; stop(): void } {
  const active = new Set<() => void>();
  const onDownload: DownloadListener = ({ name, version, size }) => {
    const started = Date.now();
    let received = 0;
    let total = size;
    let shown = false;
    let lastLine = 0;
    const render = (final: boolean) => {
      const now = Date.now();
      if (now - started < 1000 && !shown) return;
      if (!final && !io.stderr.isTTY && now - lastLine < 1000) return;
      lastLine = now;
      shown = true;
      const amount =
        total !== undefined && total > 0
          ? `${Math.min(100, Math.floor((received / total) * 100))}% (${formatBytes(received)} of ${formatBytes(total)})`
          : formatBytes(received);
      const text = `downloading ${name}@${version}  ${amount}`;
      io.stderr.write(io.stderr.isTTY ? `\r\u001b[K${text}${final ? '\n' : ''}` : `${text}\n`);
    };
    const timer = setInterval(() => render(false), 250);
    timer.unref();
    const finish = () => {
      clearInterval(timer);
      active.delete(finish);
      if (shown) render(true);
    };
    active.add(finish);
    return (bytes, declared) => {
      received = bytes;
      if (declared !== undefined) total = declared;
      if (total !== undefined && received >= total) finish();
    };
  };
  return {
    onDownload,
    stop: () => {
      for (const finish of [...active]) finish();
    },
  };
}

/** Runs `work` with download progress shown, and ends every progress line when it settles. */
export async function withDownloadProgress<T>(
  io: CliIo,
  work: (onDownload: DownloadListener) => Promise<T>,
): Promise<T> {
  const progress = createDownloadProgress(io);
  try {
    return await work(progress.onDownload);
  } finally {
    progress.stop();
  }
}
