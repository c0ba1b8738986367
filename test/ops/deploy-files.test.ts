import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { parse } from "yaml";
import { sqliteEngine } from "../helpers/engines.js";
import { gql } from "../helpers/graphql.js";
import { repoRoot } from "../helpers/processes.js";
import { startTestServer } from "../helpers/test-server.js";

const token = "metrics-token-0123456789abcdef";

/** A PromQL expression and where it was found, for the messages. */
interface Expression {
  where: string;
  expr: string;
}

// biome-ignore lint/suspicious/noExplicitAny: a Prometheus rules file, checked field by field below
function alertExpressions(rules: any): Expression[] {
  assert.ok(Array.isArray(rules?.groups) && rules.groups.length > 0, "alerts.yaml has no groups");
  const out: Expression[] = [];
  for (const group of rules.groups) {
    assert.equal(typeof group.name, "string");
    for (const rule of group.rules) {
      const where = `alert ${rule.alert}`;
      assert.equal(typeof rule.alert, "string", JSON.stringify(rule));
      assert.match(String(rule.for), /^\d+[smh]$/, where);
      assert.ok(["page", "ticket"].includes(rule.labels?.severity), `${where}: severity`);
      assert.ok(rule.annotations?.summary, `${where}: summary`);
      out.push({ where, expr: String(rule.expr) });
    }
  }
  return out;
}

// biome-ignore lint/suspicious/noExplicitAny: a Grafana dashboard model, checked field by field below
function dashboardExpressions(dashboard: any): Expression[] {
  assert.equal(typeof dashboard.title, "string");
  assert.ok(Array.isArray(dashboard.panels) && dashboard.panels.length > 0, "the dashboard has no panels");
  const out: Expression[] = [];
  for (const panel of dashboard.panels) {
    if (panel.type === "row") continue;
    assert.ok(Array.isArray(panel.targets) && panel.targets.length > 0, `panel ${panel.title} has no query`);
    for (const target of panel.targets)
      out.push({ where: `panel ${panel.title}`, expr: String(target.expr) });
  }
  return out;
}

/** The metric names a PromQL expression reads. */
function metricsOf(expr: string): string[] {
  return [...expr.matchAll(/\beventgraph_[a-z0-9_]+/g)].map((m) => m[0]);
}

/** Every series name the scrape can contain: histograms expose _bucket, _count and _sum. */
function exportedNames(scrape: string): Set<string> {
  const names = new Set<string>();
  for (const match of scrape.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    const [, name, type] = match as unknown as [string, string, string];
    names.add(name);
    if (type === "histogram")
      for (const suffix of ["_bucket", "_count", "_sum"]) names.add(`${name}${suffix}`);
  }
  return names;
}

describe("deploy/ monitoring files", () => {
  test("are valid, and every metric they query is exported by /metrics", async () => {
    const alerts = alertExpressions(parse(readFileSync(join(repoRoot, "deploy", "alerts.yaml"), "utf8")));
    const dashboard = dashboardExpressions(
      JSON.parse(readFileSync(join(repoRoot, "deploy", "grafana-dashboard.json"), "utf8")),
    );
    assert.ok(alerts.length >= 5 && dashboard.length >= 5);

    const server = await startTestServer(sqliteEngine, { METRICS_TOKEN: token });
    let scrape: string;
    try {
      await gql(server.url, "{ __typename }");
      const response = await fetch(`${server.url}/metrics`, {
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(response.status, 200);
      scrape = await response.text();
    } finally {
      await server.close();
    }
    const exported = exportedNames(scrape);
    // The check itself: a name the server does not export is reported, whatever the files say.
    assert.ok(!exported.has("eventgraph_not_a_metric") && exported.has("eventgraph_db_up"));
    const missing: string[] = [];
    for (const { where, expr } of [...alerts, ...dashboard]) {
      const names = metricsOf(expr);
      assert.ok(names.length > 0, `${where} queries no eventgraph metric: ${expr}`);
      for (const name of names) if (!exported.has(name)) missing.push(`${where}: ${name}`);
    }
    assert.deepEqual(missing, [], "queried but not exported");
  });

  test("the runbook links of the alerts point at headings of docs/operations.md", () => {
    const doc = readFileSync(join(repoRoot, "docs", "operations.md"), "utf8");
    // GitHub's anchors: lower case, punctuation dropped, spaces to hyphens.
    const anchors = new Set(
      [...doc.matchAll(/^#+ (.+)$/gm)].map((m) =>
        (m[1] ?? "")
          .toLowerCase()
          .replace(/[^\p{L}\p{N} -]/gu, "")
          .replace(/ /g, "-"),
      ),
    );
    const rules = parse(readFileSync(join(repoRoot, "deploy", "alerts.yaml"), "utf8"));
    for (const rule of rules.groups.flatMap((g: { rules: unknown[] }) => g.rules)) {
      const runbook = (rule as { annotations: { runbook?: string } }).annotations.runbook;
      if (!runbook) continue;
      const [file, anchor] = runbook.split("#");
      assert.equal(file, "docs/operations.md");
      assert.ok(anchors.has(anchor ?? ""), `${runbook} names no heading`);
    }
  });
});
