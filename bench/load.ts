import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import autocannon from "autocannon";

/** What one round of load measured. */
export interface RoundResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  /** Responses that were not 2xx/3xx, connection errors and timeouts: a valid round has none. */
  failures: number;
}

/** The bodies of one scenario, for both load generators. */
export interface RequestSource {
  /** The JSON body of the n-th request (n keeps counting across rounds, so no body repeats). */
  body(n: number): string;
  /** The same as a Lua function `body(n)` for wrk (whose scripts are Lua). */
  lua: string;
}

export type LoadGenerator = "wrk" | "autocannon";

/** Where wrk is expected (Debian's package); `WRK` in the bench's environment overrides it. */
const wrkPath = process.env.WRK ?? "/usr/bin/wrk";

/**
 * wrk when installed (C, one thread: it loads a Node server to its limit where autocannon, itself
 * JavaScript, tops out near 10,000 req/s on these machines); autocannon only when asked for.
 */
export function chooseLoadGenerator(allowAutocannon: boolean): LoadGenerator {
  if (existsSync(wrkPath)) return "wrk";
  if (allowAutocannon) return "autocannon";
  process.stderr.write(
    `wrk is not installed at ${wrkPath}. Install it (Debian/Ubuntu: apt-get install -y wrk) or run\n` +
      "`npm run bench -- --autocannon` to measure with autocannon, whose ceiling (about 10,000 req/s)\n" +
      "lowers every ratio to the limit; the results then say so.\n",
  );
  process.exit(2);
}

const run = promisify(execFile);

/** A Lua string literal for any text. */
export function luaString(text: string): string {
  return `"${[...Buffer.from(text, "utf8")].map((b) => `\\${b}`).join("")}"`;
}

// The wrk script: builds each request from the scenario's body(n), reports JSON from done().
function wrkScript(source: RequestSource, headers: Record<string, string>, start: number): string {
  const headerLines = Object.entries(headers)
    .map(([name, value]) => `wrk.headers[${luaString(name)}] = ${luaString(value)}`)
    .join("\n");
  return `
${headerLines}
wrk.method = "POST"
local n = ${start}
local function b64url(s)
  local chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
  local out = {}
  for i = 1, #s, 3 do
    local a, b, c = s:byte(i, i + 2)
    local v = a * 65536 + (b or 0) * 256 + (c or 0)
    local k = 4
    if not b then k = 2 elseif not c then k = 3 end
    for j = 1, k do
      local idx = math.floor(v / 2 ^ (6 * (4 - j))) % 64
      out[#out + 1] = chars:sub(idx + 1, idx + 1)
    end
  end
  return table.concat(out)
end
${source.lua}
request = function()
  local text = body(n)
  n = n + 1
  return wrk.format(nil, nil, nil, text)
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('{"requests":%d,"durationUs":%d,"failures":%d,"p50Us":%d,"p99Us":%d}\\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.status + e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
`;
}

/** One round: `connections` keep-alive connections POST the scenario's bodies for `seconds`. */
export async function runRound(options: {
  generator: LoadGenerator;
  url: string;
  seconds: number;
  connections: number;
  headers: Record<string, string>;
  source: RequestSource;
  /** Hands out the n of the round's first request and reserves `count` after it. */
  reserve: (count: number) => number;
}): Promise<RoundResult> {
  return options.generator === "wrk" ? wrkRound(options) : autocannonRound(options);
}

// Requests one round can send at most: each round starts past the previous one's numbers.
const maxRequestsPerRound = 10_000_000;

async function wrkRound(options: Parameters<typeof runRound>[0]): Promise<RoundResult> {
  const dir = mkdtempSync(join(tmpdir(), "eventgraph-wrk-"));
  const script = join(dir, "round.lua");
  try {
    writeFileSync(script, wrkScript(options.source, options.headers, options.reserve(maxRequestsPerRound)));
    const { stdout } = await run(
      wrkPath,
      [
        "-t1",
        `-c${options.connections}`,
        // wrk takes whole seconds.
        `-d${Math.max(1, Math.round(options.seconds))}s`,
        "--timeout",
        "10s",
        "-s",
        script,
        options.url,
      ],
      { maxBuffer: 1 << 20 },
    );
    const line = stdout.trim().split("\n").at(-1) ?? "";
    const r = JSON.parse(line) as {
      requests: number;
      durationUs: number;
      failures: number;
      p50Us: number;
      p99Us: number;
    };
    return {
      requestsPerSecond: r.requests / (r.durationUs / 1e6),
      p50Ms: r.p50Us / 1000,
      p99Ms: r.p99Us / 1000,
      requests: r.requests,
      failures: r.failures,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function autocannonRound(options: Parameters<typeof runRound>[0]): Promise<RoundResult> {
  let n = options.reserve(maxRequestsPerRound);
  const result = await autocannon({
    url: options.url,
    method: "POST",
    connections: options.connections,
    duration: options.seconds,
    headers: options.headers,
    requests: [
      {
        method: "POST",
        setupRequest: (request) => ({ ...request, body: options.source.body(n++) }),
      },
    ],
  });
  return {
    requestsPerSecond: result.requests.total / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    failures: result.non2xx + result.errors + result.timeouts,
  };
}
