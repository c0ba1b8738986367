import { randomBytes } from "node:crypto";
import { z } from "zod";
import type { Db } from "../../db/database.js";
import type { ProjectChanges } from "../../shared/project-changes.js";
import { parseInput } from "../../shared/validation.js";
import { systemActor } from "../access/actor.js";
import { allPermissions } from "../access/permissions.js";
import type { UsersService } from "../accounts/users.service.js";
import type { AppsService } from "../apps/apps.service.js";
import type { Project, ProjectsService } from "../projects/projects.service.js";
import { demoProjectInput, generateDemo } from "./demo.generator.js";
import { demoRepository } from "./demo.repository.js";

const seedInput = z.object({
  scale: z
    .number()
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(1000, "must be at most 1000"),
  seed: z
    .number()
    .int("must be a whole number")
    .min(0)
    .max(2 ** 32 - 1),
});

/** What a seeding run made: the organizer's login, the project, row counts and time per table. */
export interface DemoSeedResult {
  organizer: { id: string; email: string };
  /** Generated at random and shown once, like any password the operator hands out. */
  password: string;
  project: Project;
  /** The API token of the demo app, which holds every `*:read` permission; shown once. */
  token: string;
  counts: Record<string, number>;
  /** Milliseconds spent generating, and inserting each table. */
  timings: Record<string, number>;
}

/** The demo conference: a verified organizer and a published, fully populated project. */
export function createDemoService(
  db: Db,
  deps: { users: UsersService; projects: ProjectsService; apps: AppsService; changes: ProjectChanges },
) {
  return {
    /** Seeds one demo conference; sizes grow with `scale` (×1 ≈ 60 sessions and 2,000 attendees). */
    async seed(input: { scale: number; seed: number; now?: Date }): Promise<DemoSeedResult> {
      const { scale, seed } = parseInput(seedInput, { scale: input.scale, seed: input.seed });
      const password = randomBytes(12).toString("base64url");
      // A fresh organizer per run, so seeding twice into one database never collides.
      const email = `organizer-${randomBytes(4).toString("hex")}@demo.eventgraph.example`;
      const user = await deps.users.create({ email, name: "Demo Organizer", password });
      await deps.users.markEmailVerified(user.id);

      const timings: Record<string, number> = {};
      let started = performance.now();
      const lap = (name: string) => {
        const now = performance.now();
        timings[name] = Math.round(now - started);
        started = now;
      };
      const now = input.now ?? new Date();
      const project = await deps.projects.create(user.id, demoProjectInput(now));
      const data = generateDemo(project.id, user.id, { scale, seed, now });
      lap("generate");
      await demoRepository.insertTracks(db, data.tracks);
      await demoRepository.insertRooms(db, data.rooms);
      lap("tracks+rooms");
      await demoRepository.insertSpeakers(db, data.speakers);
      lap("speakers");
      await demoRepository.insertSessions(db, data.sessions);
      await demoRepository.insertSessionSpeakers(db, data.sessionSpeakers);
      lap("sessions");
      await demoRepository.insertTicketTypes(db, data.ticketTypes);
      lap("ticketTypes");
      await demoRepository.insertAttendees(db, data.attendees);
      lap("attendees");
      await demoRepository.insertCheckIns(db, data.checkIns);
      lap("checkIns");
      // The rows above went in without a transaction of their own (bulk seeding); the version follows.
      await deps.changes.write(db, undefined, project.id, async () => {});
      const { token } = await deps.apps.createApp(systemActor, {
        projectId: project.id,
        name: "Demo app",
        description: "Reads the demo conference through the API: agenda, tickets and attendees.",
        permissions: allPermissions.filter((p) => p.endsWith(":read")),
      });

      return {
        organizer: { id: user.id, email: user.email },
        password,
        project,
        token,
        counts: {
          tracks: data.tracks.length,
          rooms: data.rooms.length,
          speakers: data.speakers.length,
          sessions: data.sessions.length,
          sessionSpeakers: data.sessionSpeakers.length,
          ticketTypes: data.ticketTypes.length,
          attendees: data.attendees.length,
          checkIns: data.checkIns.length,
        },
        timings,
      };
    },
  };
}
