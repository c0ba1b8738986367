// Import rules checked by `npm run lint` (scripts/lint-imports.mjs runs dependency-cruiser over the
// compiled JavaScript in dist/, fresh from tsc: dependency-cruiser cannot parse TypeScript 7 sources
// itself, and a type-only import, erased by tsc, cannot form a cycle at run time).
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "Import cycles make load order matter and blur which module depends on which.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "graphql-layer-does-not-assemble",
      comment:
        "src/graphql/ is the layer every module's types build on; which modules make up the API is " +
        "decided in src/api-schema.ts, above it.",
      severity: "error",
      from: { path: "^dist/src/graphql/" },
      to: { path: "^dist/src/modules/[^/]+/.+[.]graphql[.]js$" },
    },
    {
      name: "repositories-are-private",
      comment:
        "A module's SQL is reached through that module's exported functions, never its repository, " +
        "so each table has one owner.",
      severity: "error",
      from: { path: "^dist/src/modules/([^/]+)/" },
      to: { path: "^dist/src/modules/([^/]+)/.+[.]repository[.]js$", pathNot: "^dist/src/modules/$1/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "node_modules" },
  },
};
