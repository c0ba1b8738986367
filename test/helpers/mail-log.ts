/** The last link the server logged instead of sending an email (no SMTP in tests). */
export function lastEmailLink(logText: string, to: string, kind: "verify-email" | "reset-password"): string {
  const links = logText
    .split("\n")
    .map((line) => JSON.parse(line) as { emailTo?: string; link?: string })
    .filter((entry) => entry.emailTo === to && entry.link?.includes(`/${kind}?`))
    .map((entry) => entry.link as string);
  const link = links.at(-1);
  if (!link) throw new Error(`No ${kind} link was logged for ${to}`);
  return link;
}
