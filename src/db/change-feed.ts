import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { type AreaMask, allAreas } from "../shared/data-areas.js";
import { decodeLiveEvent, type LiveEvent } from "../shared/live/live-events.js";

/**
 * The channel the projects trigger announces on (migration 2026-11-24T17-00_change-notifications);
 * live events ride on it too (shared/live/live-recorder.ts), and the tests send markers through it
 * to know the feed has caught up.
 */
export const channel = "eventgraph_project_changes";

/**
 * The application_name of a feed's connection, followed by the process id.
 * @internal read by test/api/cache-invalidation.test.ts
 */
export const changeFeedApplicationName = "eventgraph-changes-";

/** Hears other processes' live events, and that some may have been missed (the connection lost). */
export interface LiveListener {
  event(event: LiveEvent): void;
  lost(): void;
}

/** Called with each project change any process committed: the project and the areas written. */
export type ChangeListener = (projectId: string, areas: AreaMask) => void;

/**
 * PostgreSQL's push channel for other processes' writes: one connection of its own that LISTENs to
 * the project change notifications, so a server process evicts its cached answers as any process
 * commits, and a cache hit needs no query to know it is current.
 *
 * `epoch()` is the response cache's "nothing was missed" counter: it stays the same while the
 * connection listens, changes when a new connection starts listening (notifications sent meanwhile
 * are lost, so every cached answer is checked against the database once more), and is undefined
 * while not listening (then every hit is checked, as without a push channel).
 *
 * Delivery is asynchronous: an answer may be served for the moment between another process's
 * commit and its notification arriving, as with any push channel (Redis too). Normally a fraction of
 * a millisecond, it grew past the CLI's exit on a loaded machine, and a rotated token was accepted
 * once more. So a write that can take access away waits, after its commit, until every listening
 * process has heard of it (`heardEverywhere`): revocation holds from the very next request.
 *
 * This process's own commits are left out (`isOwnBackend`: the backend that sent the notification
 * is one of this process's pooled connections). Each of them already evicted at once, after its
 * commit (shared/project-changes.ts), as on SQLite, whose data_version moves only for other
 * connections. Heard again a moment later, it evicted a second time the answers computed since,
 * a miss each under a stream of check-ins (and made tests that cache right after a write flaky).
 * So a process's own writes must announce themselves (ProjectChanges), as on SQLite; every other
 * writer (another server, the CLI, plain SQL) is covered by the database's triggers (migration
 * 2026-11-28T10-00_access-versions). Moving the epoch on this process's own access notifications was
 * tried: every settings edit then sent every cached answer of every project to the database once.
 */
export class ChangeFeed {
  private client: pg.Client | undefined;
  private listening = false;
  private generation = 0;
  private closed = false;
  private retryMs = minRetryMs;
  private timer: NodeJS.Timeout | undefined;
  private beat: NodeJS.Timeout | undefined;
  /** Whether the last heartbeat's query is still unanswered. */
  private beatPending = false;
  private readonly listeners = new Set<ChangeListener>();
  private readonly liveListeners = new Set<LiveListener>();

  /** The fence every caller of `heardEverywhere` from now on waits for; not sent yet. */
  private nextFence: Promise<void> | undefined;
  /** The fence sent and waiting for its answers. */
  private sentFence: Promise<void> = Promise.resolve();

  /**
   * `isOwnBackend`: whether a backend process id is one of this process's pooled connections.
   * `fenceTimeoutMs`: how long `heardEverywhere` waits for a listener that does not answer.
   * `heartbeatMs`: how often the listening connection is asked a query (see `heartbeat`).
   */
  constructor(
    private readonly url: string,
    private readonly isOwnBackend: (pid: number) => boolean = () => false,
    // Long enough for a listener on a loaded machine; a wait this long means one is stuck or gone.
    private readonly fenceTimeoutMs = 2_000,
    private readonly heartbeatMs = 5_000,
  ) {}

  /** A number that stays the same while no notification can have been missed; undefined while not listening. */
  epoch(): number | undefined {
    return this.listening ? this.generation : undefined;
  }

