// The API explorer: GraphiQL with a token field, and a status line showing what the server reports
// about each response (cost, rate-limit budget, cache). Bundled by scripts/build-explorer.mjs.
import "./monaco-workers.js";
import "graphiql/style.css";
import { GraphiQL } from "graphiql";
import { useCallback, useState } from "react";
import { createRoot } from "react-dom/client";

const tokenKey = "eventgraph-explorer-token";

// The token stays in this tab only (sessionStorage): it is a password.
function storedToken() {
  try {
    return sessionStorage.getItem(tokenKey) ?? "";
  } catch {
    return "";
  }
}

function describeCost(cost) {
  if (cost === undefined || cost === null) return undefined;
  if (typeof cost === "object" && "requestedQueryCost" in cost) {
    return `${cost.requestedQueryCost}${cost.points === undefined ? "" : ` (${cost.points} points charged)`}`;
  }
  if (typeof cost === "object") {
    return Object.entries(cost)
      .map(([key, value]) => `${key} ${typeof value === "object" ? JSON.stringify(value) : value}`)
      .join(", ");
  }
  return String(cost);
}

/** What the server said about one response, for the status line. */
function summarize(response, body) {
  const extensions = (body && typeof body === "object" && body.extensions) || {};
  const header = (name) => response.headers.get(name) ?? undefined;
  const reset = header("x-ratelimit-reset");
  return {
    status: response.status,
    cost: describeCost(extensions.cost),
    limit: header("x-ratelimit-limit"),
    remaining: header("x-ratelimit-remaining"),
    reset,
    retryAfter: header("retry-after"),
    cached: extensions.cached,
    requestId: header("x-request-id"),
    version: header("eventgraph-version"),
    sunset: header("sunset"),
  };
}

function StatusLine({ summary }) {
  if (!summary)
    return (
      <output className="explorer-status" data-testid="status">
        No request yet.
      </output>
    );
  const parts = [`HTTP ${summary.status}`];
  if (summary.version !== undefined) parts.push(`version ${summary.version}`);
  if (summary.sunset !== undefined) parts.push(`uses fields going away on ${summary.sunset}`);
  parts.push(summary.cost === undefined ? "cost: not reported" : `cost: ${summary.cost}`);
  if (summary.remaining !== undefined) {
    parts.push(`rate limit: ${summary.remaining} of ${summary.limit ?? "?"} points left`);
    // x-ratelimit-reset is the Unix time (in seconds) at which the window refills.
    if (summary.reset !== undefined) {
      parts.push(`resets at ${new Date(Number(summary.reset) * 1000).toLocaleTimeString()}`);
    }
  } else {
    parts.push("rate limit: not reported");
  }
  if (summary.retryAfter !== undefined) parts.push(`retry after ${summary.retryAfter} s`);
  if (summary.cached !== undefined) parts.push(summary.cached ? "served from cache" : "not cached");
  return (
    <output className="explorer-status" data-testid="status" title={`request id ${summary.requestId ?? "?"}`}>
      {parts.join(" · ")}
    </output>
  );
}

// The API versions the server answers, newest first, and the one to open: the page names them
// (docs.routes.ts); `?version=` in the address chooses one.
const root = document.getElementById("explorer");
const versions = JSON.parse(root?.dataset.versions ?? "[]");
const askedVersion = new URLSearchParams(location.search).get("version");
const firstVersion = versions.includes(askedVersion) ? askedVersion : (versions[0] ?? "");

function Explorer() {
  const [token, setToken] = useState(storedToken);
  const [version, setVersion] = useState(firstVersion);
  const [summary, setSummary] = useState(undefined);

  const fetcher = useCallback(
    async (params) => {
      const headers = {
        "content-type": "application/json",
        accept: "application/graphql-response+json, application/json",
      };
      if (token.trim()) headers.authorization = `Bearer ${token.trim()}`;
      // Each version is its own schema: a new fetcher makes GraphiQL introspect it again.
      if (version) headers["eventgraph-version"] = version;
      const response = await fetch("/api/graphql", {
        method: "POST",
        headers,
        body: JSON.stringify(params),
      });
      const text = await response.text();
      let body;
      try {
        body = JSON.parse(text);
      } catch {
        body = { errors: [{ message: `HTTP ${response.status}: ${text.slice(0, 200)}` }] };
      }
      // Introspection runs on load and on every token change; only the developer's queries count.
      if (!String(params.query ?? "").includes("__schema")) setSummary(summarize(response, body));
      return body;
    },
    [token, version],
  );

  const onToken = (event) => {
    const value = event.target.value;
    setToken(value);
    try {
      sessionStorage.setItem(tokenKey, value);
    } catch {
      // Private windows may refuse storage; the token then lives only in this page.
    }
  };

  return (
    <div className="explorer">
      <div className="explorer-bar">
        <label>
          API token{" "}
          <input
            type="password"
            name="token"
            value={token}
            onChange={onToken}
            placeholder="evg_… (empty: public requests)"
            autoComplete="off"
            spellCheck={false}
          />
        </label>
        <label>
          API version{" "}
          <select name="version" value={version} onChange={(event) => setVersion(event.target.value)}>
            {versions.map((name, index) => (
              <option key={name} value={name}>
                {index === 0 ? `${name} (newest)` : name}
              </option>
            ))}
          </select>
        </label>
        <StatusLine summary={summary} />
      </div>
      <div className="explorer-graphiql">
        <GraphiQL fetcher={fetcher} defaultQuery={defaultQuery} initialQuery={linkedQuery} />
      </div>
    </div>
  );
}

const defaultQuery = `# Paste your app's token above, put a project id below and press the run button.
query Project($id: ID! = "AbC1") {
  project(id: $id) {
    name
    startsAt
    sessions(first: 5) {
      totalCount
      edges { node { title startsAt } }
    }
  }
}
`;

// A link can carry a query to open (`/graphql/explorer/?query=...`), e.g. from the guides.
const linkedQuery = new URLSearchParams(location.search).get("query") ?? undefined;

if (root) createRoot(root).render(<Explorer />);
