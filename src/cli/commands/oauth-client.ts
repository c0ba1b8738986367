import { type Command, requiredFlag, UsageError } from "../command.js";
import { printResult } from "../output.js";

/** `apps oauth-client`: an app's OAuth client (redirect URIs, the secret shown once), as the operator. */
export const oauthClientCommand: Command = {
  name: "oauth-client",
  summary: "Sets an app's OAuth redirect URIs; prints the client secret when it is new.",
  details:
    "--redirect-uris takes absolute URLs separated by commas, matched exactly at /oauth/authorize.\n" +
    "The secret (evs_…) is printed only when the client is first set up or with --rotate-secret;\n" +
    "a rotation ends the old secret at once. See docs/guides/15-oauth.md.",
  options: {
    app: requiredFlag("A", "the app's id"),
    "redirect-uris": {
      type: "string",
      placeholder: "u1,u2",
      description: "redirect URIs separated by commas",
    },
    "rotate-secret": { type: "boolean", description: "issue a new client secret" },
  },
  async run(input) {
    const appId = input.requiredString("app");
    const uris = input.string("redirect-uris");
    const rotate = input.flag("rotate-secret");
    if (uris === undefined && !rotate) throw new UsageError("--redirect-uris or --rotate-secret is required");
    const { withServices } = await import("../context.js");
    const { systemActor } = await import("../../modules/access/actor.js");
    const { client, secret } = await withServices(input.io, async (services) => {
      let saved =
        uris === undefined
          ? undefined
          : await services.oauth.saveClient(systemActor, {
              appId,
              redirectUris: uris.split(",").join("\n"),
            });
      if (rotate) saved = await services.oauth.rotateClientSecret(systemActor, appId);
      if (!saved) throw new UsageError("nothing to do");
      return saved;
    });
    printResult(
      input.io,
      input.json,
      { appId, clientId: client.clientId, redirectUris: client.redirectUris, secret: secret ?? null },
      [
        `OAuth client of app ${appId}`,
        `  Client id:      ${client.clientId}`,
        `  Redirect URIs:  ${client.redirectUris.join(", ")}`,
        secret
          ? `  Secret:         ${secret}\n\nThe secret is shown only this once.`
          : `  Secret:         evs_…${client.secretLast4} (unchanged; --rotate-secret issues a new one)`,
      ].join("\n"),
    );
    return 0;
  },
};
