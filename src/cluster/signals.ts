import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import type { Logger } from "../logger.js";

/**
 * The topics processes tell each other about; the payload is an id. A topic is added with its
 * first publisher (a `token-revoked` topic had none and was removed).
 */
const signalTopics = ["project-changed"] as const;

/** `project-changed`: a project id whose data changed. */
type SignalTopic = (typeof signalTopics)[number];

/** "up" while signals from other processes arrive; "down" while some may be missed. */
type SignalStatus = "up" | "down";

/** A publish/subscribe bus between the server processes (or within one). */
export interface Signals {
  /**
   * Delivers `payload` to this process's subscribers before returning, then to the other
   * processes. Never rejects: a failure to reach the others is logged (they are "down" meanwhile).
   */
  publish(topic: SignalTopic, payload: string): Promise<void>;
  /** Calls `listener` for every payload published on `topic`, here or elsewhere; returns the unsubscribe function. */
  subscribe(topic: SignalTopic, listener: (payload: string) => void): () => void;
  /** Calls `listener` whenever the link to the other processes goes up or down; returns the unsubscribe function. */
  onStatus(listener: (status: SignalStatus) => void): () => void;
  /** The current link status (always "up" for the in-process bus). */
  readonly status: SignalStatus;
  /** Stops receiving; closes the subscriber connection it opened. */
  close(): Promise<void>;
}

class Listeners<T> {
  private readonly listeners = new Set<(value: T) => void>();
  constructor(private readonly logger: Logger | undefined) {}
  add(listener: (value: T) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  emit(value: T): void {
    for (const listener of this.listeners) {
      // One failing listener must not keep the others (a cache invalidation) from running.
      try {
        listener(value);
      } catch (error) {
        this.logger?.error({ err: error }, "signals: a listener failed");
      }
    }
  }
}

function localBus(logger: Logger | undefined) {
  const topics = new Map<SignalTopic, Listeners<string>>(signalTopics.map((t) => [t, new Listeners(logger)]));
  return {
    deliver: (topic: SignalTopic, payload: string) => topics.get(topic)?.emit(payload),
    subscribe: (topic: SignalTopic, listener: (payload: string) => void) =>
      topics.get(topic)?.add(listener) ?? (() => false),
  };
}

/** A bus for a single process: no Redis configured. */
export function createLocalSignals(logger?: Logger): Signals {
  const bus = localBus(logger);
  return {
    async publish(topic, payload) {
      bus.deliver(topic, payload);
    },
    subscribe: bus.subscribe,
    onStatus: () => () => false,
    status: "up",
    async close() {},
  };
}

/** How the Redis bus connects. */
export interface RedisSignalsOptions {
  /** The process's command connection (owned by the caller), used to publish; a subscriber is duplicated from it. */
  redis: Redis;
  /** Prefix of the channel names, so deployments (or tests) sharing one Redis stay apart. */
  keyPrefix?: string;
  logger?: Logger | undefined;
}

interface Envelope {
  origin: string;
  payload: string;
}

/**
 * A bus shared by every process on the same Redis (pub/sub on a separate subscriber connection).
 * Resolves once subscribed, so nothing published afterwards is missed. When the subscriber
 * connection drops, the status turns "down" until it has reconnected and subscribed again.
 */
export async function connectRedisSignals(options: RedisSignalsOptions): Promise<Signals> {
  const { redis, logger } = options;
  const keyPrefix = options.keyPrefix ?? "eventgraph:";
  const origin = randomUUID();
  const bus = localBus(logger);
  const statusListeners = new Listeners<SignalStatus>(logger);
  const channelOf = (topic: SignalTopic) => `${keyPrefix}signal:${topic}`;
  const topicOf = new Map<string, SignalTopic>(signalTopics.map((t) => [channelOf(t), t]));
  let status: SignalStatus = "down";
  let initialized = false;
  let closing = false;
  const setStatus = (next: SignalStatus) => {
    if (next === status) return;
    status = next;
    statusListeners.emit(next);
  };

  // Subscriptions are renewed by hand on every (re)connection, so "up" is only reported once
  // the server has confirmed them; ioredis's own resubscription reports ready before that.
  const subscriber = redis.duplicate({
    lazyConnect: true,
    autoResubscribe: false,
    commandTimeout: undefined,
    connectionName: `${keyPrefix}signals`,
  });
  const subscribeAll = async () => {
    await subscriber.subscribe(...signalTopics.map(channelOf));
    setStatus("up");
  };
  subscriber.on("message", (channel: string, message: string) => {
    const topic = topicOf.get(channel);
    if (!topic) return;
    let envelope: Envelope;
    try {
      envelope = JSON.parse(message) as Envelope;
    } catch {
      logger?.warn({ channel }, "signals: ignored a malformed message");
      return;
    }
    // Our own messages were delivered locally when published.
    if (envelope.origin !== origin && typeof envelope.payload === "string")
      bus.deliver(topic, envelope.payload);
  });
  subscriber.on("close", () => setStatus("down"));
  subscriber.on("ready", () => {
    // The first connection is subscribed below, where a failure can still fail the start-up.
    if (!initialized || closing) return;
    subscribeAll().catch((error: unknown) => {
      logger?.warn({ err: error }, "signals: could not resubscribe; retrying on the next reconnection");
      subscriber.disconnect(true);
    });
  });
  subscriber.on("error", (error: Error) => logger?.warn({ err: error }, "signals: Redis subscriber error"));
  try {
    await subscriber.connect();
    await subscribeAll();
  } catch (error) {
    subscriber.disconnect();
    throw error;
  }
  initialized = true;

  return {
    async publish(topic, payload) {
      bus.deliver(topic, payload);
      // Not queued for later while Redis is away: the others' caches are suspended meanwhile (their
      // subscriber is down too) or check data versions on every hit, so a lost signal is harmless.
      if (redis.status !== "ready") return;
      try {
        await redis.publish(channelOf(topic), JSON.stringify({ origin, payload } satisfies Envelope));
      } catch (error) {
        logger?.error({ err: error, topic }, "signals: could not tell the other processes");
      }
    },
    subscribe: bus.subscribe,
    onStatus: (listener) => statusListeners.add(listener),
    get status() {
      return status;
    },
    async close() {
      closing = true;
      await subscriber.quit().catch(() => subscriber.disconnect());
    },
  };
}
