import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { MemberRole } from "../../db/schema.js";
import { AppError, badInput, ErrorCode, httpStatusOf, notFound } from "../../errors.js";
import { can } from "../../modules/access/policy.js";
import type { Invitation } from "../../modules/projects/invitations.service.js";
import type { Member } from "../../modules/projects/members.service.js";
import { type PageContext, pageContext, redirectTo } from "../context.js";
import { formValues, stateFromError } from "../form-data.js";
import { mailSetup } from "../mail-words.js";
import { formatDateTime } from "../time.js";
import { Badge, DataTable, Notice } from "../ui/components.js";
import {
  Form,
  FormError,
  type FormState,
  formState,
  type Option,
  Options,
  SelectField,
  SubmitButton,
  TextField,
} from "../ui/forms.js";
import { sendPage } from "../ui/render.js";
import { loadProjectPage, type ProjectPageData } from "./project-page.js";
import { SettingsPage } from "./settings.js";

type ProjectRequest = FastifyRequest<{ Params: { projectId: string } }>;
type MemberRequest = FastifyRequest<{ Params: { projectId: string; userId: string } }>;
type InvitationRequest = FastifyRequest<{ Params: { projectId: string; invitationId: string } }>;

const roleOptions: readonly (Option & { value: MemberRole })[] = [
  { value: "MEMBER", label: "Member" },
  { value: "ADMIN", label: "Admin" },
  { value: "OWNER", label: "Owner" },
];

const roleLabel = (role: MemberRole) => roleOptions.find((o) => o.value === role)?.label ?? role;

/** "a member", "an admin", "an owner": for the success messages. */
const asRole = (role: MemberRole) => `${role === "MEMBER" ? "a" : "an"} ${roleLabel(role).toLowerCase()}`;

/** The submitted role, refused at the boundary when it is not one of the three. */
function roleFrom(values: Record<string, string>): MemberRole {
  const role = roleOptions.find((o) => o.value === values.role)?.value;
  if (!role) throw badInput([{ field: ["role"], message: "must be Member, Admin or Owner" }]);
  return role;
}

function MembersTab(props: {
  ctx: PageContext;
  data: ProjectPageData;
  members: Member[];
  invitations: Invitation[];
  state: FormState;
  /** A refusal of a role change or removal (e.g. the last owner), shown above the list. */
  problem?: string;
}) {
  const { project, access } = props.data;
  const base = `/b/${project.id}/settings/members`;
  const canManage = can(access, "members.manage");
  // Only an owner is offered the owner role (the policy refuses it to anyone else anyway).
  const offered = can(access, "members.manageOwners")
    ? roleOptions
    : roleOptions.filter((o) => o.value !== "OWNER");
  return (
    <SettingsPage ctx={props.ctx} project={project} tab="members">
      {props.problem ? <Notice kind="error">{props.problem}</Notice> : null}
      {canManage ? null : (
        <Notice kind="info">
          Only the project's owners and admins can invite, change or remove members.
        </Notice>
      )}
      <DataTable
        caption="Members"
        columns={[
          "Name",
          "Email",
          "Role",
          "Member since",
          canManage ? { label: "Actions", hidden: true } : null,
        ]}
      >
        {props.members.map((member) => (
          <tr>
            <th scope="row">{member.name}</th>
            <td>{member.email}</td>
            <td>
              {canManage ? (
                <Form
                  action={`${base}/${member.userId}/role`}
                  csrf={props.ctx.csrf}
                  class="inline-form"
                  label={`Change the role of ${member.name}`}
                >
                  <select name="role" aria-label={`Role of ${member.name}`}>
                    <Options
                      options={member.role === "OWNER" ? roleOptions : offered}
                      selected={member.role}
                    />
                  </select>
                  <button type="submit" class="button button-link">
                    Change role
                  </button>
                </Form>
              ) : (
                <Badge>{roleLabel(member.role)}</Badge>
              )}
            </td>
            <td class="muted">{formatDateTime(member.since, project.timezone)}</td>
            {canManage ? (
              <td>
                <Form
                  action={`${base}/${member.userId}/remove`}
                  csrf={props.ctx.csrf}
                  class="inline-form"
                  confirm={`Remove ${member.name} from the project?`}
                >
                  <button type="submit" class="button button-link" aria-label={`Remove ${member.name}`}>
                    Remove
                  </button>
                </Form>
              </td>
            ) : null}
          </tr>
        ))}
      </DataTable>
      <Invitations ctx={props.ctx} base={base} invitations={props.invitations} canManage={canManage} />
      {canManage ? (
        <section class="panel spaced" aria-labelledby="add-member-heading">
          <h3 id="add-member-heading">Invite member</h3>
          <Form action={base} csrf={props.ctx.csrf} label="Invite member">
            <FormError state={props.state} />
            <div class="field-row">
              <TextField
                name="email"
                label="Email"
                type="email"
                state={props.state}
                required
                hint="We email them a link. They join only once they accept it (signing up first if needed)."
              />
              <SelectField name="role" label="Role" options={offered} state={props.state} required />
            </div>
            <div class="form-actions">
              <SubmitButton>Send invitation</SubmitButton>
            </div>
          </Form>
        </section>
      ) : null}
    </SettingsPage>
  );
}

