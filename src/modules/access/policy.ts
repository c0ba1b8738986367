import type { MemberRole } from "../../db/schema.js";
import { AppError, ErrorCode } from "../../errors.js";
import type { Actor } from "./actor.js";
import { allPermissions, type Permission } from "./permissions.js";

/**
 * Every authorization rule of Eventgraph, in one place (Outline's policies, one file). Services,
 * dashboard pages, GraphQL and the CLI ask `can` / `authorize` here; none writes a role rule inline.
 * `docs/roles.md` is generated from these tables (`renderRoleTable`) and a test checks both the file
 * and what the services really allow against them.
 */

/** The facts a rule reads about an actor in one project (`ProjectAccess` carries them). */
export interface Standing {
  actor: Actor;
  /** The organizer's role; undefined for apps, the public and the operator. */
  role: MemberRole | undefined;
  /** The effective API permissions in the project. */
  permissions: ReadonlySet<Permission>;
}

/** All roles, strongest first. */
const roles: readonly MemberRole[] = ["OWNER", "ADMIN", "MEMBER"];

/** Organizer actions that are not API permissions, with what each lets a person do. */
const projectActions = {
  "members.view": "See the project's members and pending invitations",
  "members.manage": "Invite members, change roles below owner, remove non-owners, revoke invitations",
  "members.manageOwners": "Invite, grant, change or remove the OWNER role",
  "apps.view": "See the apps created in the project (API tab) and who created each",
  "apps.manage": "Create, edit, rotate the token of and delete the project's apps",
  "integrations.view": "See the apps connected to the project (Integrations tab)",
  "integrations.manage": "Connect an app to the project (Authorize) and revoke its access",
  "project.delete": "Delete the project with all its data, apps, tokens and links (typed confirmation)",
} as const;

/** An organizer action named in `projectActions`. */
export type ProjectAction = keyof typeof projectActions;

const everyone: readonly MemberRole[] = roles;
const managers: readonly MemberRole[] = ["OWNER", "ADMIN"];

// Who may take each action. OWNER is the only role that can create or take away another OWNER, so
// an ADMIN can never promote themselves and then remove the people who trusted them.
const actionRoles: Record<ProjectAction, readonly MemberRole[]> = {
  "members.view": everyone,
  "members.manage": managers,
  "members.manageOwners": ["OWNER"],
  "apps.view": everyone,
  "apps.manage": managers,
  "integrations.view": everyone,
  "integrations.manage": managers,
  // Deleting cannot be undone and ends every app homed in the project: the owners' decision alone.
  "project.delete": ["OWNER"],
};

// Organizers of any role run the event; editing the project itself and reading its audit log (who
// did what, from which address: the team's own activity) are for OWNER/ADMIN.
const managersOnly: readonly Permission[] = ["project:write", "audit:read"];
const permissionsByRole: Record<MemberRole, readonly Permission[]> = {
  OWNER: allPermissions,
  ADMIN: allPermissions,
  MEMBER: allPermissions.filter((p) => !managersOnly.includes(p)),
};

/** The API permissions an organizer of this role holds in their project. */
export function permissionsOfRole(role: MemberRole): readonly Permission[] {
  return permissionsByRole[role];
}

/**
 * Whether the actor may take an organizer action. The operator (CLI) may do everything; apps and
 * the public take no organizer action (an app acts only through its permissions).
 */
export function can(standing: Pick<Standing, "actor" | "role">, action: ProjectAction): boolean {
  if (standing.actor.kind === "system") return true;
  return standing.role !== undefined && actionRoles[action].includes(standing.role);
}

/** Like `can`, but throws FORBIDDEN (with a sentence a person can act on) when refused. */
export function authorize(standing: Pick<Standing, "actor" | "role">, action: ProjectAction): void {
  if (!can(standing, action)) throw new AppError(ErrorCode.FORBIDDEN, refusals[action]);
}

const refusals: Record<ProjectAction, string> = {
  "members.view": "Only the project's members may see its team",
  "members.manage": "Only the project's owners and admins may do this",
  "members.manageOwners": "Only an owner may grant, change or remove the owner role",
  "apps.view": "Only the project's members may see its apps",
  "apps.manage": "Only the project's owners and admins may do this",
  "integrations.view": "Only the project's members may see its integrations",
  "integrations.manage": "Only the project's owners and admins may do this",
  "project.delete": "Only an owner may delete the project",
};

/**
 * Authorizes a change of someone's membership: invite (`from` undefined), re-role, or removal
 * (`to` undefined). Touching the OWNER role on either side needs an OWNER.
 */
