import { z } from "zod";
import { appUrl, idText } from "../../shared/validation.js";

// The input rules of the OAuth client settings, one place for the dashboard and the service.

/** At most this many redirect URIs per app: each is compared on every authorization request. */
const maxRedirectUris = 10;

// A fragment never reaches the app's server, and RFC 6749 §3.1.2 forbids one.
const redirectUri = appUrl.refine((v) => v === null || !v.includes("#"), {
  message: "must not contain a #fragment",
});

export const clientInput = z.object({
  appId: z.string({ error: "is required" }).min(1, "is required").pipe(idText),
  // One URI per line (the dashboard's textarea); blank lines are ignored.
  redirectUris: z
    .string()
    .max(20_000, "is too long")
    .transform((text) =>
      text
        .split(/\r?\n/)
        .map((line) => line.trim())
        .filter((line) => line !== ""),
    )
    .pipe(
      z
        .array(z.string())
        .min(1, "must name at least one redirect URI")
        .max(maxRedirectUris, `must name at most ${maxRedirectUris} redirect URIs`)
        .superRefine((uris, ctx) => {
          for (const uri of uris) {
            const checked = redirectUri.safeParse(uri);
            if (!checked.success) {
              ctx.addIssue({ code: "custom", message: `${uri}: ${checked.error.issues[0]?.message}` });
            }
          }
        }),
    ),
});
