import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";

/**
 * Counts, every 5 ms until `stop`, the connections of the database at `url` named `applicationName`
 * in pg_stat_activity; `stop` answers the most seen at once. For tests that bound how many
 * connections something opens, however many callers it has.
 */
export async function watchConnections(
  url: string,
  applicationName: string,
): Promise<{ stop(): Promise<number> }> {
  const observer = new pg.Client({ connectionString: url });
  await observer.connect();
  let most = 0;
  let watching = true;
  const watch = (async () => {
    while (watching) {
      const { rows } = await observer.query<{ n: string }>(
        "select count(*) as n from pg_stat_activity where application_name = $1",
        [applicationName],
      );
      most = Math.max(most, Number(rows[0]?.n ?? 0));
      await sleep(5);
    }
  })();
  return {
    async stop() {
      watching = false;
      try {
        await watch;
      } finally {
        await observer.end();
      }
      return most;
    },
  };
}
