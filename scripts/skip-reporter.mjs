// A node:test reporter that writes one JSON line per skipped test (file, name, reason), so that
// scripts/test.mjs can end the run with a list of what was skipped and why.
export default async function* skipReporter(source) {
  for await (const event of source) {
    const { data } = event;
    if ((event.type === "test:pass" || event.type === "test:fail") && data.skip !== undefined) {
      const reason = data.skip === true ? "skipped without a reason" : String(data.skip);
      // Skips registered by test/helpers already carry the test file in their name.
      const file = data.file?.includes("/test/helpers/") ? undefined : data.file;
      // node:test's own "skipped N" leaves skipped suites out; they are listed (and fail CI) all the
      // same, marked, so a `describe(…, { skip })` can never hide a suite from the list.
      const suite = data.details?.type === "suite";
      yield `${JSON.stringify({ file, name: data.name, reason, suite })}\n`;
    }
  }
}
