// A node:test reporter that writes one JSON line per skipped test (file, name, reason) and one per
// finished top-level test or suite (file, duration), so that scripts/test.mjs can end the run with a
// list of what was skipped and why, and with the files that took longest.
export default async function* skipReporter(source) {
  for await (const event of source) {
    if (event.type !== "test:pass" && event.type !== "test:fail") continue;
    const { data } = event;
    const isSuite = data.details?.type === "suite";
    if (data.skip !== undefined) {
      const reason = data.skip === true ? "skipped without a reason" : String(data.skip);
      // Skips registered by test/helpers already carry the test file in their name.
      const file = data.file?.includes("/test/helpers/") ? undefined : data.file;
      // node:test's own "skipped N" leaves skipped suites out; they are listed (and fail CI) all the
      // same, marked, so a `describe(…, { skip })` can never hide a suite from the list.
      yield `${JSON.stringify({ kind: "skip", file, name: data.name, reason, suite: isSuite })}\n`;
    }
    // A top-level test or suite; those test/helpers registers (a skip) last no time.
    if (data.nesting === 0 && data.file && !data.file.includes("/test/helpers/")) {
      yield `${JSON.stringify({ kind: "duration", file: data.file, ms: data.details?.duration_ms ?? 0 })}\n`;
    }
  }
}
