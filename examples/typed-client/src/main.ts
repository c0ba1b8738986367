// A typed Eventgraph API client: prints a project's published agenda, paging through the
// `sessions` connection. Types come from `npm run codegen` (see codegen.yml and README.md).
//
//   EVENTGRAPH_URL=http://localhost:4000 EVENTGRAPH_TOKEN=evg_... node dist/main.js <projectId>
import { ClientError, GraphQLClient } from "graphql-request";
import {
  ProjectSessionsDocument,
  type ProjectSessionsQuery,
  type ProjectSessionsQueryVariables,
  ViewerDocument,
} from "./generated/graphql.js";

/** Exit codes: 0 done, 1 other failure, 2 bad token, 3 rate-limited for longer than we wait. */
const exitCodes = { failed: 1, unauthenticated: 2, rateLimited: 3 } as const;

// Wait at most this long for a rate-limit window to reopen; longer waits are the caller's decision.
const maxRetryWaitSeconds = 60;
const pageSize = Number(process.env.EVENTGRAPH_PAGE_SIZE ?? 50);

class StopError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

function errorCode(error: ClientError): string | undefined {
  const code = error.response.errors?.[0]?.extensions?.code;
  return typeof code === "string" ? code : undefined;
}

/**
 * Runs a request, waiting out RATE_LIMITED answers (HTTP 429 with Retry-After) up to a limit and
 * turning UNAUTHENTICATED (a bad, revoked or rotated token) into a clear stop.
 */
async function withRetry<T>(run: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (!(error instanceof ClientError)) throw error;
      const code = errorCode(error);
      if (code === "UNAUTHENTICATED") {
        throw new StopError(
          "The API token was refused (UNAUTHENTICATED): it is wrong, or the app's token was regenerated or the app deleted. Get a new token from the app's page.",
          exitCodes.unauthenticated,
        );
      }
      if (code === "RATE_LIMITED" || error.response.status === 429) {
        const retryAfter = Number(error.response.headers.get("retry-after") ?? "1");
        if (attempt >= attempts || retryAfter > maxRetryWaitSeconds) {
          throw new StopError(
            `Rate limited (RATE_LIMITED): retry after ${retryAfter} s.`,
            exitCodes.rateLimited,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
        continue;
      }
      throw error;
    }
  }
}

async function main(): Promise<void> {
  const baseUrl = (process.env.EVENTGRAPH_URL ?? "http://localhost:4000").replace(/\/+$/, "");
  const token = process.env.EVENTGRAPH_TOKEN;
  const projectId = process.argv[2] ?? process.env.EVENTGRAPH_PROJECT;
  if (!projectId) throw new StopError("Usage: main.js <projectId>", exitCodes.failed);

  const client = new GraphQLClient(`${baseUrl}/api/graphql`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });

  if (token) {
    const { viewer } = await withRetry(() => client.request(ViewerDocument));
    console.log(`App: ${viewer?.name} (${viewer?.permissions.join(", ") || "no permissions"})`);
  }

  let after: string | null | undefined = null;
  let printed = 0;
  for (;;) {
    const variables: ProjectSessionsQueryVariables = { id: projectId, first: pageSize, after };
    const { project }: ProjectSessionsQuery = await withRetry(() =>
      client.request(ProjectSessionsDocument, variables),
    );
    if (!project) throw new StopError(`Project ${projectId} not found`, exitCodes.failed);
    if (printed === 0) console.log(`${project.name}: ${project.sessions.totalCount} sessions`);
    for (const { node } of project.sessions.edges) {
      printed++;
      console.log(`${node.startsAt}  ${node.title}${node.room ? ` (${node.room.name})` : ""}`);
    }
    if (!project.sessions.pageInfo.hasNextPage) break;
    after = project.sessions.pageInfo.endCursor;
  }
}

main().catch((error: unknown) => {
  if (error instanceof StopError) {
    console.error(error.message);
    process.exitCode = error.exitCode;
    return;
  }
  if (error instanceof ClientError) {
    console.error(`${errorCode(error) ?? "ERROR"}: ${error.response.errors?.[0]?.message ?? error.message}`);
  } else {
    console.error(error);
  }
  process.exitCode = exitCodes.failed;
});
