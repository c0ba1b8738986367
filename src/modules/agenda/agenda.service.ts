import type { Db } from "../../db/database.js";
import type { ProjectChanges } from "../../shared/project-changes.js";
import type { AccessService } from "../access/access.service.js";
import { createConflictsService } from "./conflicts.js";
import { createAgendaSessionsService } from "./sessions.service.js";
import { createSpeakersService } from "./speakers.service.js";
import { createVenuesService } from "./venues.service.js";

export type { Room, Session, SessionStatus, Speaker, SpeakerLink, Track } from "./agenda.model.js";
export type { Conflict } from "./conflicts.js";

/**
 * The agenda as one service (`services.agenda`): sessions, speakers, venues (tracks and rooms) and
 * the conflicts among sessions, each written in its own file. Callers keep one name for the whole programme.
 */
export function createAgendaService(db: Db, access: AccessService, changes: ProjectChanges) {
  const writer = { db, access, changes };
  const sessions = createAgendaSessionsService(writer);
  return {
    ...sessions,
    ...createSpeakersService(writer),
    ...createVenuesService(writer),
    ...createConflictsService(sessions),
  };
}
