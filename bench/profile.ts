import { readFileSync } from "node:fs";

/** The parts of a V8 `.cpuprofile` (from `node --cpu-prof`) the summary reads. */
interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
}

// Where a function lives: a package, one of our folders, or Node/V8 itself.
function areaOf(url: string, functionName: string): string {
  if (functionName === "(idle)" || functionName === "(program)" || functionName === "(garbage collector)") {
    return functionName;
  }
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg?.[1]) return pkg[1];
  const ours = /\/dist\/(src\/[^/]+(?:\/[^/]+)?)\//.exec(url);
  if (ours?.[1]) return ours[1];
  if (url.startsWith("node:") || url === "") return "node internals";
  return url;
}

/**
 * A text summary of where a CPU profile spent its time: self time per area (package or folder)
 * and the functions with the most self time, as a share of the busy (non-idle) time.
 */
export function summarizeProfile(file: string, top = 25): string {
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfByFunction = new Map<string, number>();
  const selfByArea = new Map<string, number>();
  let busy = 0;
  let total = 0;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    const frame = byId.get(id)?.callFrame;
    if (!frame) return;
    total += delta;
    if (frame.functionName === "(idle)") return;
    busy += delta;
    const area = areaOf(frame.url, frame.functionName);
    const name = `${frame.functionName || "(anonymous)"} ${frame.url.replace(/^.*\/(node_modules|dist)\//, "")}:${frame.lineNumber + 1}`;
    selfByFunction.set(name, (selfByFunction.get(name) ?? 0) + delta);
    selfByArea.set(area, (selfByArea.get(area) ?? 0) + delta);
  });
  const share = (us: number) => `${((us / busy) * 100).toFixed(1).padStart(5)}%`;
  const lines = [
    `busy ${(busy / 1e6).toFixed(1)} s of ${(total / 1e6).toFixed(1)} s sampled`,
    "self time by area:",
    ...[...selfByArea]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 15)
      .map(([area, us]) => `  ${share(us)}  ${area}`),
    `top ${top} functions by self time:`,
    ...[...selfByFunction]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => `  ${share(us)}  ${name}`),
  ];
  return lines.join("\n");
}
