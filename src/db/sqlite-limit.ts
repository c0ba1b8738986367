import {
  BinaryOperationNode,
  type KyselyPlugin,
  type LimitNode,
  OperationNodeTransformer,
  OperatorNode,
  ValueNode,
} from "kysely";

/**
 * SQLite compiles a bare `limit ?` by reading the bound value at prepare time, and marks the
 * statement to be compiled again whenever that parameter is bound anew (sqlite3ExprIsInteger sets
 * the statement's variable mask). better-sqlite3 binds every parameter on every run, so each run of
 * a page query re-prepared it: parser, planner and code generator, a large share of a small page's
 * statement. `limit ? + 0` is an expression SQLite
 * evaluates when it runs, with the same result, so the prepared statement is reused. The parameter
 * stays where it was, so the compiled statements of `reusableQuery` keep their parameter order.
 */
class LimitAsExpression extends OperationNodeTransformer {
  protected override transformLimit(node: LimitNode): LimitNode {
    const limit = super.transformLimit(node);
    if (!ValueNode.is(limit.limit) || limit.limit.immediate) return limit;
    return {
      ...limit,
      limit: BinaryOperationNode.create(limit.limit, OperatorNode.create("+"), ValueNode.createImmediate(0)),
    };
  }
}

/** The SQLite database's plugin that keeps `limit` parameters out of the query plan (see above). */
export function limitWithoutReprepare(): KyselyPlugin {
  const transformer = new LimitAsExpression();
  return {
    transformQuery: (args) => transformer.transformNode(args.node),
    transformResult: async (args) => args.result,
  };
}
