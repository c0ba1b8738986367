import multipart from "@fastify/multipart";
import type { FastifyInstance } from "fastify";
import { badInput } from "../errors.js";
import { maxImportBytes } from "../modules/attendees/attendees-csv.js";
import type { FormRequest } from "./form-route.js";

/** A file posted with a dashboard form: its name as the browser gave it and its bytes. */
export interface UploadedFile {
  fileName: string;
  content: Buffer;
}

/**
 * Registers `routes` in a scope that accepts one uploaded CSV file (multipart) of at most
 * maxImportBytes: only the routes given here take files, no other dashboard route does. The file is
 * read whole (it is bounded) and put on the body as `file`, beside the form's fields (the CSRF one).
 */
export function csvUploadRoutes(app: FastifyInstance, routes: (upload: FastifyInstance) => void): void {
  app.register(async (upload) => {
    await upload.register(multipart, {
      attachFieldsToBody: "keyValues",
      limits: { fileSize: maxImportBytes, files: 1, fields: 4, parts: 5 },
      async onFile(part) {
        try {
          const content = await part.toBuffer();
          (part as unknown as { value: UploadedFile }).value = { fileName: part.filename, content };
        } catch (error) {
          if ((error as { code?: string }).code === "FST_REQ_FILE_TOO_LARGE") {
            throw badInput([
              { field: ["file"], message: `is larger than ${maxImportBytes / 1024 / 1024} MB` },
            ]);
          }
          throw error;
        }
      },
    });
    routes(upload);
  });
}

/** The uploaded file of a request to a csvUploadRoutes route, or a refusal saying to choose one. */
export function uploadedFile(request: FormRequest): UploadedFile {
  const file = (request.body as Record<string, unknown> | undefined)?.file as UploadedFile | undefined;
  if (!file?.content) throw badInput([{ field: ["file"], message: "is missing: choose a CSV file" }]);
  return file;
}

/** The other fields posted with the file (text values only). */
export function uploadFields(request: FormRequest): Record<string, string> {
  const body = (request.body as Record<string, unknown> | undefined) ?? {};
  return Object.fromEntries(
    Object.entries(body).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
  );
}
