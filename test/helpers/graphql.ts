/** The answer of one API call: status, headers and the parsed JSON body. */
export interface GraphQLResponse {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary response shapes
  body: any;
}

/** POSTs a GraphQL request to the real server, optionally with a bearer token. */
export async function gql(
  baseUrl: string,
  query: string,
  options: {
    token?: string;
    variables?: Record<string, unknown>;
    headers?: Record<string, string>;
    extensions?: Record<string, unknown>;
  } = {},
): Promise<GraphQLResponse> {
  const headers: Record<string, string> = {
    "content-type": "application/json; charset=utf-8",
    ...options.headers,
  };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const response = await fetch(`${baseUrl}/api/graphql`, {
    method: "POST",
    headers,
    body: JSON.stringify({ query, variables: options.variables, extensions: options.extensions }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}
