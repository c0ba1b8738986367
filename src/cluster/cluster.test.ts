import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { testEngines } from "../../test/helpers/engines.js";
import { createProject } from "../../test/helpers/factories.js";
import { redisTestUrl, uniqueRedisPrefix } from "../../test/helpers/redis.js";
import { redisMissing } from "../../test/helpers/requirements.js";
import { createTestContext, type TestContext } from "../../test/helpers/test-services.js";
import { callerView, responseCacheKey } from "../graphql/cache/cache-key.js";
import { systemActor } from "../modules/access/actor.js";
import { createServices, type Services } from "../services.js";
import { type Cluster, connectCluster } from "./cluster.js";

function cacheProject(services: Services, projectId: string): string {
  const key = responseCacheKey({
    view: callerView("2026-09-01", { kind: "public" }),
    query: "{ project { name } }",
    variables: { id: projectId },
  });
  assert.equal(services.responseCache.store(key, "{}", [projectId], services.responseCache.begin()), true);
  return key;
}

const redisSkip = await redisMissing();

for (const engine of testEngines()) {
  describe(`cluster wiring (${engine.name})`, () => {
    let ctx: TestContext;
    const clusters: Cluster[] = [];
    before(async () => {
      ctx = await createTestContext(engine);
    });
    after(async () => {
      await Promise.all(clusters.map((cluster) => cluster.close()));
      await ctx.close();
    });

    test("a project write through the service drops its cached responses, and only those", async () => {
      const { project } = await createProject(ctx.services);
      const { project: other } = await createProject(ctx.services);
      const key = cacheProject(ctx.services, project.id);
      const otherKey = cacheProject(ctx.services, other.id);
      await ctx.services.projects.update(systemActor, project.id, { name: "Renamed" });
      assert.equal(ctx.services.responseCache.get(key), undefined);
      assert.ok(ctx.services.responseCache.get(otherKey));
    });

    test("two processes share one rate budget through Redis", { skip: redisSkip }, async () => {
      const keyPrefix = uniqueRedisPrefix();
      const processes: Services[] = [];
      for (let i = 0; i < 2; i += 1) {
        const cluster = await connectCluster({ redisUrl: redisTestUrl }, ctx.services.logger, { keyPrefix });
        clusters.push(cluster);
        processes.push(createServices(ctx.database, ctx.config, ctx.services.logger, cluster));
      }
      const [a, b] = processes as [Services, Services];
      const { project } = await createProject(a);
      assert.equal((await a.rateLimiter.consume(`app:${project.id}`, 8, 10)).allowed, true);
      const overB = await b.rateLimiter.consume(`app:${project.id}`, 3, 10);
      assert.deepEqual([overB.allowed, overB.remaining], [false, 2]);
    });
  });
}

describe("cluster without Redis", () => {
  test("stays in process when REDIS_URL is not set", async () => {
    const cluster = await connectCluster({ redisUrl: undefined });
    assert.equal(cluster.redis, undefined);
    assert.equal(cluster.readiness(), undefined);
    await cluster.close();
  });

  test("fails the start-up when the configured Redis does not answer", async () => {
    await assert.rejects(
      connectCluster({ redisUrl: "redis://127.0.0.1:1" }),
      /^Error: Redis at 127.0.0.1:1 did not answer: connect ECONNREFUSED/,
    );
  });
});
