/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';
/** What an app may do in a project. Reading a reachable project's basic fields needs none. */
export type Permission =
  /** Read the agenda: Read all sessions, speakers, tracks and rooms, including drafts. */
  | 'AGENDA_READ'
  /** Edit the agenda: Create, update and delete sessions, speakers, tracks and rooms. */
  | 'AGENDA_WRITE'
  /** Read attendees: Read attendees and their personal data (name, email, company) and check-in state. */
  | 'ATTENDEES_READ'
  /** Manage registrations: Register, update and cancel attendees. */
  | 'ATTENDEES_WRITE'
  /** Read the audit log: Read who changed what in the project and when: organizers' and apps' actions, with the changed fields, their new values and the address they came from. */
  | 'AUDIT_READ'
  /** Check attendees in: Check attendees in and undo a check-in. */
  | 'CHECKINS_WRITE'
  /** Read orders: Read orders with their buyers' names and emails, amounts, payment state and bank transfer references. */
  | 'ORDERS_READ'
  /** Manage orders: Mark orders paid and cancel them (cancelling frees their seats). */
  | 'ORDERS_WRITE'
  /** Edit event details: Update the project's name, description, dates, time zone, venue, website and status. */
  | 'PROJECT_WRITE'
  /** Read ticket types: Read ticket types with their capacity and sales figures. */
  | 'TICKETS_READ'
  /** Edit ticket types: Create, update and delete ticket types. */
  | 'TICKETS_WRITE';

export type ProjectSessionsQueryVariables = Exact<{
  id: string;
  first: number;
  after: string | null | undefined;
}>;


export type ProjectSessionsQuery = { project: { name: string, sessions: { totalCount: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { id: string, title: string, startsAt: string, room: { name: string } | null } }> } } | null };

export type ViewerQueryVariables = Exact<{ [key: string]: never; }>;


export type ViewerQuery = { viewer: { name: string, permissions: Array<Permission> } | null };


export const ProjectSessionsDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"ProjectSessions"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"first"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"after"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"project"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"sessions"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"Variable","name":{"kind":"Name","value":"first"}}},{"kind":"Argument","name":{"kind":"Name","value":"after"},"value":{"kind":"Variable","name":{"kind":"Name","value":"after"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"totalCount"}},{"kind":"Field","name":{"kind":"Name","value":"pageInfo"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"hasNextPage"}},{"kind":"Field","name":{"kind":"Name","value":"endCursor"}}]}},{"kind":"Field","name":{"kind":"Name","value":"edges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"node"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"startsAt"}},{"kind":"Field","name":{"kind":"Name","value":"room"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}}]}}]}}]}}]}}]}}]}}]} as unknown as DocumentNode<ProjectSessionsQuery, ProjectSessionsQueryVariables>;
export const ViewerDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"Viewer"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"viewer"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"permissions"}}]}}]}}]} as unknown as DocumentNode<ViewerQuery, ViewerQueryVariables>;