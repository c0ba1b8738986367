import { z } from "zod";
import type { Config } from "../../../config.js";
import type { Db } from "../../../db/database.js";
import { objectEvent, type ProjectChanges } from "../../../shared/project-changes.js";
import { nowIso } from "../../../shared/time.js";
import { parseInput } from "../../../shared/validation.js";
import type { AccessService } from "../../access/access.service.js";
import type { Actor } from "../../access/actor.js";
import { loadServerSecret } from "../../accounts/server-secrets.js";
import { type KeyBox, keyBox } from "./key-box.js";
import { paymentAccountsRepository as repo } from "./payment-accounts.repository.js";

/** What the dashboard may know of a project's Stripe keys: whether they are set, and a hint. */
export interface StripeAccountStatus {
  configured: boolean;
  /** `sk_test_…4242`: the mode and the last four characters, never more. */
  keyHint: string | null;
}

// Secret keys and restricted keys, test or live; the webhook's signing secret. Anything else is a
// typo (a publishable key pasted by mistake): refused before it is stored.
const keysInput = z.object({
  secretKey: z
    .string()
    .trim()
    .regex(/^(sk|rk)_(test|live)_[A-Za-z0-9]{8,250}$/, "must be a secret key (sk_test_… or sk_live_…)"),
  webhookSecret: z
    .string()
    .trim()
    .regex(/^whsec_[A-Za-z0-9+/=]{8,250}$/, "must be a webhook signing secret (whsec_…)"),
});

function hintOf(secretKey: string): string {
  const mode = secretKey.slice(0, secretKey.indexOf("_", 3) + 1);
  return `${mode}…${secretKey.slice(-4)}`;
}

/**
 * A project's Stripe keys: set and removed in Settings → Payments (project:write, like the bank
 * details), sealed at rest, never shown again nor logged, read back only by the server for a call
 * to Stripe or to check a notification's signature.
 */
export function createStripeAccounts(deps: {
  db: Db;
  config: Config;
  access: AccessService;
  changes: ProjectChanges;
}) {
  const { db, access, changes } = deps;
  let box: Promise<KeyBox> | undefined;
  // The box is opened once per process: PAYMENT_KEYS_SECRET, or a key generated into the database.
  const keys = () => {
    box ??= (async () =>
      keyBox(deps.config.payments.keysSecret ?? (await loadServerSecret(db, "payment-keys"))))();
    return box;
  };

  async function record(
    actor: Actor,
    projectId: string,
    hint: string | null,
    write: (db: Db) => Promise<void>,
  ) {
    await changes.write(db, actor, projectId, async (trx) => {
      await write(trx);
      // The hint only: an event's values reach the audit log and webhook payloads.
      await changes.event(trx, actor, {
        ...objectEvent(projectId, "OrderSettings", projectId, "updated"),
        changed: ["stripeKeys"],
        values: { stripeKeyHint: hint },
      });
    });
  }

  return {
    /** Whether the project's Stripe keys are set (any member who sees its settings). */
    async status(actor: Actor, projectId: string): Promise<StripeAccountStatus> {
      const found = await access.require(actor, projectId);
      const row = await repo.find(db, found.projectId);
      return { configured: row !== undefined, keyHint: row?.stripe_key_hint ?? null };
    },

    /** Stores a project's Stripe secret key and webhook signing secret, sealed. */
    async save(
      actor: Actor,
      projectId: string,
      input: z.input<typeof keysInput>,
    ): Promise<StripeAccountStatus> {
      const found = await access.requirePermission(actor, projectId, "project:write");
      const data = parseInput(keysInput, input);
      const box = await keys();
      const keyHint = hintOf(data.secretKey);
      await record(actor, found.projectId, keyHint, (trx) =>
        repo.upsert(trx, {
          project_id: found.projectId,
          stripe_secret_key: box.seal(found.projectId, data.secretKey),
          stripe_webhook_secret: box.seal(found.projectId, data.webhookSecret),
          stripe_key_hint: keyHint,
          updated_at: nowIso(),
        }),
      );
      return { configured: true, keyHint };
    },

    /** Forgets the project's Stripe keys: card payment is no longer offered. */
    async remove(actor: Actor, projectId: string): Promise<void> {
      const found = await access.requirePermission(actor, projectId, "project:write");
      await record(actor, found.projectId, null, (trx) => repo.remove(trx, found.projectId));
    },

    /**
     * The project's keys in the clear, for the server's own call to Stripe; undefined when unset or
     * sealed under another server key (PAYMENT_KEYS_SECRET changed): then card payment stops, loudly.
     */
    async secretsOf(projectId: string): Promise<{ secretKey: string; webhookSecret: string } | undefined> {
      const row = await repo.find(db, projectId);
      if (!row) return undefined;
      const box = await keys();
      const secretKey = box.open(projectId, row.stripe_secret_key);
      const webhookSecret = box.open(projectId, row.stripe_webhook_secret);
      return secretKey && webhookSecret ? { secretKey, webhookSecret } : undefined;
    },
  };
}

export type StripeAccounts = ReturnType<typeof createStripeAccounts>;
