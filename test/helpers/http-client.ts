/** A response read by the test client: status, headers and the body as text. */
export interface TestResponse {
  status: number;
  headers: Headers;
  body: string;
}

/**
 * A minimal browser stand-in over `fetch`: keeps cookies, does not follow redirects, and reads the
 * CSRF token from the last page, so HTTP-level tests can post forms like a browser would.
 */
export class HttpClient {
  readonly cookies = new Map<string, string>();
  lastBody = "";

  /** `headers` go with every request (e.g. a browser's User-Agent). */
  constructor(
    private readonly baseUrl: string,
    private readonly headers: Record<string, string> = {},
  ) {}

  /** GETs a path. */
  get(path: string, headers: Record<string, string> = {}): Promise<TestResponse> {
    return this.request("GET", path, undefined, headers);
  }

  /**
   * POSTs a form; `_csrf` is taken from the last page unless the fields set it (or `null` omits it).
   * A list sends the field once per value, as a checkbox group does.
   */
  post(
    path: string,
    fields: Record<string, string | readonly string[] | null>,
    headers: Record<string, string> = {},
  ): Promise<TestResponse> {
    const body = new URLSearchParams();
    const csrf = "_csrf" in fields ? fields._csrf : this.csrfToken();
    if (typeof csrf === "string" && csrf) body.set("_csrf", csrf);
    for (const [key, value] of Object.entries(fields)) {
      if (key === "_csrf" || value === null) continue;
      for (const item of typeof value === "string" ? [value] : value) body.append(key, item);
    }
    return this.request("POST", path, body, {
      "content-type": "application/x-www-form-urlencoded",
      ...headers,
    });
  }

  /** The value of the last page's first input named `name` (a hidden field a form carries), if any. */
  formValue(name: string): string | undefined {
    const tag = new RegExp(`<input[^>]*name="${name}"[^>]*>`).exec(this.lastBody)?.[0];
    return tag === undefined ? undefined : (/value="([^"]*)"/.exec(tag)?.[1] ?? "");
  }

  /** The CSRF token in the last page's first form. */
  csrfToken(): string {
    const match = /name="_csrf" value="([^"]+)"/.exec(this.lastBody);
    if (!match?.[1]) throw new Error("The last page has no form with a CSRF token");
    return match[1];
  }

  private async request(
    method: string,
    path: string,
    body: URLSearchParams | undefined,
    headers: Record<string, string>,
  ): Promise<TestResponse> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      body,
      redirect: "manual",
      headers: { accept: "text/html", ...this.headers, ...(cookie ? { cookie } : {}), ...headers },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const index = pair.indexOf("=");
      const name = pair.slice(0, index);
      const value = pair.slice(index + 1);
      if (value === "" || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await response.text();
    if (response.headers.get("content-type")?.includes("text/html")) this.lastBody = text;
    return { status: response.status, headers: response.headers, body: text };
  }
}
