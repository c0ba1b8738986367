import type { IncomingHttpHeaders } from "node:http";
import { ErrorCode } from "../../errors.js";
import type { Actor } from "../../modules/access/actor.js";
import { Refusal } from "../http-answers.js";
import type { RequestSteps } from "../request-steps.js";
import { type ApiVersion, apiVersions, chooseVersion, versionHeader } from "./api-versions.js";

/**
 * The request steps of every API version (each with its schema and document cache, built once at
 * start-up), and the one rule that picks a request's version: its `Eventgraph-Version` header, else
 * its app's pin, else the oldest version served (api-versions.ts `chooseVersion`). The route, the hit
 * lane and the stream route all ask here.
 */
export class VersionedSteps {
  private readonly byVersion = new Map<ApiVersion, RequestSteps>();

  constructor(make: (version: ApiVersion) => RequestSteps) {
    for (const version of apiVersions) this.byVersion.set(version, make(version));
  }

  /**
   * The steps of a version-independent step (authenticate, admit, the budget): they are alike in
   * every version, so the newest's serve.
   */
  get any(): RequestSteps {
    return this.of(apiVersions[apiVersions.length - 1] as ApiVersion);
  }

  /** The steps of `version`. */
  of(version: ApiVersion): RequestSteps {
    const steps = this.byVersion.get(version);
    if (!steps) throw new Error(`No request steps for API version ${version.name}`);
    return steps;
  }

  /**
   * The steps of the version this request is answered in, or a Refusal (400) naming the versions
   * served when its header names another; the caller throws it (the route) or hands the request on
   * (the hit lane).
   */
  choose(headers: IncomingHttpHeaders, actor: Actor): RequestSteps | Refusal {
    const pinned = actor.kind === "app" ? actor.apiVersion : undefined;
    const choice = chooseVersion(headers[versionHeader], pinned, new Date());
    if (!choice.ok) return new Refusal(ErrorCode.BAD_REQUEST, choice.message);
    return this.of(choice.version);
  }

  /** `choose`, throwing its refusal. */
  for(headers: IncomingHttpHeaders, actor: Actor): RequestSteps {
    const chosen = this.choose(headers, actor);
    if (chosen instanceof Refusal) throw chosen;
    return chosen;
  }
}
