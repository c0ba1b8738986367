import { z } from "zod";
import { findVersion, isServed, servedVersions } from "../../graphql/versions/api-versions.js";
import { appUrl, idText, optionalMultilineText, requiredText } from "../../shared/validation.js";
import {
  allPermissions,
  isPermission,
  type Permission,
  parsePermissions,
  serializePermissions,
} from "../access/permissions.js";

// The input rules of the apps service, one place for the API, the dashboard and the CLI.

const permissionList = z
  .array(z.string(), { error: "must be a list of permission names" })
  .superRefine((names, ctx) => {
    const unknown = names.filter((name) => !isPermission(name));
    if (unknown.length > 0) {
      ctx.addIssue({
        code: "custom",
        message: `unknown permission ${unknown.map((n) => JSON.stringify(n)).join(", ")}; expected any of ${allPermissions.join(", ")}`,
      });
    }
  })
  // Deduplicated and in catalogue order, so the stored form is canonical.
  .transform((names) => parsePermissions(serializePermissions(names as Permission[])));

const id = z.string({ error: "is required" }).min(1, "is required").pipe(idText);

// A fragment would never reach the app's server, and OAuth forbids one in a redirect URI (RFC 6749 §3.1.2).
const redirectUrl = appUrl.refine((v) => v === null || !v.includes("#"), {
  message: "must not contain a #fragment",
});
// A pin to a version that is not served would answer the app in another one without telling it.
const apiVersion = z.string().refine(
  (name) => {
    const version = findVersion(name);
    return version !== undefined && isServed(version, new Date());
  },
  {
    error: () =>
      `must be one of ${servedVersions(new Date())
        .map((v) => v.name)
        .join(", ")}`,
  },
);

export const createInput = z.object({
  projectId: id,
  name: requiredText(100),
  description: optionalMultilineText(2000),
  permissions: permissionList,
  redirectUrl: redirectUrl.optional(),
  websiteUrl: appUrl.optional(),
  privacyPolicyUrl: appUrl.optional(),
  apiVersion: apiVersion.optional(),
});
export const updateInput = z.object({
  id,
  name: requiredText(100).optional(),
  description: optionalMultilineText(2000).optional(),
  permissions: permissionList.optional(),
  redirectUrl: redirectUrl.optional(),
  websiteUrl: appUrl.optional(),
  privacyPolicyUrl: appUrl.optional(),
  apiVersion: apiVersion.optional(),
});
export const appRef = z.object({ id });
export const linkRef = z.object({ appId: id, projectId: id });
export const authorizeInput = linkRef.extend({
  // The permissions the consent page showed, in their stored form; absent only for the operator's CLI.
  shownPermissions: z.string().max(1000).optional(),
});