/** Pending invitations, each revocable by a manager until it is accepted. */
function Invitations(props: {
  ctx: PageContext;
  base: string;
  invitations: Invitation[];
  canManage: boolean;
}) {
  if (props.invitations.length === 0) return null;
  return (
    <section class="spaced" aria-labelledby="invitations-heading">
      <h3 id="invitations-heading">Pending invitations</h3>
      <ul class="plain-list invitation-list">
        {props.invitations.map((invitation) => (
          <li>
            <div>
              <strong>{invitation.email}</strong> as {roleLabel(invitation.role).toLowerCase()}
              <div class="muted small">
                Invited by {invitation.invitedBy ?? "the operator"} · expires{" "}
                {invitation.expiresAt.slice(0, 10)}
              </div>
            </div>
            {props.canManage ? (
              <Form
                action={`${props.base}/invitations/${invitation.id}/revoke`}
                csrf={props.ctx.csrf}
                class="inline-form"
              >
                <button
                  type="submit"
                  class="button button-link"
                  aria-label={`Revoke the invitation of ${invitation.email}`}
                >
                  Revoke
                </button>
              </Form>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The Members tab of project settings: everyone sees the list; owners and admins add, re-role and remove. */
export function registerMemberPages(app: FastifyInstance): void {
  const { services } = app;

  async function render(
    request: ProjectRequest,
    reply: FastifyReply,
    data: ProjectPageData,
    state: FormState,
    status = 200,
    problem?: string,
  ) {
    const members = await services.members.list(data.actor, data.project.id);
    const invitations = await services.invitations.listPending(data.actor, data.project.id);
    return sendPage(
      reply,
      <MembersTab
        ctx={pageContext(request, reply)}
        data={data}
        members={members}
        invitations={invitations}
        state={state}
        problem={problem}
      />,
      status,
    );
  }

  async function findMember(data: ProjectPageData, userId: string): Promise<Member> {
    const members = await services.members.list(data.actor, data.project.id);
    const member = members.find((m) => m.userId === userId);
    if (!member) throw notFound("Member");
    return member;
  }

  /** The last-owner rule and the owner-only rule are shown on the page; anything else goes to the error pages. */
  function refusal(error: unknown): { status: number; message: string } {
    const shown =
      error instanceof AppError && (error.code === ErrorCode.CONFLICT || error.code === ErrorCode.FORBIDDEN);
    if (!shown) throw error;
    return { status: httpStatusOf(error), message: error.message };
  }

  const defaults = () => formState({ role: "MEMBER" });

  app.get("/b/:projectId/settings/members", async (request: ProjectRequest, reply) => {
    return render(request, reply, await loadProjectPage(app, request), defaults());
  });

  app.post("/b/:projectId/settings/members", async (request: ProjectRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const values = formValues(request.body);
    try {
      const email = (values.email ?? "").trim();
      if (!email) throw badInput([{ field: ["email"], message: "must not be empty" }]);
      const role = roleFrom(values);
      const { link } = await services.invitations.invite(data.actor, data.project.id, { email, role });
      // Without SMTP nothing went out: the inviter, who may grant this role anyway, gets the link.
      const text = mailSetup(request).sendsEmail
        ? `We emailed ${email} an invitation to join as ${asRole(role)}.`
        : `No email was sent (this server has no SMTP_URL). Send ${email} this link to join as ${asRole(role)} yourself (valid 7 days): ${link}`;
      return redirectTo(request, reply, `/b/${data.project.id}/settings/members`, {
        kind: mailSetup(request).sendsEmail ? "success" : "info",
        text,
      });
    } catch (error) {
      if (
        error instanceof AppError &&
        (error.code === ErrorCode.FORBIDDEN || error.code === ErrorCode.RATE_LIMITED)
      ) {
        const state: FormState = { values, errors: {}, formError: error.message };
        return render(request, reply, data, state, httpStatusOf(error));
      }
      return render(request, reply, data, stateFromError(error, values), httpStatusOf(error));
    }
  });

  app.post("/b/:projectId/settings/members/:userId/role", async (request: MemberRequest, reply) => {
    const data = await loadProjectPage(app, request);
    // Managers only, checked before the member lookup so a member learns nothing from the answer.
    await services.access.requireAction(data.actor, data.project.id, "members.manage");
    const member = await findMember(data, request.params.userId);
    const role = roleFrom(formValues(request.body));
    try {
      await services.members.changeRole(data.actor, data.project.id, member.userId, role);
    } catch (error) {
      const { status, message } = refusal(error);
      return render(request, reply, data, defaults(), status, message);
    }
    return redirectTo(request, reply, `/b/${data.project.id}/settings/members`, {
      kind: "success",
      text: `${member.name} is now ${asRole(role)}.`,
    });
  });

  app.post("/b/:projectId/settings/members/:userId/remove", async (request: MemberRequest, reply) => {
    const data = await loadProjectPage(app, request);
    await services.access.requireAction(data.actor, data.project.id, "members.manage");
    const member = await findMember(data, request.params.userId);
    try {
      await services.members.removeMember(data.actor, data.project.id, member.userId);
    } catch (error) {
      const { status, message } = refusal(error);
      return render(request, reply, data, defaults(), status, message);
    }
    // Someone who removed themselves can no longer see the project.
    const self = data.actor.kind === "user" && data.actor.userId === member.userId;
    return redirectTo(request, reply, self ? "/" : `/b/${data.project.id}/settings/members`, {
      kind: "success",
      text: self ? `You left ${data.project.name}.` : `${member.name} was removed from the project.`,
    });
  });

  app.post(
    "/b/:projectId/settings/members/invitations/:invitationId/revoke",
    async (request: InvitationRequest, reply) => {
      const data = await loadProjectPage(app, request);
      try {
        await services.invitations.revoke(data.actor, data.project.id, request.params.invitationId);
      } catch (error) {
        const { status, message } = refusal(error);
        return render(request, reply, data, defaults(), status, message);
      }
      return redirectTo(request, reply, `/b/${data.project.id}/settings/members`, {
        kind: "success",
        text: "The invitation was revoked: its link no longer works.",
      });
    },
  );
}
