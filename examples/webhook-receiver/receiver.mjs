// A complete Eventgraph webhook receiver: verifies the Standard Webhooks signature, ignores
// duplicates by webhook-id, answers 2xx quickly and does the work afterwards.
//
//   npm install standardwebhooks
//   WEBHOOK_SECRET=whsec_... PORT=8080 node receiver.mjs
import http from "node:http";
import { Webhook } from "standardwebhooks";

const webhook = new Webhook(process.env.WEBHOOK_SECRET ?? "");
// Use a database table with a unique key in production: deliveries are at least once.
const seen = new Set();

function handle(event) {
  switch (event.type) {
    case "attendee.registered":
      console.log(`New attendee in ${event.data.projectId}: ${event.data.object.name}`);
      break;
    case "checkin.created":
      console.log(`Checked in: ${event.data.object.name}`);
      break;
    case "app.link.revoked":
      console.log(`Project ${event.data.object.projectId} disconnected the app`);
      break;
    default:
      console.log(`Event ${event.type}`);
  }
}

http
  .createServer((request, response) => {
    const chunks = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", () => {
      // Verify the raw bytes: re-serialized JSON would not match the signature.
      const body = Buffer.concat(chunks).toString("utf8");
      let event;
      try {
        event = webhook.verify(body, request.headers);
      } catch {
        response.writeHead(401).end("bad signature");
        return;
      }
      response.writeHead(204).end();
      const id = request.headers["webhook-id"];
      if (seen.has(id)) return;
      seen.add(id);
      handle(event);
    });
  })
  .listen(Number(process.env.PORT ?? 8080), () => console.log("Listening for Eventgraph webhooks"));
