import WebSocket from "ws";
import type { ChildServer } from "./processes.js";

/**
 * V8's sampling heap profiler in another process (a server started with `--inspect=127.0.0.1:0`),
 * driven through its inspector (the Chrome DevTools Protocol). It records the allocation site of
 * an allocation every 2 KiB on average, here including the objects either GC
 * has collected since: the bytes a stretch of requests allocated, and where. Four runs of 2,000
 * attendee-page misses gave 581–583 KiB each, where the GC trace's own `allocated` moved by up to a
 * third between runs (docs/performance.md, round twelve).
 */
export class HeapSampler {
  private next = 1;
  private readonly pending = new Map<
    number,
    { resolve: (result: unknown) => void; reject: (error: Error) => void }
  >();

  private constructor(private readonly socket: WebSocket) {
    socket.on("message", (data) => {
      const message = JSON.parse(String(data)) as { id?: number; result?: unknown };
      const answer = message.id === undefined ? undefined : this.pending.get(message.id);
      if (!answer || message.id === undefined) return;
      this.pending.delete(message.id);
      answer.resolve(message.result);
    });
    // A call must not wait for ever on a connection that is gone (a message past maxPayload closes it).
    socket.on("close", (code, reason) => {
      for (const { reject } of this.pending.values()) {
        reject(new Error(`The inspector connection closed (${code} ${String(reason)})`));
      }
      this.pending.clear();
    });
  }

  /** Connects to the inspector of `server`, whose address it printed on stderr when it started. */
  static async of(server: ChildServer): Promise<HeapSampler> {
    const url = server.stderr.map((line) => /Debugger listening on (ws:\S+)/.exec(line)?.[1]).find(Boolean);
    if (!url) throw new Error(`The server printed no inspector address: ${server.stderr.join("\n")}`);
    // The profile holds every sample (a few tens of bytes of JSON each): past ws's 100 MiB default.
    const socket = new WebSocket(url, { maxPayload: 1024 ** 3 });
    await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
    const sampler = new HeapSampler(socket);
    await sampler.call("HeapProfiler.enable");
    return sampler;
  }

  private call(method: string, params: Record<string, unknown> = {}): Promise<unknown> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.socket.send(JSON.stringify({ id, method, params }));
    });
  }

  start(): Promise<unknown> {
    return this.call("HeapProfiler.startSampling", {
      // A sample every 2 KiB on average: 500,000 for 2,000 attendee-page misses, a few tens of MB
      // of profile, and a statistical error well under 1 %.
      samplingInterval: 2048,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  }

  /** Stops sampling: the bytes allocated since `start`, by allocation site (function, file, line). */
  async stop(): Promise<Map<string, number>> {
    const { profile } = (await this.call("HeapProfiler.stopSampling")) as { profile: { head: SampleNode } };
    const sites = new Map<string, number>();
    const visit = (node: SampleNode) => {
      if (node.selfSize > 0) {
        const { functionName, url, lineNumber } = node.callFrame;
        const site = `${functionName || "(anonymous)"} ${shortUrl(url)}:${lineNumber + 1}`;
        sites.set(site, (sites.get(site) ?? 0) + node.selfSize);
      }
      for (const child of node.children) visit(child);
    };
    visit(profile.head);
    return sites;
  }

  close(): void {
    this.socket.close();
  }
}

/** A node of the profile's call tree: bytes allocated by this frame itself, and its callees. */
interface SampleNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: SampleNode[];
}

// Sites are named relative to what they run in: a dependency, our build, or Node itself. graphql-jit's
// compiled queries have no url, only their generated functions' names.
function shortUrl(url: string): string {
  return url.replace(/^.*\/node_modules\//, "").replace(/^.*\/dist\//, "");
}