  /** Calls `listener` with every change from now on; connects on the first subscription. */
  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    if (!this.client && !this.timer && !this.closed) void this.connect();
    return () => this.listeners.delete(listener);
  }

  /**
   * Calls `listener.event` with every live event other processes commit (shared/live/live-events.ts:
   * their NOTIFY rides on this channel), and `listener.lost` whenever the connection is lost, since
   * events may be missed from then on; connects on the first subscription.
   */
  subscribeLive(listener: LiveListener): () => void {
    this.liveListeners.add(listener);
    if (!this.client && !this.timer && !this.closed) void this.connect();
    return () => this.liveListeners.delete(listener);
  }

  /** Stops listening for good. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.beat);
    const client = this.client;
    this.client = undefined;
    this.listening = false;
    await client?.end().catch(() => {});
  }

  private async connect(): Promise<void> {
    this.timer = undefined;
    const client = new pg.Client({
      connectionString: this.url,
      connectionTimeoutMillis: 5_000,
      keepAlive: true,
      // How an operator (or a test) tells this connection apart in pg_stat_activity (until it
      // listens, when it takes its final name).
      application_name: `eventgraph-changes-starting-${process.pid}`,
    });
    this.client = client;
    client.on("notification", (message) => {
      const payload = message.payload ?? "";
      // A fence is answered even from this process's own writer: it waits for every listener.
      if (payload.startsWith(fencePrefix)) confirm(client, payload);
      else if (!this.isOwnBackend(message.processId)) this.deliver(payload);
    });
    // Errors and the end of the connection both mean notifications may be lost from now on.
    client.on("error", () => this.lose(client));
    client.on("end", () => this.lose(client));
    try {
      await client.connect();
      // Named only once it listens: a fence waits for the connections carrying the name
      // (heardEverywhere), and one that is not listening yet would never answer.
      await client.query(
        `listen ${channel}; set application_name = '${changeFeedApplicationName}${process.pid}'`,
      );
    } catch {
      this.lose(client);
      return;
    }
    if (this.client !== client) return;
    this.generation += 1;
    this.listening = true;
    this.retryMs = minRetryMs;
    this.beatPending = false;
    this.beat = setInterval(() => this.heartbeat(client), this.heartbeatMs);
    this.beat.unref();
  }

  /**
   * A connection that went silent without closing (the database's host lost, a firewall dropping an
   * idle flow) raises no error for hours (TCP keepalive's default), and meanwhile the process would
   * trust everything it remembers and caches while hearing of no revocation, and no fence would wait
   * for it either (its backend is gone). A query per beat that is still unanswered at the next
   * beat ends the connection: the epoch turns undefined (every hit checked, nothing remembered)
   * until a new connection listens.
   */
  private heartbeat(client: pg.Client): void {
    if (this.client !== client) return;
    if (this.beatPending) {
      this.lose(client);
      return;
    }
    this.beatPending = true;
    client.query("select 1").then(
      () => {
        if (this.client === client) this.beatPending = false;
      },
      () => this.lose(client),
    );
  }

  /**
   * Resolves once every process that listens for changes (its feed) has handled every notification
   * committed before the call: sent after a commit, it makes the write's effect hold on every server
   * process from the very next request. A fence notification follows the commit's on the channel,
   * and a listener handles its notifications in commit order, so its answer means the change was
   * delivered. Never rejects: the write has committed.
   *
   * Concurrent callers share one fence: a fence already sent may have gone before their commit, so
   * they wait for the next one, sent once it is answered. A process so has at most one fence (and
   * its connection) at a time, however many writes an app sends at once.
   */
  heardEverywhere(): Promise<void> {
    if (!this.nextFence) {
      this.nextFence = this.sentFence.then(() => {
        this.nextFence = undefined;
        this.sentFence = this.fence();
        return this.sentFence;
      });
    }
    return this.nextFence;
  }

  /**
   * Sends one fence and waits for every feed of the database to answer it, at most
   * `fenceTimeoutMs`: a listener that does not answer by then is stuck or gone (and a lost
   * connection starts a new epoch anyway).
   */
  private async fence(): Promise<void> {
    const id = randomUUID();
    const waiting = new Set<number>();
    let allHeard: () => void = () => {};
    const heard = new Promise<void>((resolve) => {
      allHeard = resolve;
    });
    const client = new pg.Client({
      connectionString: this.url,
      connectionTimeoutMillis: 5_000,
      application_name: `eventgraph-fence-${process.pid}`,
    });
    client.on("notification", (message) => {
      if (message.payload !== id) return;
      waiting.delete(message.processId);
      if (waiting.size === 0) allHeard();
    });
    client.on("error", () => allHeard());
    const gaveUp = new AbortController();
    try {
      await client.connect();
      await client.query(`listen ${heardChannel}`);
      const { rows } = await client.query<{ pid: number }>(
        "select pid from pg_stat_activity where datname = current_database() and starts_with(application_name, $1)",
        [changeFeedApplicationName],
      );
      for (const row of rows) waiting.add(row.pid);
      if (waiting.size === 0) return;
      await client.query("select pg_notify($1, $2)", [channel, `${fencePrefix}${id}`]);
      const timeout = sleep(this.fenceTimeoutMs, undefined, { signal: gaveUp.signal }).catch(() => {});
      await Promise.race([heard, timeout]);
    } catch {
      // The database went away after the commit: every listener lost its connection too.
    } finally {
      gaveUp.abort();
      await client.end().catch(() => {});
    }
  }

  private deliver(payload: string): void {
    const live = decodeLiveEvent(payload);
    if (live) {
      for (const listener of this.liveListeners) listener.event(live);
      return;
    }
    const [projectId, mask] = payload.split(":");
    if (!projectId) return;
    const areas = Number(mask) || allAreas;
    for (const listener of this.listeners) listener(projectId, areas);
  }

  private lose(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.listening = false;
    clearInterval(this.beat);
    client.removeAllListeners("notification");
    client.end().catch(() => {});
    for (const listener of this.liveListeners) listener.lost();
    if (this.closed) return;
    // The database is down or restarting: retry, backing off to a retry every 30 s.
    this.timer = setTimeout(() => void this.connect(), this.retryMs);
    this.timer.unref();
    this.retryMs = Math.min(this.retryMs * 2, maxRetryMs);
  }
}

/** Answers a fence (heardEverywhere): by the time it is read, every earlier change was delivered. */
function confirm(client: pg.Client, payload: string): void {
  client.query("select pg_notify($1, $2)", [heardChannel, payload.slice(fencePrefix.length)]).catch(() => {});
}

/** The channel listeners answer fences on; only a waiting writer listens to it. */
const heardChannel = "eventgraph_changes_heard";
const fencePrefix = "fence:";
const minRetryMs = 250;
const maxRetryMs = 30_000;
