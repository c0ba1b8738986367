import { builder } from "./builder.js";
import type { RequestBudget } from "./context.js";

const RateLimitRef = builder.objectRef<RequestBudget>("RateLimit").implement({
  description:
    "The caller's rate-limit budget: points per hour, per app token or, without a token, per client IP.",
  fields: (t) => ({
    limit: t.exposeInt("limit", { description: "Points per hour." }),
    remaining: t.exposeInt("remaining", {
      description: "Points left in the current window, after this request.",
    }),
    resetAt: t.field({
      type: "DateTime",
      description: "When the window ends and the budget is full again.",
      resolve: (budget) => new Date(budget.resetAt * 1000).toISOString(),
    }),
    cost: t.exposeInt("cost", {
      description: "The computed cost of this request (page sizes multiply down the tree).",
    }),
    points: t.exposeInt("points", {
      description: "Points this request was charged: the cost divided by 100, at least 1.",
    }),
  }),
});

/** Defines `Query.rateLimit`. */
export function defineRateLimitField(): void {
  builder.queryField("rateLimit", (t) =>
    t.field({
      type: RateLimitRef,
      nullable: true,
      description:
        "The caller's rate-limit budget after this request. The same figures come in every response's extensions and headers.",
      resolve: (_root, _args, context) => {
        // The budget changes with every request, so an answer that includes it is never cached.
        context.noCache();
        return context.budget ?? null;
      },
    }),
  );
}
