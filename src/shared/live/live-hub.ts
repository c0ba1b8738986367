import { AppError, ErrorCode } from "../../errors.js";
import type { LiveEvent } from "./live-events.js";

/** What a stream's source yields: an event to present, or (counters) a sign to read them again. */
export interface LiveSignal {
  projectId: string;
  /** The event; undefined for the first (or a coalesced) signal of counters. */
  event?: LiveEvent;
}

/** What one subscription listens to, and how to ask whether it still may. */
export interface Listening {
  projectId: string;
  /** The event types it hears. */
  types: ReadonlySet<string>;
  /**
   * Counters, not events: a signal waiting in the queue already stands for every later event (the
   * subscriber reads the figures afresh), so a burst costs one read, not one per event.
   */
  coalesce: boolean;
  /** Rejects when `caller` (its credentials read afresh) may no longer listen. */
  stillAllowed(caller: unknown): Promise<void>;
}

/** A stream opened on one process (one HTTP response), admitted against the limits. */
interface Stream {
  appId: string;
  ip: string;
  listening: Listening | undefined;
  /** The caller as its credentials say now (a rotated token, a deleted app: rejects). */
  reauthenticate: () => Promise<unknown>;
  queue: LiveSignal[];
  wake: (() => void) | undefined;
  ended: AppError | undefined;
  /** Called once when the hub ends the stream: its response says why and closes. */
  onEnd: (reason: AppError) => void;
}

/** Signals a stream may hold unread before it is cut as too slow (SLOW_SUBSCRIBER). */
const maxQueuedSignals = 256;
/** How often every stream's credentials are read afresh even when nothing announced a change. */
const recheckEveryMs = 30_000;

/**
 * The subscriptions of this process: who listens to which project, within the limits of open
 * streams per app and per client IP, and what ends them. Events arrive after their commit from the
 * live recorder (this process's writes) and from the change feed (other processes', live-events.ts);
 * a change of a project's access area (a revoked or narrowed link, a rotated token, a deleted app:
 * database triggers bump it whoever writes) makes every stream of that project ask `stillAllowed`,
 * and ends those no longer allowed. When this process cannot hear other processes (the feed lost),
 * `endAll` ends every stream: it fails closed, and clients reconnect.
 */
