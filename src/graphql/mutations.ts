import type { ObjectRef } from "@pothos/core";
import { type FieldError, isUserError } from "../errors.js";
import { builder, type Types } from "./builder.js";
import { atMost, boundedList, maxUserErrors } from "./limits/list-bounds.js";

/** An expected problem with a mutation's input, returned in the payload rather than as an error. */
/** A user error as the payload carries it: the field error and the code of the error it came from. */
type UserErrorItem = FieldError & { code?: string };

const UserErrorRef = builder.objectRef<UserErrorItem>("UserError").implement({
  description:
    "A problem with the mutation's input. Expected failures (validation, conflicts) come back here with data, not as top-level errors.",
  fields: (t) => ({
    field: t.exposeStringList("field", {
      description:
        'Path of the input field at fault, relative to `input` (e.g. ["endsAt"]); empty for the input as a whole.',
    }),
    message: t.exposeString("message", { description: "What is wrong, for people." }),
    code: t.string({
      description:
        "The error code of the problem, as docs/guides/03-errors.md lists them: `BAD_USER_INPUT` for invalid input, `CONFLICT` for a clash with the current state (a duplicate registration, a sold-out ticket type).",
      resolve: (error) => error.code ?? "BAD_USER_INPUT",
    }),
  }),
});

/** What a mutation resolver returns: the changed object under its own name, or user errors. */
export type Payload<Name extends string, T> = { [K in Name]: T | null } & { userErrors: UserErrorItem[] };

/**
 * Runs a service write and shapes its outcome as a payload. User errors (per `errorTable`: validation
 * failures, conflicts) become `userErrors`; NOT_FOUND, FORBIDDEN and the rest stay top-level errors.
 */
export async function runMutation<Name extends string, T>(
  name: Name,
  write: () => Promise<T>,
): Promise<Payload<Name, T>> {
  try {
    const result = await write();
    return { [name]: result, userErrors: [] } as Payload<Name, T>;
  } catch (error) {
    if (isUserError(error)) {
      const userErrors = (
        error.details.fieldErrors?.length
          ? error.details.fieldErrors
          : [{ field: [], message: error.message }]
      ).map((fieldError) => ({ ...fieldError, code: error.code }));
      return { [name]: null, userErrors } as Payload<Name, T>;
    }
    throw error;
  }
}

/**
 * Declares `<TypeName>` with the changed object under `field` and `userErrors`: the shape every
 * mutation payload shares.
 */
export function payloadType<Name extends string, T>(
  typeName: string,
  field: Name,
  ref: ObjectRef<Types, T>,
  description: string,
): ObjectRef<Types, Payload<Name, T>> {
  const payload = builder.objectRef<Payload<Name, T>>(typeName);
  // Pothos cannot resolve its result type for a generic T; seen as an ObjectRef of unknown it
  // needs none, while `runMutation` and the Payload type keep the object's type for callers.
  const item: ObjectRef<Types, unknown> = ref;
  payload.implement({
    description,
    fields: (t) => ({
      [field]: t.field({
        type: item,
        nullable: true,
        description: "The object as it is after the change; null when the input had problems.",
        resolve: (parent) => parent[field],
      }),
      userErrors: userErrorsField(t),
    }),
  });
  return payload;
}

/** The `userErrors` field of a payload: the input's problems, at most `maxUserErrors` of them. */
export function userErrorsField<P extends { userErrors: FieldError[] }>(
  t: PothosSchemaTypes.ObjectFieldBuilder<Types, P>,
  description = "Problems with the input; empty on success.",
) {
  return t.field({
    type: [UserErrorRef],
    description,
    ...boundedList(maxUserErrors),
    resolve: (parent) => atMost(parent.userErrors, maxUserErrors),
  });
}
