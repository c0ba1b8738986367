import { builder } from "../../graphql/builder.js";
import { connectionTypes, projectConnection } from "../../graphql/connections.js";
import { globalId, referenceLocal, requiredLocal } from "../../graphql/ids.js";
import { boundedList } from "../../graphql/limits/list-bounds.js";
import { inputMutation, payloadType } from "../../graphql/mutations.js";
import { nodeLoader } from "../../graphql/nodes.js";
import { requires } from "../../graphql/permissions.js";
import { ProjectRef, projectIdOnly } from "../projects/projects.graphql.js";
import type { DiscountCode } from "./discount-codes.model.js";
import { maxGenerated } from "./discount-codes.service.js";

const DiscountCodeRef = builder.objectRef<DiscountCode>("DiscountCode");

const DiscountKindEnum = builder.enumType("DiscountKind", {
  description: "What a discount code does to the tickets it covers.",
  values: {
    PERCENTAGE: { description: "Takes percentOff percent off each ticket (rounded in the buyer's favour)." },
    FIXED_AMOUNT: { description: "Takes amountOffMinor off each ticket, never below zero." },
    ACCESS: { description: "Takes nothing off; unlocks the hidden ticket types it covers." },
  } as const,
});

const ticketTypeIds = (ids: readonly string[] | null | undefined) =>
  ids ? ids.map((id) => referenceLocal(id, "TicketType")) : ids;

