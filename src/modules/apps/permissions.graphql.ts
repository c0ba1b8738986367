import { builder } from "../../graphql/builder.js";
import { boundedList } from "../../graphql/limits/list-bounds.js";
import { type Permission, permissionCatalogue } from "../access/permissions.js";

/** The `Permission` enum: AGENDA_READ for agenda:read, and so on. */
export const PermissionEnum = builder.enumType("Permission", {
  description: "What an app may do in a project. Reading a reachable project's basic fields needs none.",
  values: Object.fromEntries(
    permissionCatalogue.map((p) => [
      p.graphqlName,
      { value: p.name, description: `${p.title}: ${p.description}` },
    ]),
  ) as Record<
    (typeof permissionCatalogue)[number]["graphqlName"],
    { value: Permission; description: string }
  >,
});

type CatalogueEntry = (typeof permissionCatalogue)[number];

const PermissionInfoRef = builder.objectRef<CatalogueEntry>("PermissionInfo").implement({
  description: "A permission as shown to organizers on the consent page.",
  fields: (t) => ({
    permission: t.field({ type: PermissionEnum, description: "The enum value.", resolve: (p) => p.name }),
    name: t.exposeString("name", { description: "The permission's name, e.g. agenda:read." }),
    title: t.exposeString("title", { description: "Short title for people." }),
    description: t.exposeString("description", { description: "What it grants." }),
  }),
});

/** `Query.permissions`: the catalogue, public. */
export function definePermissionFields(): void {
  builder.queryField("permissions", (t) =>
    t.field({
      type: [PermissionInfoRef],
      description: "Every permission an app can request, with the text organizers see. Public.",
      ...boundedList(permissionCatalogue.length),
      resolve: () => [...permissionCatalogue],
    }),
  );
}
