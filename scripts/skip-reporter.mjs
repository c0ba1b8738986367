// A node:test reporter that writes one JSON line per skipped test (file, name, reason), so that
// scripts/test.mjs can end the run with a list of what was skipped and why.
export default async function* skipReporter(source) {
  for await (const event of source) {
    // Suites are left out, as node:test's own "skipped N" leaves them out: the list and the count agree.
    const isSuite = event.data.details?.type === "suite";
    if (
      (event.type === "test:pass" || event.type === "test:fail") &&
      event.data.skip !== undefined &&
      !isSuite
    ) {
      const reason = event.data.skip === true ? "skipped without a reason" : String(event.data.skip);
      // Skips registered by test/helpers already carry the test file in their name.
      const file = event.data.file?.includes("/test/helpers/") ? undefined : event.data.file;
      yield `${JSON.stringify({ file, name: event.data.name, reason })}\n`;
    }
  }
}
