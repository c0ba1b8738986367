import type { Grant } from "../../modules/oauth/grants.js";
import { Badge, DataTable } from "../ui/components.js";
import { PermissionChips, whenUtc } from "./app-ui.js";

/** Why a grant ended, in the organizer's words. */
const endedBecause: Record<string, string> = {
  refresh_token_reused: "a used refresh token came back (possible theft)",
  code_reused: "its authorization code was used twice (possible theft)",
  revoked_by_client: "revoked by the app",
};

function GrantStatus(props: { grant: Grant }) {
  const { grant } = props;
  if (grant.status === "active") return <Badge tone="success">active</Badge>;
  if (grant.status === "link_revoked") return <Badge tone="danger">ended: access revoked</Badge>;
  return (
    <>
      <Badge tone="danger">ended</Badge>
      <div class="small muted">{endedBecause[grant.revokedReason ?? ""] ?? "revoked"}</div>
    </>
  );
}

/**
 * The OAuth grants of a project (Integrations: `show` the app) or of an app (Linked projects: `show`
 * the project): one row per install, its scopes, and when its tokens were last used.
 */
export function GrantsTable(props: { grants: readonly Grant[]; show: "app" | "project" }) {
  return (
    <DataTable
      caption="OAuth grants"
      columns={[
        props.show === "app" ? "App" : "Project",
        "Authorized by",
        "Granted",
        "Scopes",
        "Last used",
        "Status",
      ]}
    >
      {props.grants.map((grant) => (
        <tr>
          <th scope="row">
            {props.show === "app" ? (
              grant.appName
            ) : (
              <>
                {grant.projectName} <code class="project-id">{grant.projectId}</code>
              </>
            )}
          </th>
          <td>{grant.authorizedBy ?? <span class="muted">Unknown</span>}</td>
          <td class="muted">{whenUtc(grant.createdAt)}</td>
          <td>
            <PermissionChips permissions={grant.scopes} />
          </td>
          <td class="muted">{whenUtc(grant.lastUsedAt)}</td>
          <td>
            <GrantStatus grant={grant} />
          </td>
        </tr>
      ))}
    </DataTable>
  );
}
