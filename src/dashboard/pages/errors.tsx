import type { PageContext } from "../context.js";
import { Layout } from "../ui/layout.js";

/** The page for a missing resource, and for one the visitor may not see: the two look the same. */
export function NotFoundPage(props: { ctx: PageContext }) {
  return (
    <Layout ctx={props.ctx} title="Not found" narrow>
      <div class="error-page">
        <h1>Page not found</h1>
        <p>This page does not exist, or you do not have access to it.</p>
        <p>
          <a class="button button-primary" href="/">
            Back to your projects
          </a>
        </p>
      </div>
    </Layout>
  );
}

/** A refused action: a stale form (CSRF) or a role that may not do this. */
export function ForbiddenPage(props: { ctx: PageContext; message: string }) {
  return (
    <Layout ctx={props.ctx} title="Not allowed" narrow>
      <div class="error-page">
        <h1>Not allowed</h1>
        <p>{props.message}</p>
        <p>
          <a class="button button-primary" href="/">
            Back to your projects
          </a>
        </p>
      </div>
    </Layout>
  );
}

/** An unexpected failure: no details, only the request id to quote to the operator. */
export function ServerErrorPage(props: {
  ctx: PageContext;
  status: number;
  message: string;
  requestId: string;
}) {
  return (
    <Layout ctx={props.ctx} title="Something went wrong" narrow>
      <div class="error-page">
        <h1>{props.status >= 500 ? "Something went wrong" : "This request could not be handled"}</h1>
        <p>{props.message}</p>
        <p class="muted">
          Request id: <code>{props.requestId}</code>
        </p>
      </div>
    </Layout>
  );
}
