import type { FieldMap, InputObjectRef, ObjectRef } from "@pothos/core";
import { type FieldError, isUserError } from "../errors.js";
import type { Permission } from "../modules/access/permissions.js";
import { builder, type Types } from "./builder.js";
import type { GraphQLContext } from "./context.js";
import { atMost, boundedList, maxUserErrors } from "./limits/list-bounds.js";
import { requires } from "./permissions.js";

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
type Payload<Name extends string, T> = { [K in Name]: T | null } & { userErrors: UserErrorItem[] };

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

/** The field builder `builder.mutationFields` hands its callback. */
type MutationFields = PothosSchemaTypes.MutationFieldBuilder<Types, Types["Root"]>;

/**
 * Declares a mutation the API's one way: behind one permission, with one required `input` object,
 * answering a payload that carries the written object under `field` or the input's `userErrors`.
 */
export function inputMutation<Name extends string, T, Input>(
  t: MutationFields,
  options: {
    permission: Permission;
    description: string;
    input: InputObjectRef<Types, Input>;
    payload: ObjectRef<Types, Payload<Name, T>>;
    field: Name;
    write: (input: Input, context: GraphQLContext) => Promise<T>;
    /** What one call costs, in the rate limit's points, when it does far more work than a row's write. */
    cost?: number;
  },
) {
  // Pothos cannot resolve the shapes of generic refs; seen as refs of unknown they need none,
  // while `options` keeps the input's and the payload's types for callers.
  const input: InputObjectRef<Types, unknown> = options.input;
  const payload: ObjectRef<Types, unknown> = options.payload;
  const { extensions } = requires(options.permission);
  return t.field({
    extensions: options.cost === undefined ? extensions : { ...extensions, cost: { value: options.cost } },
    type: payload,
    description: options.description,
    args: {
      input: t.arg({
        type: input,
        required: true,
        description: "The mutation's arguments, as one input object.",
      }),
    },
    resolve: (_root, args, context) =>
      runMutation(options.field, () => options.write(args.input as Input, context)),
  });
}

/** One of the three writes of `crudMutations`: its input, what it does, and the service call. */
interface CrudWrite<Input, T> {
  input: InputObjectRef<Types, Input>;
  description: string;
  write: (input: Input, context: GraphQLContext) => Promise<T>;
}

/**
 * Declares `create<Type>`, `update<Type>` and `delete<Type>` of an object behind one permission,
 * each with its payload `<Write><Type>Payload` carrying the object under `field` (the deleted one
 * as it was).
 */
export function crudMutations<Name extends string, T, Create, Update, Delete>(
  t: MutationFields,
  kind: {
    typeName: string;
    field: Name;
    noun: string;
    ref: ObjectRef<Types, T>;
    permission: Permission;
    create: CrudWrite<Create, T>;
    update: CrudWrite<Update, T>;
    delete: CrudWrite<Delete, T>;
  },
) {
  const { typeName, field, permission } = kind;
  const result = (write: string, as = "") =>
    payloadType(
      `${write}${typeName}Payload`,
      field,
      kind.ref,
      `The result of ${write.toLowerCase()}${typeName}${as}.`,
    );
  return {
    [`create${typeName}`]: inputMutation(t, { permission, field, payload: result("Create"), ...kind.create }),
    [`update${typeName}`]: inputMutation(t, { permission, field, payload: result("Update"), ...kind.update }),
    [`delete${typeName}`]: inputMutation(t, {
      permission,
      field,
      payload: result("Delete", `: the ${kind.noun} as it was`),
      ...kind.delete,
    }),
  };
}

/** What every mutation payload carries besides its own fields. */
type WithUserErrors = { userErrors: FieldError[] };

/**
 * Declares a mutation payload type: its own `fields`, then `userErrors`. Every payload of the API
 * is built here, so each has the same `userErrors` (bounded, described once).
 */
export function payloadObject<Shape extends WithUserErrors>(
  typeName: string,
  options: {
    description: string;
    fields: (t: PothosSchemaTypes.ObjectFieldBuilder<Types, Shape>) => FieldMap;
    userErrorsDescription?: string;
  },
): ObjectRef<Types, Shape> {
  const payload = builder.objectRef<Shape>(typeName);
  payload.implement({
    description: options.description,
    fields: (t) => ({
      ...options.fields(t),
      userErrors: userErrorsField(t, options.userErrorsDescription),
    }),
  });
  return payload;
}

/**
 * Declares `<TypeName>` with the changed object under `field` and `userErrors`: the shape most
 * mutation payloads share.
 */
export function payloadType<Name extends string, T>(
  typeName: string,
  field: Name,
  ref: ObjectRef<Types, T>,
  description: string,
  itemDescription = "The object as it is after the change; null when the input had problems.",
  userErrorsDescription?: string,
): ObjectRef<Types, Payload<Name, T>> {
  // Pothos cannot resolve its result type for a generic T; seen as an ObjectRef of unknown it
  // needs none, while `runMutation` and the Payload type keep the object's type for callers.
  const item: ObjectRef<Types, unknown> = ref;
  return payloadObject<Payload<Name, T>>(typeName, {
    description,
    userErrorsDescription,
    fields: (t) => ({
      [field]: t.field({
        type: item,
        nullable: true,
        description: itemDescription,
        resolve: (parent) => parent[field],
      }),
    }),
  });
}

// The `userErrors` field of a payload: the input's problems, at most `maxUserErrors` of them.
function userErrorsField<P extends WithUserErrors>(
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