/** Defines discount codes (tickets:write), `Project.discountCodes`, their mutations and `Order.discountCode`. */
export function defineDiscountCodeTypes(): void {
  builder.node(DiscountCodeRef, {
    ...requires("tickets:write"),
    description:
      "A discount or access code (the Discount codes guide). Codes are secrets that change prices: every field but id needs tickets:write.",
    id: { resolve: (d) => d.id },
    loadWithoutCache: nodeLoader((c, id) => c.services.discountCodes.findDiscountCode(c.actor, id)),
    fields: (t) => ({
      code: t.exposeString("code", {
        nullable: true,
        description: "The code; buyers may type it in any case.",
      }),
      kind: t.expose("kind", { type: DiscountKindEnum, nullable: true, description: "What it does." }),
      percentOff: t.exposeInt("percentOff", { nullable: true, description: "For PERCENTAGE: 1 to 100." }),
      amountOffMinor: t.exposeInt("amountOffMinor", {
        nullable: true,
        description: "For FIXED_AMOUNT: minor units off each ticket, in the ticket's currency.",
      }),
      maxUses: t.exposeInt("maxUses", {
        nullable: true,
        description: "Tickets it may be applied to in all; null: no limit.",
      }),
      maxPerOrder: t.exposeInt("maxPerOrder", {
        nullable: true,
        description: "Tickets of one order it may be applied to; null: no limit.",
      }),
      uses: t.exposeInt("uses", {
        nullable: true,
        description: "Tickets it was applied to, in orders not cancelled or expired.",
      }),
      validFrom: t.expose("validFrom", {
        type: "DateTime",
        nullable: true,
        description: "From when it works.",
      }),
      validUntil: t.expose("validUntil", {
        type: "DateTime",
        nullable: true,
        description: "Until when it works.",
      }),
      ticketTypeIds: t.idList({
        ...boundedList(100),
        nullable: true,
        description: "Global ids of the ticket types it covers; null: every ticket type.",
        resolve: (d) => d.ticketTypeIds?.map((id) => globalId("TicketType", id)) ?? null,
      }),
      batch: t.exposeString("batch", { nullable: true, description: "The bulk generation that made it." }),
      createdAt: t.expose("createdAt", {
        type: "DateTime",
        nullable: true,
        description: "When it was created.",
      }),
    }),
  });

  builder.objectField(ProjectRef, "discountCodes", (t) =>
    t.connection(
      {
        ...projectIdOnly(requires("tickets:write")),
        type: DiscountCodeRef,
        nullable: true,
        description: "Discount and access codes by creation, with their uses (tickets:write).",
        args: { batch: t.arg.string({ description: "Only the codes of this bulk generation." }) },
        resolve: (project, args, c) => {
          const filter = { batch: args.batch ?? undefined };
          return projectConnection(c, project.id, args, (access) => ({
            list: (window) => c.services.discountCodes.listDiscountCodes(access, filter, window),
            count: () => c.services.discountCodes.countDiscountCodes(access, filter),
          }));
        },
      },
      ...connectionTypes("DiscountCode", "discount codes"),
    ),
  );

  const termFields = (t: PothosInputFieldBuilder) => ({
    kind: t.field({ type: DiscountKindEnum, required: true, description: "What the code does." }),
    percentOff: t.int({ description: "For PERCENTAGE: 1 to 100." }),
    amountOffMinor: t.int({ description: "For FIXED_AMOUNT: minor units off each ticket." }),
    maxUses: t.int({ description: "Tickets it may be applied to in all; omitted: no limit." }),
    maxPerOrder: t.int({
      description: "Tickets of one order it may be applied to (at most 20); omitted: no limit.",
    }),
    validFrom: t.field({ type: "DateTime", description: "From when it works; omitted: now." }),
    validUntil: t.field({ type: "DateTime", description: "Until when it works; omitted: for ever." }),
    ticketTypeIds: t.idList({ description: "The ticket types it covers (at most 100); omitted: every one." }),
  });
  type PothosInputFieldBuilder = Parameters<Parameters<typeof builder.inputType>[1]["fields"]>[0];

  const CreateInput = builder.inputType("CreateDiscountCodeInput", {
    description: "A new discount or access code.",
    fields: (t) => ({
      projectId: t.id({ required: true, description: "The 4-character Project ID." }),
      code: t.string({
        required: true,
        description: "3 to 40 letters, digits, - or _; unique whatever the case.",
      }),
      ...termFields(t),
    }),
  });
  const GenerateInput = builder.inputType("GenerateDiscountCodesInput", {
    description: "Random codes with the same terms, e.g. 200 single-use codes for a sponsor.",
    fields: (t) => ({
      projectId: t.id({ required: true, description: "The 4-character Project ID." }),
      count: t.int({ required: true, description: `How many codes, at most ${maxGenerated}.` }),
      prefix: t.string({ description: "Put before each random part, e.g. SPONSOR-." }),
      batch: t.string({ description: "A label for the batch (the CSV export and the list filter read it)." }),
      ...termFields(t),
    }),
  });
  const DeleteInput = builder.inputType("DeleteDiscountCodeInput", {
    description: "The code to delete; orders placed with it keep it and their discount.",
    fields: (t) => ({ id: t.id({ required: true, description: "The code's global id." }) }),
  });
  const GeneratedRef = builder.objectRef<{ discountCodes: DiscountCode[] }>("GeneratedDiscountCodes");
  GeneratedRef.implement({
    inheritsAccess: true,
    description: "The codes a generation made.",
    fields: (t) => ({
      discountCodes: t.field({
        ...boundedList(maxGenerated),
        type: [DiscountCodeRef],
        description: "The new codes.",
        resolve: (g) => g.discountCodes,
      }),
    }),
  });

  builder.mutationFields((t) => ({
    createDiscountCode: inputMutation(t, {
      permission: "tickets:write",
      description: "Adds a discount or access code.",
      input: CreateInput,
      payload: payloadType(
        "CreateDiscountCodePayload",
        "discountCode",
        DiscountCodeRef,
        "The result of createDiscountCode.",
      ),
      field: "discountCode",
      write: (input, c) =>
        c.services.discountCodes.createDiscountCode(c.actor, {
          ...input,
          ticketTypeIds: ticketTypeIds(input.ticketTypeIds),
        }),
    }),
    generateDiscountCodes: inputMutation(t, {
      permission: "tickets:write",
      description: `Generates up to ${maxGenerated} random codes with the same terms, labelled as one batch.`,
      input: GenerateInput,
      payload: payloadType(
        "GenerateDiscountCodesPayload",
        "generated",
        GeneratedRef,
        "The result of generateDiscountCodes.",
      ),
      field: "generated",
      write: async (input, c) => ({
        discountCodes: await c.services.discountCodes.generateDiscountCodes(c.actor, {
          ...input,
          ticketTypeIds: ticketTypeIds(input.ticketTypeIds),
        }),
      }),
    }),
    deleteDiscountCode: inputMutation(t, {
      permission: "tickets:write",
      description: "Deletes a code; orders placed with it keep it and their discount.",
      input: DeleteInput,
      payload: payloadType(
        "DeleteDiscountCodePayload",
        "discountCode",
        DiscountCodeRef,
        "The result of deleteDiscountCode.",
      ),
      field: "discountCode",
      write: (input, c) =>
        c.services.discountCodes.deleteDiscountCode(c.actor, { id: requiredLocal(input.id, "DiscountCode") }),
    }),
  }));
}
