import type { PageContext } from "../context.js";
import { Layout } from "../ui/layout.js";

/** A refusal: what happened, and the way back to the projects. */
function RefusalPage(props: { ctx: PageContext; title: string; heading: string; message: string }) {
  return (
    <Layout ctx={props.ctx} title={props.title} narrow>
      <div class="error-page">
        <h1>{props.heading}</h1>
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

/** The page for a missing resource, and for one the visitor may not see: the two look the same. */
export function NotFoundPage(props: { ctx: PageContext }) {
  return (
    <RefusalPage
      ctx={props.ctx}
      title="Not found"
      heading="Page not found"
      message="This page does not exist, or you do not have access to it."
    />
  );
}

/** A refused action: a stale form (CSRF) or a role that may not do this. */
export function ForbiddenPage(props: { ctx: PageContext; message: string }) {
  return <RefusalPage ctx={props.ctx} title="Not allowed" heading="Not allowed" message={props.message} />;
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