export class LiveHub {
  private readonly streams = new Map<string, Stream>();
  private readonly byProject = new Map<string, Set<Stream>>();
  private readonly perApp = new Map<string, number>();
  private readonly perIp = new Map<string, number>();
  private readonly rechecking = new Set<string>();
  /** Projects whose access changed again while their streams were being checked. */
  private readonly recheckAgain = new Set<string>();
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly limits: { streamsPerApp: number; streamsPerIp: number }) {
    this.timer = setInterval(() => this.accessChangedEverywhere(), recheckEveryMs);
    this.timer.unref();
  }

  /** Streams open now (metrics, the bench). */
  get size(): number {
    return this.streams.size;
  }

  /** Streams listening to a project now (tests and the bench wait for a subscription with it). */
  listening(projectId: string): number {
    return this.byProject.get(projectId)?.size ?? 0;
  }

  /**
   * Opens stream `id` for an app's request from `ip`, or throws RATE_LIMITED past a limit.
   * `onEnd` is told why it ended (once); `close(id)` must follow when the response is gone.
   */
  open(
    id: string,
    caller: { appId: string; ip: string; reauthenticate: () => Promise<unknown> },
    onEnd: (reason: AppError) => void,
  ): void {
    const { appId, ip, reauthenticate } = caller;
    const { streamsPerApp, streamsPerIp } = this.limits;
    if ((this.perApp.get(appId) ?? 0) >= streamsPerApp)
      throw streamLimit(`This app has ${streamsPerApp} streams open on this server`, streamsPerApp);
    if ((this.perIp.get(ip) ?? 0) >= streamsPerIp)
      throw streamLimit(`This address has ${streamsPerIp} streams open on this server`, streamsPerIp);
    this.perApp.set(appId, (this.perApp.get(appId) ?? 0) + 1);
    this.perIp.set(ip, (this.perIp.get(ip) ?? 0) + 1);
    const stream = {
      appId,
      ip,
      reauthenticate,
      listening: undefined,
      queue: [],
      wake: undefined,
      ended: undefined,
      onEnd,
    };
    this.streams.set(id, stream);
  }

  /** Forgets stream `id` (its response closed); ends its source if still open. */
  close(id: string): void {
    const stream = this.streams.get(id);
    if (!stream) return;
    this.streams.delete(id);
    const projectId = stream.listening?.projectId;
    const projectStreams = projectId ? this.byProject.get(projectId) : undefined;
    projectStreams?.delete(stream);
    if (projectId && projectStreams?.size === 0) this.byProject.delete(projectId);
    countDown(this.perApp, stream.appId);
    countDown(this.perIp, stream.ip);
    stream.ended ??= new AppError(ErrorCode.BAD_REQUEST, "The stream was closed");
    stream.wake?.();
  }

  /** The source of stream `id`'s subscription: signals until the stream ends. */
  listen(id: string, listening: Listening): AsyncIterableIterator<LiveSignal> {
    const stream = this.streams.get(id);
    if (!stream || stream.listening) throw new Error("A subscription runs only on its own opened stream");
    stream.listening = listening;
    const projectStreams = this.byProject.get(listening.projectId) ?? new Set();
    this.byProject.set(listening.projectId, projectStreams);
    projectStreams.add(stream);
    // Counters are sent once at once: the screen shows the figures without waiting for a change.
    if (listening.coalesce) stream.queue.push({ projectId: listening.projectId, event: undefined });
    return signals(stream, () => this.close(id));
  }

  /** Hands a committed event to every stream of its project that listens to its type. */
  publish(event: LiveEvent): void {
    const streams = this.byProject.get(event.projectId);
    if (!streams) return;
    // One signal object for every stream: the streams that share a view execute it once
    // (graphql/streams/stream-route.ts).
    const signal: LiveSignal = { projectId: event.projectId, event };
    for (const stream of streams) {
      const listening = stream.listening;
      if (!listening?.types.has(event.type) || stream.ended) continue;
      if (listening.coalesce && stream.queue.length > 0) continue;
      if (stream.queue.length >= maxQueuedSignals) {
        end(stream, slowSubscriber());
        continue;
      }
      stream.queue.push(signal);
      stream.wake?.();
    }
  }

  /**
   * The project's access area changed: every stream of it asks again whether it may listen, one
   * round at a time per project, and ends if not. A change during a round starts one more round
   * after it (that round may have read the credentials before the change): a burst of changes
   * costs two rounds, and none is missed.
   */
  accessChanged(projectId: string): void {
    const streams = this.byProject.get(projectId);
    if (!streams) return;
    if (this.rechecking.has(projectId)) {
      this.recheckAgain.add(projectId);
      return;
    }
    this.rechecking.add(projectId);
    const checks = [...streams].map((stream) =>
      stream
        .reauthenticate()
        .then((caller) => stream.listening?.stillAllowed(caller))
        .catch((error: unknown) => {
          end(stream, error instanceof AppError ? error : new AppError(ErrorCode.FORBIDDEN, "Access ended"));
        }),
    );
    void Promise.all(checks).finally(() => {
      this.rechecking.delete(projectId);
      if (this.recheckAgain.delete(projectId)) this.accessChanged(projectId);
    });
  }

  /** Every project's streams check their access (a write the process could not attribute). */
  accessChangedEverywhere(): void {
    for (const projectId of this.byProject.keys()) this.accessChanged(projectId);
  }

  /** Ends every stream with `reason` (the process stops, or can no longer hear other processes). */
  endAll(reason: AppError): void {
    for (const stream of this.streams.values()) end(stream, reason);
  }

  /** Ends one stream with `reason` (its response could not keep up). */
  cut(id: string, reason: AppError): void {
    const stream = this.streams.get(id);
    if (stream) end(stream, reason);
  }

  /** Stops the periodic recheck. */
  stop(): void {
    clearInterval(this.timer);
  }
}

/** The refusal of a stream past a limit of open streams. */
function streamLimit(message: string, max: number): AppError {
  return new AppError(ErrorCode.RATE_LIMITED, `${message}; close one first`, { limit: "streams", max });
}

/** Why a subscriber that falls behind is cut rather than buffered for. */
export function slowSubscriber(): AppError {
  return new AppError(
    ErrorCode.SLOW_SUBSCRIBER,
    "The stream was cut: its subscriber did not read events as fast as they came; subscribe again and catch up with a query",
  );
}

function end(stream: Stream, reason: AppError): void {
  if (stream.ended) return;
  stream.ended = reason;
  stream.queue.length = 0;
  stream.onEnd(reason);
  stream.wake?.();
}

function countDown(counts: Map<string, number>, key: string): void {
  const left = (counts.get(key) ?? 1) - 1;
  if (left > 0) counts.set(key, left);
  else counts.delete(key);
}

/** The signals of a stream as an async iterator, until the stream ends (its response says why). */
function signals(stream: Stream, close: () => void): AsyncIterableIterator<LiveSignal> {
  let done = false;
  const iterator: AsyncIterableIterator<LiveSignal> = {
    async next() {
      while (!done) {
        if (stream.ended) break;
        const signal = stream.queue.shift();
        if (signal) return { value: signal, done: false };
        await new Promise<void>((resolve) => {
          stream.wake = resolve;
        });
        stream.wake = undefined;
      }
      return { value: undefined, done: true };
    },
    async return() {
      done = true;
      close();
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}
