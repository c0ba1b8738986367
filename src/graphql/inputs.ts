/**
 * A GraphQL input handed on to a service, checked exactly: besides the service's own type check,
 * a field the service does not take fails to compile. Spreading an input would otherwise let a
 * field renamed on one side slip through as an unknown extra, silently ignored at run time.
 */
export function serviceInput<S, I extends S>(input: I & Record<Exclude<keyof I, keyof S>, never>): S {
  return input;
}
