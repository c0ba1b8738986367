import type { FastifyRequest } from "fastify";

/** How this server handles email, as the dashboard's sentences need it. */
export interface MailSetup {
  /** SMTP_URL is set: emails go out. */
  sendsEmail: boolean;
  /** No SMTP, and a development server: unsent emails' links are in the server log. */
  linksInLog: boolean;
}

/** The sentence after asking for a verification email: sent, in the log, or ask the operator. */
export function verificationSentence(mail: MailSetup, email: string): string {
  if (mail.sendsEmail) return `We sent a verification link to ${email}.`;
  if (mail.linksInLog) {
    return "No email was sent (this server has no SMTP_URL): the verification link is in the server log.";
  }
  return `No email was sent (this server has no SMTP_URL): ask its operator to run eventgraph users verify --email ${email}.`;
}

/** The mail setup of the server answering a dashboard request. */
export function mailSetup(request: FastifyRequest): MailSetup {
  return {
    sendsEmail: request.dashboard.sendsEmail ?? false,
    linksInLog: request.dashboard.mailLinksInLog ?? false,
  };
}
