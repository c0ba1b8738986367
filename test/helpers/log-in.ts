import assert from "node:assert/strict";
import { testPassword } from "./factories.js";
import { HttpClient, type TestResponse } from "./http-client.js";

/**
 * A client logged in to the dashboard at `baseUrl`, as a browser does it: the form first (for its
 * CSRF token), then the post, which must answer 303. `next` is the query string of the post (e.g.
 * `?next=/oauth/authorize…`).
 */
export async function logIn(
  baseUrl: string,
  email: string,
  { password = testPassword, next = "" }: { password?: string; next?: string } = {},
): Promise<HttpClient> {
  const client = new HttpClient(baseUrl);
  await client.get("/login");
  const response = await client.post(`/login${next}`, { email, password });
  assert.equal(response.status, 303, response.body);
  return client;
}

/** Follows a 303 and returns the page it leads to. */
export async function follow(client: HttpClient, response: TestResponse): Promise<TestResponse> {
  assert.equal(response.status, 303, response.body);
  return client.get(response.headers.get("location") ?? "/");
}