export function authorizeMembershipChange(
  standing: Pick<Standing, "actor" | "role">,
  change: { from: MemberRole | undefined; to: MemberRole | undefined },
): void {
  authorize(standing, "members.manage");
  if (change.from === "OWNER" || change.to === "OWNER") authorize(standing, "members.manageOwners");
}

/** Why a change was refused that would leave a project without an owner. */
const lastOwnerMessage = "A project needs at least one owner";

/**
 * A project always keeps an OWNER: refuses (CONFLICT) a change that takes the role from its last
 * one. `owners` must be counted under the membership lock, or two changes could each see another.
 */
export function assertKeepsAnOwner(
  change: { from: MemberRole | undefined; to: MemberRole | undefined },
  owners: number,
): void {
  if (change.from === "OWNER" && change.to !== "OWNER" && owners <= 1) {
    throw new AppError(ErrorCode.CONFLICT, lastOwnerMessage);
  }
}

/**
 * Whether the actor may connect an app to a project they manage. An unverified developer could
 * impersonate a well-known app by name, so until an owner of the app's home project verifies their
 * email only that project's own team (and the operator) may connect it.
 */
export function canConnectApp(
  actor: Actor,
  app: { developerVerified: boolean; actorInHomeTeam: boolean },
): boolean {
  return actor.kind === "system" || app.developerVerified || (actor.kind === "user" && app.actorInHomeTeam);
}

/**
 * Throws FORBIDDEN with `requiredPermission` unless the standing holds the API permission (NOT_FOUND
 * for an app the project is not linked to).
 */
export function assertPermission(
  standing: Pick<Standing, "permissions"> & { unlinked?: boolean },
  permission: Permission,
): void {
  if (standing.permissions.has(permission)) return;
  // An app that sees a published project only as the public does is not refused a permission it
  // may well hold elsewhere: the project is not linked to it (ProjectAccess.unlinked).
  if (standing.unlinked) {
    throw new AppError(ErrorCode.NOT_FOUND, "Project not linked to this app: only its public fields answer");
  }
  throw new AppError(ErrorCode.FORBIDDEN, `This requires the ${permission} permission`, {
    requiredPermission: permission,
  });
}

// ---- read rules for rows (which rows an actor sees without a write permission) ----

type Holder = Pick<Standing, "permissions">;

/** Orders name their buyers and amounts: only `orders:read` sees them (never the public). */
export const orderVisible = (standing: Holder): boolean => standing.permissions.has("orders:read");

/** Attendees are personal data: only `attendees:read` sees them (never the public). */
export const attendeeVisible = (standing: Holder): boolean => standing.permissions.has("attendees:read");

/** A published session is public; drafts and cancelled sessions need `agenda:read`. */
export const sessionVisible = (standing: Holder, row: { status: string }): boolean =>
  row.status === "PUBLISHED" || standing.permissions.has("agenda:read");

/** A speaker is public once on a published session; `isPublished` is only asked when it matters. */
export const speakerVisible = async (
  standing: Holder,
  isPublished: () => Promise<boolean>,
): Promise<boolean> => standing.permissions.has("agenda:read") || (await isPublished());

/** A ticket type on sale is public; the others (and the sales figures) need `tickets:read`. */
export const ticketTypeVisible = (standing: Holder, onSale: boolean): boolean =>
  standing.permissions.has("tickets:read") || onSale;

// ---- the committed table ----

/**
 * The role × action table as Markdown: `docs/roles.md` is this text, checked by a test.
 * @internal written by scripts/roles-table.mjs, read by test/api/roles.test.ts
 */
export function renderRoleTable(): string {
  const head = `| action | ${roles.join(" | ")} |\n|---|${roles.map(() => "---").join("|")}|`;
  const mark = (yes: boolean) => (yes ? "yes" : "—");
  const actionRows = (Object.keys(projectActions) as ProjectAction[]).map(
    (a) =>
      `| \`${a}\`: ${projectActions[a]} | ${roles.map((r) => mark(actionRoles[a].includes(r))).join(" | ")} |`,
  );
  const permissionRows = allPermissions.map(
    (p) =>
      `| \`${p}\` (API permission) | ${roles.map((r) => mark(permissionsByRole[r].includes(p))).join(" | ")} |`,
  );
  return [
    "# Roles",
    "",
    "Generated from `src/modules/access/policy.ts` (`renderRoleTable`); `test/api/roles.test.ts` checks",
    "this file and what the services really allow against it. Edit the policy, then regenerate with",
    "`node scripts/roles-table.mjs`.",
    "",
    "The operator (CLI) may take every action. Apps take no organizer action: an app acts only through",
    "the permissions granted to it for a project (its home project, or a link an organizer authorized).",
    "",
    head,
    ...actionRows,
    ...permissionRows,
    "",
  ].join("\n");
}
