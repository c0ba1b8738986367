import type { ComponentChildren } from "preact";
import { type Permission, permissionCatalogue } from "../../modules/access/permissions.js";
import type { App } from "../../modules/apps/apps.service.js";
import { formatDateTime } from "../time.js";
import { Dialog } from "../ui/components.js";
import { CheckboxGroup, type FormState, TextAreaField, TextField } from "../ui/forms.js";

/** The catalogue entry of a permission, for its title and description. */
function permissionInfo(name: Permission) {
  return permissionCatalogue.find((p) => p.name === name) ?? { name, title: name, description: "" };
}

/** Permissions as chips with their titles (the names stay available as tooltips). */
export function PermissionChips(props: { permissions: readonly Permission[]; empty?: string }) {
  if (props.permissions.length === 0) {
    return <span class="muted">{props.empty ?? "Basic project details only"}</span>;
  }
  return (
    <ul class="chips" aria-label="Permissions">
      {props.permissions.map((p) => (
        <li class="chip" title={p}>
          {permissionInfo(p).title}
        </li>
      ))}
    </ul>
  );
}

/** Permissions with their titles and descriptions, as the consent page explains them. */
export function PermissionDescriptions(props: { permissions: readonly Permission[] }) {
  return (
    <ul class="permission-list">
      <li>
        <strong>Basic project details</strong>
        <span class="hint">
          Name, description, dates, time zone, venue, website and status: every connected app reads these.
        </span>
      </li>
      {props.permissions.map((p) => (
        <li>
          <strong>{permissionInfo(p).title}</strong>
          <span class="hint">{permissionInfo(p).description}</span>
        </li>
      ))}
    </ul>
  );
}

/** The visible part of a token: never more than its prefix and last 4 characters. */
export function maskedToken(app: Pick<App, "tokenLast4">): string {
  return `evg_…${app.tokenLast4}`;
}

/** A moment in UTC (apps are used from anywhere, so no project zone applies); "Never" for none. */
export function whenUtc(iso: string | null): string {
  return iso ? formatDateTime(iso, "UTC") : "Never";
}

/**
 * "Created by Carl", marked when that person has left the project (their token copy may live on);
 * `bare` leaves out "Created by" where a label already says it.
 */
export function CreatedBy(props: { app: Pick<App, "createdBy">; bare?: boolean }) {
  const creator = props.app.createdBy;
  const words = props.bare ? "" : "Created by ";
  if (!creator) return <span class="muted small">{`${words}the operator`}</span>;
  return (
    <span class="muted small">
      {words}
      {creator.name}
      {creator.stillMember ? null : " (no longer a member)"}
    </span>
  );
}

/** The app form's fields: name, description, permissions with titles and descriptions. */
export function AppFields(props: { state: FormState; checked: readonly string[] }) {
  return (
    <>
      <TextField
        name="name"
        label="App name"
        state={props.state}
        required
        hint="Shown to organizers when they connect a project to your app."
      />
      <TextAreaField name="description" label="Description" state={props.state} rows={3} />
      <CheckboxGroup
        name="permissions"
        label="Permissions"
        state={props.state}
        checked={props.checked}
        options={permissionCatalogue.map((p) => ({
          value: p.name,
          label: p.title,
          description: p.description,
        }))}
        hint="Request as few permissions as possible: organizers see this list before they connect, and an app that asks for less is easier to trust. Every app reads the basic details of the projects it can reach."
      />
      <TextField
        name="redirectUrl"
        label="Redirect URL"
        type="url"
        state={props.state}
        hint="Optional. After Authorize the organizer's browser goes here with ?project_id=…&state=…, after Cancel with ?error=access_denied&state=…. https:// only (http:// for localhost while you develop)."
      />
      <TextField
        name="websiteUrl"
        label="Website"
        type="url"
        state={props.state}
        hint="Optional. Linked on the connect page."
      />
      <TextField
        name="privacyPolicyUrl"
        label="Privacy policy URL"
        type="url"
        state={props.state}
        hint="Optional. Linked on the connect page: organizers look for it before they share attendee data."
      />
    </>
  );
}

/** The app form's URL fields as a service input: a blank field clears the URL. */
export function appUrlsFromForm(values: Record<string, string>) {
  return {
    redirectUrl: values.redirectUrl ?? null,
    websiteUrl: values.websiteUrl ?? null,
    privacyPolicyUrl: values.privacyPolicyUrl ?? null,
  };
}

/**
 * The dialog that shows a new secret (API token, client secret, signing secret), the only time it is
 * ever shown, with a Copy button. `what` names it ("client secret"); `id` names the dialog
 * (`<id>-dialog`) and the field (`new-<id>`). `closeTo` is where OK leads; `pageUrl` (by default
 * `closeTo`) is the GET address of the page behind the dialog: the script puts it in the history
 * entry, so a reload fetches that page (without the secret) instead of posting the form again.
 * `children` say what it is for; `usage`, if any, follows the field.
 */
export function SecretDialog(props: {
  what: string;
  id: string;
  secret: string;
  closeTo: string;
  pageUrl?: string;
  children: ComponentChildren;
  usage?: ComponentChildren;
}) {
  const fieldId = `new-${props.id}`;
  return (
    <Dialog id={`${props.id}-dialog`} title={`Copy your ${props.what} now`}>
      <div data-replace-url={props.pageUrl ?? props.closeTo}>
        <p>{props.children}</p>
        <div class="copy-field">
          <label for={fieldId} class="visually-hidden">
            {props.what.charAt(0).toUpperCase() + props.what.slice(1)}
          </label>
          {/* A textarea wraps, so the whole secret shows even on a phone (an input cut it off); about
              20 characters fit a line of a phone's dialog. */}
          <textarea
            id={fieldId}
            class="token-field"
            readOnly
            rows={Math.ceil(props.secret.length / 20)}
            autoComplete="off"
            spellcheck={false}
          >
            {props.secret}
          </textarea>
          <button type="button" class="button button-secondary" data-copy={`#${fieldId}`}>
            Copy
          </button>
        </div>
        {props.usage ? <p class="hint">{props.usage}</p> : null}
        <form method="get" action={props.closeTo} class="form-actions">
          <button type="submit" class="button button-primary">
            OK
          </button>
        </form>
      </div>
    </Dialog>
  );
}

/** The dialog that shows a new API token (see SecretDialog). */
export function TokenDialog(props: { token: string; appName: string; closeTo: string; pageUrl: string }) {
  return (
    <SecretDialog
      what="API token"
      id="token"
      secret={props.token}
      closeTo={props.closeTo}
      pageUrl={props.pageUrl}
      usage={
        <>
          Send it on every request as <code>{"Authorization: Bearer <token>"}</code> to{" "}
          <code>POST /api/graphql</code>.
        </>
      }
    >
      This is the API token of <strong>{props.appName}</strong>. It is shown only this once: store it
      somewhere safe, like a password. If you lose it, regenerate it.
    </SecretDialog>
  );
}
