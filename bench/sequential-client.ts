import { Agent, request } from "node:http";
import type { Scenario } from "./scenarios.js";

/**
 * One keep-alive connection sending a scenario's requests one after another, for the drills that
 * count what each request costs the server (allocation, instructions): the client's own connection
 * handling stays out of the server's counts, and no two requests overlap.
 */
export class SequentialClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });

  constructor(
    private readonly url: string,
    private readonly token: string,
  ) {}

  /** Sends the scenario's n-th request to `path`; rejects unless it is answered 200. */
  send(scenario: Scenario, n: number, path = "/api/graphql"): Promise<void> {
    const body = scenario.body(n);
    const headers: Record<string, string | number> = {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body),
    };
    if (scenario.authenticated) headers.authorization = `Bearer ${this.token}`;
    return new Promise((resolve, reject) => {
      const options = { method: "POST", headers, agent: this.agent };
      const outgoing = request(`${this.url}${path}`, options, (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          if (response.statusCode === 200) return resolve();
          const text = Buffer.concat(chunks).toString("utf8").slice(0, 300);
          reject(new Error(`${scenario.id}: HTTP ${response.statusCode}: ${text}`));
        });
      });
      outgoing.on("error", reject);
      outgoing.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
