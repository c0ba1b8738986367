import type { Logger } from "../logger.js";

/** The first run waits a minute, so a server's start is not slowed by housekeeping. */
const firstRunAfterMs = 60 * 1000;

/**
 * Runs `task` a minute after start and then every `everyMs`, on every server process: housekeeping
 * (pruning) that is idempotent, so processes need not agree who does it. A failure is logged as
 * `<what> failed` and the next run tries again. Returns the function that stops it.
 */
export function schedulePeriodic(
  what: string,
  task: () => Promise<unknown>,
  everyMs: number,
  logger: Logger,
): () => void {
  const run = () => {
    task().catch((error: unknown) => logger.warn({ err: error }, `${what} failed`));
  };
  const first = setTimeout(run, firstRunAfterMs);
  const every = setInterval(run, everyMs);
  // Timers never keep the process alive on their own (tests, the CLI).
  first.unref();
  every.unref();
  return () => {
    clearTimeout(first);
    clearInterval(every);
  };
}
